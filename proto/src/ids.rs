//! Ids of jobs, units and workers as distinct types, so one is never passed for another.

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
