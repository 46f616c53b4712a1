//! How big a job's tree is in the tables: the nodes stored, and the
//! children counted but not stored yet (children born lazily, see `split`).

use golomb_proto::JobId;

use super::cached::Cached;
use super::{Store, StoreError};

/// What a job's tree holds in the database.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct TreeSize {
    /// Nodes stored (rows of `nodes`), decided ones included.
    pub nodes: u64,
    /// Children of stored nodes that are counted but not stored yet.
    pub unborn: u64,
    /// Units ever made for the job (every state), check units included.
    pub units: u64,
}

impl Store {
    /// How big `job`'s tree is in the tables.
    pub fn tree_size(&self, job: JobId) -> Result<TreeSize, StoreError> {
        let (nodes, unborn): (i64, i64) = self.conn.cached_query_row(
            "SELECT COUNT(*), COALESCE(SUM(unborn), 0) FROM nodes WHERE job = ?1",
            [job],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?;
        let units: i64 =
            self.conn.cached_query_row("SELECT COUNT(*) FROM units WHERE job = ?1", [job], |r| r.get(0))?;
        Ok(TreeSize { nodes: nodes as u64, unborn: unborn as u64, units: units as u64 })
    }
}
