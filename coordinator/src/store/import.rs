//! Taking decided nodes from an export file into a job (`golomb import`,
//! `golomb run --resume`): each node is found in the job's tree by the keys
//! of the positions along its line, expanding the nodes on the way that are
//! still units, and recorded as decided; nodes the file says its children
//! decided are only expanded, so that their children decide them again here
//! and the job's proof keeps its shape.
//!
//! The caller has checked every line and move against the game
//! (`server::import`); this side checks the file against the tree: a node
//! that this database already decided the other way refuses the whole
//! import, and nothing is written.

use std::collections::HashSet;

use golomb_engine::solve::Outcome;
use golomb_engine::split::Goal;
use golomb_proto::{JobId, UnitId};
use rusqlite::{OptionalExtension, Transaction, named_params};

use super::batch::{Batch, next_batch};
use super::cached::Cached;
use super::changes::Changed;
use super::finish::finish_if_answered;
use super::job_row::job_spec;
use super::split::{SplitTarget, TreeGame, insert_children};
use super::state::{NodeId, UnitState, Value};
use super::tree::{decide, settle, unit_totals};
use super::{Store, StoreError, now, proofs};

/// One decided node of an export file, checked against the game.
#[derive(Clone, Debug, PartialEq)]
pub struct ImportEntry {
    /// Its place in the file's `nodes`, for messages.
    pub index: usize,
    /// The keys of the positions along its line below the job's root, its own last.
    pub path: Vec<String>,
    /// Its moves from the empty board, as the file gives them.
    pub line: String,
    /// Its value for the side to move.
    pub value: Outcome,
    /// For a win, a winning move in the position of `line`.
    pub best: Option<String>,
    /// Whether a worker solved it (otherwise its children decided it).
    pub unit: bool,
    /// Positions searched at or below it: its unit's, or for a node its
    /// children decided, every unit's below it in the file's job.
    pub positions: u64,
    /// Solver seconds at or below it, as `positions`.
    pub seconds: f64,
    /// Its proof tree (JSON, in the position of `line`), checked against the game: a
    /// unit's, or a split node's that `golomb prove` had solved again whole.
    pub proof: Option<String>,
}

/// What an import did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ImportCounts {
    /// Nodes recorded as decided by this import.
    pub decided: u64,
    /// Nodes this database had already decided the same way.
    pub known: u64,
    /// Nodes left out because the job no longer needs the node above them
    /// here and no other node of the tree is their parent.
    pub skipped: u64,
    /// Nodes expanded into their children (or given more of them) on the way.
    pub expanded: u64,
    /// Positions of the file's job that none of its decided nodes holds
    /// (the search of nodes it left undecided), carried into a job that
    /// had searched nothing before the import.
    pub carried: u64,
}

/// A node of the job's tree as the import walks it.
struct Found {
    id: NodeId,
    line: String,
    rank: Vec<u8>,
    depth: u32,
    value: Option<Outcome>,
    /// Whether the job still needs it: undecided, with a parent that needs it.
    live: bool,
}

impl Store {
    /// Records `entries` (sorted by depth, parents first) as decided nodes of
    /// `job`, in one transaction: all of them or, on a conflict, none.
    /// `earlier` is the positions the file's job had searched in all: while
    /// no worker of this database has searched for `job`, what the rows do
    /// not hold of it stays counted (`jobs.carried_positions`, the most any
    /// import carried); into a job with its own search the two totals
    /// would overlap (an export of this job imported back), and only the
    /// entries count.
    pub fn import_nodes(
        &mut self,
        job: JobId,
        entries: &[ImportEntry],
        game: &dyn TreeGame,
        earlier: u64,
    ) -> Result<ImportCounts, StoreError> {
        let tx = self.write()?;
        let searched_here = unit_totals(&tx, job)?.worked > 0;
        let spec = job_spec(&tx, job)?;
        let root: Option<NodeId> =
            tx.cached_query_row("SELECT root FROM jobs WHERE id = ?1", [job], |r| r.get(0)).optional()?.flatten();
        let root = root.ok_or(StoreError::NoJob(job))?;
        let mut counts = ImportCounts::default();
        let needed = entries.iter().flat_map(|e| e.path.iter().map(String::as_str)).collect();
        let walk = Walk { tx: &tx, job, spec: &spec, game, needed };
        // A node left out may be made later by another entry's expansion (a reply
        // to an opening expanded further down the file): those get another look,
        // until a pass takes none of them.
        let mut left: Vec<&ImportEntry> = entries.iter().collect();
        loop {
            let before = left.len();
            let mut still = Vec::new();
            for entry in left {
                if !walk.take(root, entry, &mut counts)? {
                    still.push(entry);
                }
            }
            left = still;
            if left.len() == before || left.is_empty() {
                break;
            }
        }
        counts.skipped = left.len() as u64;
        walk.carry_work(entries)?;
        if !searched_here {
            counts.carried = carry_earlier(&tx, job, earlier)?;
        }
        // Its decided wins keep only their winning children, a little at a time.
        super::tree::queue_trims_of_job(&tx, job)?;
        finish_if_answered(&tx, job)?;
        tx.commit()?;
        // The manager's tree is rebuilt from the tables when next needed.
        self.changed(Changed::Reload { job });
        self.after_change(job);
        Ok(counts)
    }
}

