//! The coordinator's tree: values flow up (an OR node is decided by its first
//! losing child, an AND node when every child wins), and nodes no undecided
//! parent needs any more are pruned, which cancels their units.
//!
//! A node is *live* while it is undecided and some live parent needs it; the
//! root is live until decided, and in a `classify` job every child of the
//! root stays live until decided. Pruning is incremental: deciding a node
//! re-examines only its children. A node that gains a live parent again (a
//! split reached it) is revived with its units.

use rusqlite::{OptionalExtension, Transaction, params};

use super::{StoreError, now};

/// Records `value` (`win`/`loss`) at `node`, then propagates it up and prunes below.
pub(super) fn decide(tx: &Transaction<'_>, node: i64, value: &str, best: Option<&str>) -> Result<(), StoreError> {
    let changed = tx.execute(
        "UPDATE nodes SET value = ?2, best = ?3, live = 0 WHERE id = ?1 AND value IS NULL",
        params![node, value, best],
    )?;
    if changed == 0 {
        return Ok(());
    }
    stop_unit(tx, node)?;
    if value == "win" {
        // One fewer open child for each edge into this node.
        tx.prepare_cached(
            "UPDATE nodes SET open = open - (SELECT COUNT(*) FROM edges e WHERE e.parent = nodes.id AND e.child = ?1)
             WHERE id IN (SELECT parent FROM edges WHERE child = ?1)",
        )?
        .execute([node])?;
    }
    let parents: Vec<(i64, String)> = tx
        .prepare_cached(
            "SELECT e.parent, e.move FROM edges e JOIN nodes p ON p.id = e.parent
             WHERE e.child = ?1 AND p.value IS NULL",
        )?
        .query_map([node], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<Result<_, _>>()?;
    for (parent, mv) in parents {
        if value == "loss" {
            decide(tx, parent, "win", Some(&mv))?;
        } else if open_children(tx, parent)? == 0 {
            decide(tx, parent, "loss", None)?;
        }
    }
    prune_below(tx, node)
}

/// Edges of `node` to children not (yet) known to be wins: kept in `nodes.open`,
/// so a completion costs the same however many siblings its node has.
fn open_children(tx: &Transaction<'_>, node: i64) -> Result<i64, StoreError> {
    Ok(tx.prepare_cached("SELECT open FROM nodes WHERE id = ?1")?.query_row([node], |r| r.get(0))?)
}

/// Sets `nodes.open` of `node` from its edges (after they were added).
pub(super) fn count_open(tx: &Transaction<'_>, node: i64) -> Result<(), StoreError> {
    tx.prepare_cached(
        "UPDATE nodes SET open = (SELECT COUNT(*) FROM edges e JOIN nodes c ON c.id = e.child
                                  WHERE e.parent = ?1 AND (c.value IS NULL OR c.value != 'win'))
         WHERE id = ?1",
    )?
    .execute([node])?;
    Ok(())
}

/// Re-examines a node whose children changed (after a split): decides it if they decide it.
pub(super) fn settle(tx: &Transaction<'_>, node: i64) -> Result<(), StoreError> {
    let losing: Option<String> = tx
        .prepare_cached(
            "SELECT e.move FROM edges e JOIN nodes c ON c.id = e.child WHERE e.parent = ?1 AND c.value = 'loss'
             ORDER BY e.ord LIMIT 1",
        )?
        .query_row([node], |r| r.get(0))
        .optional()?;
    if let Some(mv) = losing {
        return decide(tx, node, "win", Some(&mv));
    }
    if open_children(tx, node)? == 0 {
        return decide(tx, node, "loss", None);
    }
    Ok(())
}

/// Whether `node` is protected from pruning: a child of a `classify` job's root.
fn protected(tx: &Transaction<'_>, node: i64) -> Result<bool, StoreError> {
    Ok(tx
        .prepare_cached(
            "SELECT n.depth = 1 AND j.goal = 'classify' AND n.value IS NULL FROM nodes n JOIN jobs j ON j.id = n.job
             WHERE n.id = ?1",
        )?
        .query_row([node], |r| r.get(0))?)
}

