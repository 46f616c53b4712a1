//! Every decided node of a job with its statistics, for `golomb export`.

use golomb_engine::solve::Outcome;
use golomb_proto::JobId;

use super::state::{UnitState, Value};
use super::{Store, StoreError};

/// A decided node of a job's tree, with the work below it.
#[derive(Clone, Debug)]
pub struct DecidedNode {
    /// Moves from the empty board to its position.
    pub line: String,
    /// Plies below the job's root.
    pub depth: u32,
    /// Its value for the side to move there.
    pub value: Outcome,
    /// Its winning move, when it is a win and one was recorded.
    pub best: Option<String>,
    /// Its number of legal moves.
    pub replies: u32,
    /// Whether a worker solved it as a unit (otherwise its children decided it, after a split or at the start).
    pub unit: bool,
    /// Positions searched by the units at or below it.
    pub positions: u64,
    /// Solver seconds of the units at or below it.
    pub seconds: f64,
    /// For the hands rules: its score from the first player's view (its `value` is then unknown for a draw).
    pub score: Option<i32>,
    /// For a node a worker solved: that worker, `NAME (worker ID)` (none for
    /// nodes decided by their children, or imported from another cluster).
    pub decided_by: Option<String>,
    /// For a big unit, or a split node that `golomb prove` had solved again
    /// whole: the proof tree its worker sent (JSON, in the position of `line`).
    pub proof: Option<String>,
}

impl Store {
    /// Every decided node of `job`, in depth-first order, each with the
    /// positions and seconds of the units at or below it (found by rank
    /// prefix, as the results table does).
    pub fn decided_nodes(&self, job: JobId) -> Result<Vec<DecidedNode>, StoreError> {
        let tx = self.conn.unchecked_transaction()?;
        super::job_row::job_spec(&tx, job)?;
        let units: Vec<(Vec<u8>, i64, f64)> = tx
            .prepare("SELECT rank, positions, seconds FROM units WHERE job = ?1 ORDER BY rank")?
            .query_map([job], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
            .collect::<Result<_, _>>()?;
        let mut sums = Vec::with_capacity(units.len() + 1);
        sums.push((0i64, 0f64));
        for (_, positions, seconds) in &units {
            let (p, s) = sums[sums.len() - 1];
            sums.push((p + positions, s + seconds));
        }
        let nodes = tx
            .prepare(
                "SELECT n.line, n.depth, n.value, n.best, n.replies, n.rank,
                        EXISTS (SELECT 1 FROM units u WHERE u.node = n.id AND u.state = ?2), n.score,
                        (SELECT w.name || ' (worker ' || w.id || ')' FROM units u JOIN workers w ON w.id = u.worker
                         WHERE u.node = n.id AND u.state = ?2),
                        (SELECT p.tree FROM proofs p WHERE p.node = n.id)
                 FROM nodes n WHERE n.job = ?1 AND (n.value IS NOT NULL OR n.score IS NOT NULL) ORDER BY n.rank",
            )?
            .query_map(rusqlite::params![job, UnitState::Done], |r| {
                let rank: Vec<u8> = r.get(5)?;
                let start = units.partition_point(|(u, _, _)| u.as_slice() < rank.as_slice());
                let end = start + units[start..].partition_point(|(u, _, _)| u.starts_with(&rank));
                Ok(DecidedNode {
                    line: r.get(0)?,
                    depth: r.get(1)?,
                    value: r.get::<_, Option<Value>>(2)?.map_or(Outcome::Unknown, |v| v.0),
                    best: r.get(3)?,
                    replies: r.get(4)?,
                    unit: r.get(6)?,
                    positions: (sums[end].0 - sums[start].0) as u64,
                    seconds: sums[end].1 - sums[start].1,
                    score: r.get(7)?,
                    decided_by: r.get(8)?,
                    proof: r.get(9)?,
                })
            })?
            .collect::<Result<Vec<_>, _>>()?;
        tx.commit()?;
        Ok(nodes)
    }
}
