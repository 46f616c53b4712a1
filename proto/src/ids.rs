//! Ids of jobs, units and workers as distinct types, so one is never passed for another.
//!
//! With the `sql` feature (the coordinator's store) each id is also bound to
//! and read from SQLite as itself, so that no store function handles a raw
//! integer for one. An id is a SQLite rowid: a non-negative `i64` in the
//! table, a `u64` here.

use std::fmt;

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
        #[serde(transparent)]
        pub struct $name(pub u64);

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.fmt(f)
            }
        }

        impl From<u64> for $name {
            fn from(id: u64) -> $name {
                $name(id)
            }
        }

        /// Binds the id as the SQLite integer it was read from. An id past
        /// `i64::MAX` (only ever one a client sent: the store's rowids are
        /// below it) binds as the negative integer of the same bits, as the
        /// `as i64` cast this replaces did, so it matches no row rather than
        /// failing the statement.
        #[cfg(feature = "sql")]
        impl rusqlite::types::ToSql for $name {
            fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
                Ok(rusqlite::types::ToSqlOutput::from(self.0 as i64))
            }
        }

        /// Reads the id from a SQLite integer; a negative one is refused
        /// ([`FromSqlError::OutOfRange`](rusqlite::types::FromSqlError::OutOfRange))
        /// rather than wrapped to a huge id, and a value of another type is
        /// [`InvalidType`](rusqlite::types::FromSqlError::InvalidType).
        #[cfg(feature = "sql")]
        impl rusqlite::types::FromSql for $name {
            fn column_result(value: rusqlite::types::ValueRef<'_>) -> rusqlite::types::FromSqlResult<$name> {
                let id = value.as_i64()?;
                u64::try_from(id).map($name).map_err(|_| rusqlite::types::FromSqlError::OutOfRange(id))
            }
        }
    };
}

id_type!(
    /// A job: one submitted problem and its tree.
    JobId
);
id_type!(
    /// A work unit: one position of a job's tree handed to workers.
    UnitId
);
id_type!(
    /// A registered worker process.
    WorkerId
);

#[cfg(all(test, feature = "sql"))]
mod sql_tests {
    use super::{JobId, UnitId, WorkerId};
    use rusqlite::Connection;

    #[test]
    fn ids_round_trip_through_sqlite() {
        let conn = Connection::open_in_memory().unwrap();
        let back: (JobId, UnitId, WorkerId) = conn
            .query_row("SELECT ?1, ?2, ?3", (JobId(7), UnitId(1 << 40), WorkerId(0)), |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })
            .unwrap();
        assert_eq!(back, (JobId(7), UnitId(1 << 40), WorkerId(0)));
        let none: Option<JobId> = conn.query_row("SELECT NULL", [], |r| r.get(0)).unwrap();
        assert_eq!(none, None);
    }

    #[test]
    fn a_negative_or_non_integer_id_is_refused() {
        let conn = Connection::open_in_memory().unwrap();
        let negative = conn.query_row("SELECT -3", [], |r| r.get::<_, JobId>(0)).unwrap_err();
        assert!(matches!(negative, rusqlite::Error::IntegralValueOutOfRange(0, -3)), "{negative:?}");
        let text = conn.query_row("SELECT 'seven'", [], |r| r.get::<_, UnitId>(0)).unwrap_err();
        assert!(matches!(text, rusqlite::Error::InvalidColumnType(..)), "{text:?}");
    }

    #[test]
    fn an_id_past_i64_max_binds_as_the_cast_did() {
        let conn = Connection::open_in_memory().unwrap();
        let bound: i64 = conn.query_row("SELECT ?1", [WorkerId(u64::MAX)], |r| r.get(0)).unwrap();
        assert_eq!(bound, -1);
    }
}