/// Prunes the children of `node` (which just stopped being live) that no live parent needs.
fn prune_below(tx: &Transaction<'_>, node: i64) -> Result<(), StoreError> {
    let orphans: Vec<i64> = tx
        .prepare_cached(
            "SELECT c.id FROM edges e JOIN nodes c ON c.id = e.child WHERE e.parent = ?1 AND c.live = 1
             AND NOT EXISTS (SELECT 1 FROM edges f JOIN nodes p ON p.id = f.parent WHERE f.child = c.id AND p.live = 1)",
        )?
        .query_map([node], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    for child in orphans {
        if protected(tx, child)? {
            continue;
        }
        tx.execute("UPDATE nodes SET live = 0 WHERE id = ?1", [child])?;
        stop_unit(tx, child)?;
        prune_below(tx, child)?;
    }
    Ok(())
}

/// Cancels the node's unit if it is waiting or running.
fn stop_unit(tx: &Transaction<'_>, node: i64) -> Result<(), StoreError> {
    tx.prepare_cached(
        "UPDATE units SET state = 'cancelled', deadline = NULL WHERE node = ?1 AND state IN ('pending', 'leased')",
    )?
    .execute([node])?;
    Ok(())
}

/// Makes an undecided node live again (a new live parent reached it), with its unit and its subtree.
pub(super) fn revive(tx: &Transaction<'_>, node: i64) -> Result<(), StoreError> {
    let changed = tx.execute("UPDATE nodes SET live = 1 WHERE id = ?1 AND live = 0 AND value IS NULL", [node])?;
    if changed == 0 {
        return Ok(());
    }
    tx.execute("UPDATE units SET state = 'pending', worker = NULL WHERE node = ?1 AND state = 'cancelled'", [node])?;
    let children: Vec<i64> = tx
        .prepare_cached("SELECT child FROM edges WHERE parent = ?1")?
        .query_map([node], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    for child in children {
        revive(tx, child)?;
    }
    Ok(())
}

/// Ends a running job whose question is answered: `solve` when the root is
/// decided, `classify` when every child of the root is. Units left stop.
pub(super) fn finish_if_answered(tx: &Transaction<'_>, job: i64) -> Result<(), StoreError> {
    let answered: bool = tx
        .query_row(
            "SELECT CASE j.goal
             WHEN 'classify' THEN NOT EXISTS (SELECT 1 FROM edges e JOIN nodes c ON c.id = e.child
                                              WHERE e.parent = j.root AND c.value IS NULL)
             WHEN 'count' THEN NOT EXISTS (SELECT 1 FROM units WHERE state IN ('pending', 'leased', 'failed', 'cancelled', 'split')
                                           AND job = j.id)
             ELSE (SELECT value IS NOT NULL FROM nodes WHERE id = j.root) END
         FROM jobs j WHERE j.id = ?1 AND j.state IN ('pending', 'running')",
            [job],
            |r| r.get(0),
        )
        .optional()?
        .unwrap_or(false);
    if answered {
        tx.execute("UPDATE jobs SET state = 'done', finished = ?2 WHERE id = ?1", params![job, now()])?;
        tx.execute(
            "UPDATE units SET state = 'cancelled', deadline = NULL WHERE job = ?1 AND state IN ('pending', 'leased')",
            [job],
        )?;
    }
    Ok(())
}

/// Fails the unit's job if the failed unit was still needed; the job's other units stop.
pub(super) fn fail_job_if_needed(tx: &Transaction<'_>, unit: i64, error: &str) -> Result<(), StoreError> {
    let failed = tx.execute(
        "UPDATE jobs SET state = 'failed', finished = ?3, error = ?2
         WHERE state IN ('pending', 'running')
           AND id = (SELECT u.job FROM units u JOIN nodes n ON n.id = u.node WHERE u.id = ?1 AND n.live = 1)",
        params![unit, format!("unit {unit} failed: {error}"), now()],
    )?;
    if failed > 0 {
        tx.execute(
            "UPDATE units SET state = 'cancelled', deadline = NULL
             WHERE job = (SELECT job FROM units WHERE id = ?1) AND state IN ('pending', 'leased')",
            [unit],
        )?;
    }
    Ok(())
}
