//! Whether an export agrees with itself and with the proofs it carries.
//!
//! `golomb verify` checks an export's proofs by solving; this module checks,
//! without solving, that the values a reader takes from the file's `nodes[]`
//! (`golomb openings`, `golomb import`) are the ones those proofs prove, and
//! that the nodes cannot all be true at once nowhere: one position (under the
//! board's symmetries) with two values, a lost node with a lost child, a won
//! node whose winning move leads to a won position, a root node whose value
//! is not the job's. `import` refuses such a file; `verify` fails on it and
//! says how many node values the proofs cover.

use std::collections::HashMap;

use golomb_engine::proof::{ProofFile, ProofNode};
use golomb_engine::solve::Outcome;
use golomb_engine::{Bits, Game, Position};
use serde::Serialize;

use super::ExportFile;

/// How an export's node values stand against the proofs in the file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct NodeValues {
    /// Nodes whose position a proof in the file reaches, with the value that proof gives it.
    pub proved: usize,
    /// Nodes no proof in the file reaches: their values are the workers' word.
    pub unproved: usize,
}

/// A way the file disagrees with itself, naming the node (`nodes[7]`).
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("{0}")]
pub struct Disagreement(String);

/// The value a position has by the file's proofs, and the proof's line to it.
struct Proved {
    value: Outcome,
    line: String,
}

/// Checks that the nodes of `file` (a Golomb game's export, played in `g`)
/// agree with each other, with the job's value, and with every position its
/// proofs reach (the root's proof and a classify's proofs of its children);
/// says how many node values those proofs cover. Proofs are walked, not
/// checked: `golomb verify` solves what is below them.
pub fn check_nodes<B: Bits>(g: &Game<B>, file: &ExportFile) -> Result<NodeValues, Disagreement> {
    if file.job.rules != "golomb" || file.job.goal == "count" {
        return Ok(NodeValues::default());
    }
    let proofs = file.proof.iter().chain(file.children.iter().map(|c| &c.proof));
    let mut proved = HashMap::new();
    for proof in proofs {
        let (pos, _) = g
            .play_line(Position::empty(), &proof.moves)
            .map_err(|e| Disagreement(format!("the proof of `{}`: {e}", proof.moves)))?;
        walk(g, proof, &proof.tree, pos, proof.moves.clone(), &mut proved)?;
    }
    let mut values: HashMap<Position<B>, usize> = HashMap::with_capacity(file.nodes.len());
    let mut parents = Vec::with_capacity(file.nodes.len());
    let mut afters = Vec::new();
    let mut counted = NodeValues::default();
    for (i, node) in file.nodes.iter().enumerate() {
        let bad = |what: String| Disagreement(format!("nodes[{i}] (`{}`): {what}", node.line));
        let (parent, last) = match node.line.rsplit_once(';') {
            Some((parent, last)) => (parent, last),
            None => ("", node.line.as_str()),
        };
        let (before, _) = g.play_line(Position::empty(), parent).map_err(|e| bad(e.to_string()))?;
        let (pos, _) = g.play_line(before, last).map_err(|e| bad(e.to_string()))?;
        let key = g.canonical(&pos);
        if node.depth == 0 && file.job.value != Outcome::Unknown && node.value != file.job.value {
            return Err(bad(format!("the job's root, a {:?}, but the job says {:?}", node.value, file.job.value)));
        }
        if let Some(&j) = values.get(&key)
            && file.nodes[j].value != node.value
        {
            return Err(bad(format!(
                "a {:?}, but nodes[{j}] (`{}`) is the same position under the board's symmetries and a {:?}",
                node.value, file.nodes[j].line, file.nodes[j].value
            )));
        }
        values.insert(key, i);
        match proved.get(&key) {
            Some(p) if p.value != node.value => {
                return Err(bad(format!(
                    "a {:?}, but the file's proof proves a {:?} there (at `{}`)",
                    node.value, p.value, p.line
                )));
            }
            Some(_) => counted.proved += 1,
            None => counted.unproved += 1,
        }
        if node.depth > 0 && !node.line.trim().is_empty() {
            parents.push((i, g.canonical(&before)));
        }
        if let (Outcome::Win, Some(mv)) = (node.value, &node.winning_move) {
            let (after, _) = g.play_line(pos, mv).map_err(|e| bad(format!("winning move {mv}: {e}")))?;
            afters.push((i, g.canonical(&after)));
        }
    }
    for (i, after) in afters {
        let node = &file.nodes[i];
        if let Some(&j) = values.get(&after)
            && file.nodes[j].value == Outcome::Win
        {
            return Err(Disagreement(format!(
                "nodes[{i}] (`{}`): a win by {}, but that move leads to nodes[{j}] (`{}`), a win for the other side",
                node.line,
                node.winning_move.as_deref().unwrap_or_default(),
                file.nodes[j].line
            )));
        }
    }
    for (i, parent) in parents {
        let node = &file.nodes[i];
        if let Some(&j) = values.get(&parent) {
            let up = &file.nodes[j];
            if up.value == Outcome::Loss && node.value == Outcome::Loss {
                return Err(Disagreement(format!(
                    "nodes[{i}] (`{}`): a loss, but so is its parent nodes[{j}] (`{}`): a lost position's children are \
                     all won",
                    node.line, up.line
                )));
            }
        }
    }
    Ok(counted)
}

/// Records the value of every position `node` (of `proof`, at `pos`, reached by `line`) proves.
fn walk<B: Bits>(
    g: &Game<B>,
    proof: &ProofFile,
    node: &ProofNode,
    pos: Position<B>,
    line: String,
    proved: &mut HashMap<Position<B>, Proved>,
) -> Result<(), Disagreement> {
    let key = g.canonical(&pos);
    let value = node.value();
    if let Some(p) = proved.get(&key)
        && p.value != value
    {
        return Err(Disagreement(format!(
            "the proofs give `{line}` a {value:?} and `{}`, the same position under the board's symmetries, a {:?}",
            p.line, p.value
        )));
    }
    let step = |mv: &str| {
        g.play_line(pos, mv)
            .map(|(next, _)| (next, golomb_engine::notation::join_line(&line, mv)))
            .map_err(|e| Disagreement(format!("the proof of `{}`: at `{line}`, {mv}: {e}", proof.moves)))
    };
    match node {
        ProofNode::Win { winning_move: Some(mv), after: Some(after) } => {
            let (next, next_line) = step(mv)?;
            walk(g, proof, after, next, next_line, proved)?;
        }
        ProofNode::Win { .. } => {}
        ProofNode::Loss { replies } => {
            for reply in replies.iter().flatten() {
                let (next, next_line) = step(&reply.reply)?;
                walk(g, proof, &reply.after, next, next_line, proved)?;
            }
        }
    }
    proved.insert(key, Proved { value, line });
    Ok(())
}