/// Keeps counted the positions of `earlier` that `job`'s rows do not hold
/// after an import into it (or what an earlier import carried, if more);
/// returns what this import added.
fn carry_earlier(tx: &Transaction<'_>, job: JobId, earlier: u64) -> Result<u64, StoreError> {
    let before: i64 = tx.cached_query_row("SELECT carried_positions FROM jobs WHERE id = ?1", [job], |r| r.get(0))?;
    let rows = (unit_totals(tx, job)?.positions - before).max(0) as u64;
    let carried = earlier.saturating_sub(rows).min(i64::MAX as u64) as i64;
    if carried <= before {
        return Ok(0);
    }
    tx.cached_execute("UPDATE jobs SET carried_positions = ?2 WHERE id = ?1", rusqlite::params![job, carried])?;
    Ok((carried - before) as u64)
}

/// Walking one import's entries down the job's tree.
struct Walk<'a, 't> {
    tx: &'a Transaction<'t>,
    job: JobId,
    spec: &'a golomb_proto::JobSpec,
    game: &'a dyn TreeGame,
    /// Every position the file names (its entries' lines): an expansion
    /// stores those of a node's children, and the rest lazily, as a split
    /// does (a job's root stores every child).
    needed: HashSet<&'a str>,
}

impl Walk<'_, '_> {
    /// Records `entry` where its node is, or expands it when its children
    /// decided it (they follow in the file). Returns false when the tree
    /// holds no node for it and none needs one.
    fn take(&self, root: NodeId, entry: &ImportEntry, counts: &mut ImportCounts) -> Result<bool, StoreError> {
        let Some(node) = self.find(root, entry, counts)? else {
            return Ok(false);
        };
        match node.value {
            Some(value) if value == entry.value => {
                counts.known += 1;
                if let Some(tree) = &entry.proof {
                    // Decided here already, perhaps with no tree: the file's serves.
                    proofs::keep_if_none(self.tx, node.id, &self.tree_here(entry, &node.line, tree)?, None)?;
                }
            }
            Some(value) => {
                return Err(StoreError::Import {
                    entry: entry.index,
                    what: format!("the file says {}, this database says {}", name(entry.value), name(value)),
                });
            }
            None if entry.unit => {
                let best = match &entry.best {
                    Some(mv) if node.line != entry.line => Some(
                        self.game
                            .map_move(self.spec, &entry.line, &node.line, mv)
                            .map_err(|e| import_error(entry, e))?,
                    ),
                    other => other.clone(),
                };
                record_unit(self.tx, node.id, entry, best.as_deref())?;
                decide(self.tx, node.id, entry.value, best.as_deref())?;
                if let Some(tree) = &entry.proof {
                    proofs::keep(self.tx, node.id, &self.tree_here(entry, &node.line, tree)?, None)?;
                }
                counts.decided += 1;
            }
            // Decided by its children here too: they follow in the file (unless the
            // job no longer needs it). Its own tree (a split node solved again whole
            // by `golomb prove`) comes along.
            None => {
                if node.live && self.expand(&node)? {
                    counts.expanded += 1;
                }
                if let Some(tree) = &entry.proof {
                    proofs::keep_if_none(self.tx, node.id, &self.tree_here(entry, &node.line, tree)?, None)?;
                }
            }
        }
        Ok(true)
    }

