//! Which of a node's children an expansion, a birth or an import stores
//! now, and how many it leaves unborn (children born lazily, see
//! `docs/manager.md`).

use std::collections::HashSet;

use rusqlite::Transaction;

use super::StoreError;
use super::jobs::NewNode;
use super::state::NodeId;
use crate::manager::BIRTH_BATCH;

/// Which of a node's children an expansion or a birth stores now, and what it leaves for later.
pub(super) struct Batch {
    /// The children stored now, by their place in the children list (move order).
    pub(super) indices: Vec<usize>,
    /// Each one's `edges.ord`: its place in the list, unless that is taken.
    pub(super) ords: Vec<i64>,
    /// How many children are left unstored.
    pub(super) unborn: u32,
    /// The fewest replies among those (0 when none is left).
    pub(super) unborn_replies: u32,
}

impl Batch {
    /// The next batch of `children` of which those marked `born` are stored
    /// already: every `required` one, and by fewest replies, then move
    /// order, the first [`BIRTH_BATCH`] others (or as many as are born
    /// already, if more); all of them unless `lazy`.
    pub(super) fn next(children: &[(String, NewNode)], born: &[bool], required: &[bool], lazy: bool) -> Batch {
        let mut order: Vec<usize> = (0..children.len()).filter(|&i| !born[i]).collect();
        order.sort_by_key(|&i| (children[i].1.replies, i));
        let room = if lazy { BIRTH_BATCH.max(born.iter().filter(|&&b| b).count()) } else { usize::MAX };
        let mut take = vec![false; children.len()];
        let mut extra = 0;
        for &i in &order {
            if required.get(i).copied().unwrap_or(false) {
                take[i] = true;
            } else if extra < room {
                take[i] = true;
                extra += 1;
            }
        }
        let unborn: Vec<usize> = order.iter().copied().filter(|&i| !take[i]).collect();
        let indices: Vec<usize> = (0..children.len()).filter(|&i| take[i]).collect();
        Batch {
            ords: indices.iter().map(|&i| i as i64).collect(),
            indices,
            unborn: unborn.len() as u32,
            unborn_replies: unborn.first().map_or(0, |&i| children[i].1.replies),
        }
    }
}

/// The next batch of the `children` of the expanded `node`, given the ones
/// its edges hold already: every `required` one not stored yet, and the next
/// ones fewest replies first (see [`Batch::next`]).
pub(super) fn next_batch(
    tx: &Transaction<'_>,
    node: NodeId,
    children: &[(String, NewNode)],
    required: &[bool],
) -> Result<Batch, StoreError> {
    let stored: Vec<(i64, String)> = tx
        .prepare_cached("SELECT ord, move FROM edges WHERE parent = ?1")?
        .query_map([node], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<Result<_, _>>()?;
    let moves: HashSet<&str> = stored.iter().map(|(_, mv)| mv.as_str()).collect();
    let born: Vec<bool> = children.iter().map(|(mv, _)| moves.contains(mv.as_str())).collect();
    let mut batch = Batch::next(children, &born, required, true);
    // The edges' order is the move order; should the stored ones not be this list's (a
    // newer move generator), new edges go after them rather than on their places.
    let taken: HashSet<i64> = stored.iter().map(|&(ord, _)| ord).collect();
    let mut free = stored.iter().map(|&(ord, _)| ord + 1).max().unwrap_or(0).max(children.len() as i64);
    for ord in batch.ords.iter_mut() {
        if taken.contains(ord) {
            *ord = free;
            free += 1;
        }
    }
    Ok(batch)
}
