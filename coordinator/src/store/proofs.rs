//! Proof trees of big units: the tree a worker sent with a unit's value
//! (every reply to a lost position with a winning answer, say), checked by
//! the server before it arrives here, kept per node in the node's own
//! position. `results` reads them back with the job's tree, for its proofs.

use golomb_proto::WorkerId;
use rusqlite::{Transaction, named_params};

use super::StoreError;
use super::cached::Cached;
use super::state::NodeId;

/// The condition that the tree in row `$p` of `proofs` proves its node's
/// value as the node has it now (`nodes.value`: `win`, `loss`, or NULL).
macro_rules! usable_proof {
    ($p:literal) => {
        concat!("(json_extract(", $p, ".tree, '$.value') IS (SELECT value FROM nodes WHERE nodes.id = ", $p, ".node))")
    };
}
pub(super) use usable_proof;

/// Keeps `tree` (a `golomb-proof` tree as JSON, in the position of the
/// node's own line), sent by `worker` (`None`: from a file), as the proof of
/// `node`'s value, replacing any earlier one.
pub(super) fn keep(tx: &Transaction<'_>, node: NodeId, tree: &str, worker: Option<WorkerId>) -> Result<(), StoreError> {
    tx.cached_execute(
        "INSERT INTO proofs (node, tree, worker) VALUES (:node, :tree, :worker)
         ON CONFLICT (node) DO UPDATE SET tree = excluded.tree, worker = excluded.worker",
        named_params! { ":node": node, ":tree": tree, ":worker": worker },
    )?;
    Ok(())
}

/// [`keep`], unless `node` has a tree already (one from a check, or a
/// file, of a node whose own unit sent none) that proves its value: a tree
/// of another value (kept before the value was worked out again, after a
/// distrust) is replaced.
pub(super) fn keep_if_none(
    tx: &Transaction<'_>,
    node: NodeId,
    tree: &str,
    worker: Option<WorkerId>,
) -> Result<(), StoreError> {
    tx.cached_execute(
        concat!(
            "INSERT INTO proofs (node, tree, worker) VALUES (:node, :tree, :worker)
             ON CONFLICT (node) DO UPDATE SET tree = excluded.tree, worker = excluded.worker
             WHERE NOT ",
            usable_proof!("proofs"),
        ),
        named_params! { ":node": node, ":tree": tree, ":worker": worker },
    )?;
    Ok(())
}

/// Drops the proof of `node`, whose value was voided.
pub(super) fn forget(tx: &Transaction<'_>, node: NodeId) -> Result<(), StoreError> {
    tx.cached_execute("DELETE FROM proofs WHERE node = ?1", [node])?;
    Ok(())
}

/// Drops every tree `worker` sent (it was distrusted), those it sent as a
/// check of another worker's unit included; returns how many.
pub(super) fn forget_worker(tx: &Transaction<'_>, worker: WorkerId) -> Result<u64, StoreError> {
    Ok(tx.cached_execute("DELETE FROM proofs WHERE worker = ?1", [worker])? as u64)
}