    /// Gives each split node of the file the work the file counts at or
    /// below it that this tree does not hold (its own search before it was
    /// split, and units below it that nothing here needs), on its split
    /// unit, so that the job's and its openings' positions and seconds go on
    /// from the file's instead of restarting lower. Deepest nodes first; a
    /// node already counting as much gets nothing, so importing a file twice
    /// counts its work once.
    fn carry_work(&self, entries: &[ImportEntry]) -> Result<(), StoreError> {
        let mut split: Vec<&ImportEntry> = entries.iter().filter(|e| !e.unit && !e.path.is_empty()).collect();
        split.sort_by_key(|e| std::cmp::Reverse(e.path.len()));
        for entry in split {
            let Some(node) = self.by_key(entry.path.last().expect("not the root"))? else {
                continue;
            };
            let unit: Option<UnitId> = self
                .tx
                .cached_query_row(
                    "SELECT id FROM units WHERE node = ?1 AND state = ?2",
                    rusqlite::params![node.id, UnitState::Split],
                    |r| r.get(0),
                )
                .optional()?;
            let Some(unit) = unit else { continue };
            let (positions, seconds) = self.work_below(&node.rank)?;
            let more_positions = (entry.positions.min(i64::MAX as u64) as i64 - positions).max(0);
            let more_seconds = (entry.seconds - seconds).max(0.0);
            if more_positions > 0 || more_seconds > 0.0 {
                self.tx.cached_execute(
                    "UPDATE units SET positions = positions + ?2, seconds = seconds + ?3 WHERE id = ?1",
                    rusqlite::params![unit, more_positions, more_seconds],
                )?;
            }
        }
        Ok(())
    }

