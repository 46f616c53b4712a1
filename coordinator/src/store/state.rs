//! The store's vocabulary: job and unit states, node ids, and values, with
//! their SQL text written and read here and nowhere else.

use std::fmt;

use golomb_engine::solve::Outcome;
use golomb_proto::convert::{outcome_from_name, outcome_name};
use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ToSql, ToSqlOutput, ValueRef};

/// Node ids are defined by the proof-number manager, which knows no SQL; their SQL text is here.
pub use crate::manager::NodeId;

/// Where a job is in its life.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum JobState {
    /// Stored; no unit handed out yet.
    Pending,
    /// Some unit has been handed out.
    Running,
    /// Answered.
    Done,
    /// Stopped by a user.
    Cancelled,
    /// A unit it needed failed too often.
    Failed,
}

impl JobState {
    /// Every state, in life order.
    pub const ALL: [JobState; 5] =
        [JobState::Pending, JobState::Running, JobState::Done, JobState::Cancelled, JobState::Failed];

    /// The state's name, as stored and shown.
    pub fn name(self) -> &'static str {
        match self {
            JobState::Pending => "pending",
            JobState::Running => "running",
            JobState::Done => "done",
            JobState::Cancelled => "cancelled",
            JobState::Failed => "failed",
        }
    }

    /// The state a name stands for.
    pub fn from_name(name: &str) -> Option<JobState> {
        JobState::ALL.into_iter().find(|s| s.name() == name)
    }

    /// Whether the job has ended (done, cancelled or failed): nothing more will change it.
    pub fn is_finished(self) -> bool {
        matches!(self, JobState::Done | JobState::Cancelled | JobState::Failed)
    }
}

/// Where a work unit is in its life.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum UnitState {
    /// Waiting for a worker.
    Pending,
    /// Held by a worker under a lease.
    Leased,
    /// Solved (or counted).
    Done,
    /// Failed too often.
    Failed,
    /// No longer needed.
    Cancelled,
    /// Replaced by its children after running too long.
    Split,
}

impl UnitState {
    /// Every state.
    pub const ALL: [UnitState; 6] = [
        UnitState::Pending,
        UnitState::Leased,
        UnitState::Done,
        UnitState::Failed,
        UnitState::Cancelled,
        UnitState::Split,
    ];

    /// The state's name, as stored.
    pub fn name(self) -> &'static str {
        match self {
            UnitState::Pending => "pending",
            UnitState::Leased => "leased",
            UnitState::Done => "done",
            UnitState::Failed => "failed",
            UnitState::Cancelled => "cancelled",
            UnitState::Split => "split",
        }
    }

    /// The state a name stands for.
    pub fn from_name(name: &str) -> Option<UnitState> {
        UnitState::ALL.into_iter().find(|s| s.name() == name)
    }
}

macro_rules! sql_text_enum {
    ($name:ident, $what:literal) => {
        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.name())
            }
        }

        impl ToSql for $name {
            fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
                Ok(ToSqlOutput::from(self.name()))
            }
        }

        impl FromSql for $name {
            fn column_result(value: ValueRef<'_>) -> FromSqlResult<$name> {
                let text = value.as_str()?;
                $name::from_name(text).ok_or_else(|| FromSqlError::Other(format!("unknown {} `{text}`", $what).into()))
            }
        }
    };
}

sql_text_enum!(JobState, "job state");
sql_text_enum!(UnitState, "unit state");

/// Binds a node as its row's id (`nodes.id`, an `i64` on both sides: nothing to convert).
impl ToSql for NodeId {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        self.0.to_sql()
    }
}

/// Reads a node from its row's id (`nodes.id`, `edges.parent`, `units.node`
/// and the like); any integer is one, a value of another type is
/// [`FromSqlError::InvalidType`].
impl FromSql for NodeId {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<NodeId> {
        i64::column_result(value).map(NodeId)
    }
}

/// A decided value as stored (`win`/`loss`); `Unknown` is stored as NULL.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Value(pub Outcome);

impl ToSql for Value {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(match outcome_name(self.0) {
            Some(name) => ToSqlOutput::from(name),
            None => ToSqlOutput::from(rusqlite::types::Null),
        })
    }
}

impl FromSql for Value {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Value> {
        match value {
            ValueRef::Null => Ok(Value(Outcome::Unknown)),
            other => Ok(Value(outcome_from_name(other.as_str()?))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for s in JobState::ALL {
            assert_eq!(JobState::from_name(s.name()), Some(s));
        }
        for s in UnitState::ALL {
            assert_eq!(UnitState::from_name(s.name()), Some(s));
        }
        assert_eq!(JobState::from_name("sleeping"), None);
    }
}