    /// The positions and seconds of the job's units at or below `rank` (by
    /// rank prefix, as the export counts them).
    fn work_below(&self, rank: &[u8]) -> Result<(i64, f64), StoreError> {
        // The first rank past every rank that starts with `rank`, if any.
        let mut past = rank.to_vec();
        while past.last() == Some(&u8::MAX) {
            past.pop();
        }
        if let Some(last) = past.last_mut() {
            *last += 1;
        }
        Ok(self.tx.cached_query_row(
            "SELECT CAST(TOTAL(positions) AS INTEGER), COALESCE(SUM(seconds), 0.0) FROM units
             WHERE job = :job AND rank >= :rank AND (:past IS NULL OR rank < :past)",
            named_params! { ":job": self.job, ":rank": rank, ":past": (!past.is_empty()).then_some(past) },
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?)
    }

    /// The file's proof `tree` of `entry`, in the position of this
    /// database's node `line` (equal to the entry's up to symmetry).
    fn tree_here(&self, entry: &ImportEntry, line: &str, tree: &str) -> Result<String, StoreError> {
        if line == entry.line {
            return Ok(tree.to_string());
        }
        self.game
            .map_tree(self.spec, &entry.line, line, tree)
            .map_err(|e| StoreError::Import { entry: entry.index, what: format!("proof: {e}") })
    }

    /// The node of `entry`, expanding units along its path; `None` when it
    /// is not in the tree and the node above it on its line is one the job
    /// no longer needs (decided or pruned), so that nothing needs the entry.
    fn find(&self, root: NodeId, entry: &ImportEntry, counts: &mut ImportCounts) -> Result<Option<Found>, StoreError> {
        let mut node = self.node(root)?.ok_or_else(|| StoreError::Import {
            entry: entry.index,
            what: "the job's root is missing from this database".into(),
        })?;
        // A classify root's children are all needed, whatever the root's value.
        let classify = self.spec.goal == Goal::Classify;
        for (ply, key) in entry.path.iter().enumerate() {
            // A position already in the tree is taken whatever lies above it on this
            // line: the tree is a DAG, and a node of a decided parent may be a child of
            // an undecided one too (a reply to two openings); its line names one parent.
            // A node the job no longer needs is not expanded to make one.
            let below = match self.by_key(key)? {
                Some(found) => found,
                None => {
                    let needed = node.live || (ply == 0 && classify);
                    if !needed {
                        return Ok(None);
                    }
                    if !self.expand(&node)? {
                        return Err(StoreError::Import {
                            entry: entry.index,
                            what: format!("its line leaves this database's tree below `{}`", node.line),
                        });
                    }
                    counts.expanded += 1;
                    self.by_key(key)?.ok_or_else(|| StoreError::Import {
                        entry: entry.index,
                        what: format!("no child of `{}` is the position of its line", node.line),
                    })?
                }
            };
            node = below;
        }
        Ok(Some(node))
    }

    /// Expands `node` into its children if it is still a unit (not yet
    /// expanded; its unit is marked split), or stores those of its children
    /// not stored yet that the file names. Returns whether it stored any.
    fn expand(&self, node: &Found) -> Result<bool, StoreError> {
        let (expanded, unborn): (bool, u32) = self.tx.cached_query_row(
            "SELECT EXISTS (SELECT 1 FROM edges WHERE parent = ?1), unborn FROM nodes WHERE id = ?1",
            [node.id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?;
        if expanded && unborn == 0 {
            return Ok(false);
        }
        let target = SplitTarget {
            spec: self.spec.clone(),
            line: node.line.clone(),
            rank: node.rank.clone(),
            depth: node.depth,
        };
        let children = self.game.children(&target).map_err(|error| StoreError::StoredSpec { job: self.job, error })?;
        let required: Vec<bool> = children.iter().map(|(_, c)| self.needed.contains(c.key.as_str())).collect();
        let batch = if expanded {
            let batch = next_batch(self.tx, node.id, &children, &required)?;
            if !batch.indices.iter().any(|&i| required[i]) {
                return Ok(false);
            }
            batch
        } else {
            self.tx.cached_execute(
                "UPDATE units SET state = :split, deadline = NULL, worker = NULL, progress = 0, finished = :now
                 WHERE node = :node AND state IN (:pending, :leased, :cancelled)",
                named_params! {
                    ":node": node.id, ":split": UnitState::Split, ":now": now(), ":pending": UnitState::Pending,
                    ":leased": UnitState::Leased, ":cancelled": UnitState::Cancelled,
                },
            )?;
            Batch::next(&children, &vec![false; children.len()], &required, node.depth > 0)
        };
        insert_children(self.tx, self.job, node.id, &children, &batch)?;
        settle(self.tx, node.id)?;
        Ok(true)
    }

    fn by_key(&self, key: &str) -> Result<Option<Found>, StoreError> {
        let id: Option<NodeId> = self
            .tx
            .cached_query_row(
                "SELECT id FROM nodes WHERE job = :job AND key = :key",
                named_params! { ":job": self.job, ":key": key },
                |r| r.get(0),
            )
            .optional()?;
        match id {
            Some(id) => self.node(id),
            None => Ok(None),
        }
    }

    fn node(&self, id: NodeId) -> Result<Option<Found>, StoreError> {
        Ok(self
            .tx
            .cached_query_row("SELECT line, rank, depth, value, live FROM nodes WHERE id = ?1", [id], |r| {
                Ok(Found {
                    id,
                    line: r.get(0)?,
                    rank: r.get(1)?,
                    depth: r.get(2)?,
                    value: r.get::<_, Option<Value>>(3)?.map(|v| v.0),
                    live: r.get(4)?,
                })
            })
            .optional()?)
    }
}

/// Marks the unit of an imported unit node done, with the file's statistics
/// (no worker: it was solved elsewhere).
fn record_unit(tx: &Transaction<'_>, node: NodeId, entry: &ImportEntry, best: Option<&str>) -> Result<(), StoreError> {
    tx.cached_execute(
        "UPDATE units SET state = :done, value = :value, best = :best, worker = NULL, finished = :now,
                deadline = NULL, progress = 0, error = NULL, positions = :positions, seconds = :seconds
         WHERE node = :node AND state IN (:pending, :leased, :cancelled)",
        named_params! {
            ":node": node, ":done": UnitState::Done, ":value": Value(entry.value), ":best": best,
            ":now": now(), ":positions": entry.positions.min(i64::MAX as u64) as i64, ":seconds": entry.seconds,
            ":pending": UnitState::Pending, ":leased": UnitState::Leased, ":cancelled": UnitState::Cancelled,
        },
    )?;
    Ok(())
}

fn import_error(entry: &ImportEntry, error: String) -> StoreError {
    StoreError::Import { entry: entry.index, what: format!("winning_move: {error}") }
}

fn name(value: Outcome) -> &'static str {
    match value {
        Outcome::Win => "win",
        Outcome::Loss => "loss",
        Outcome::Unknown => "unknown",
    }
}
