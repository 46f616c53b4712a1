//! Whether an export agrees with itself and with the proofs it carries.
//!
//! `golomb verify` checks an export's proofs by solving; this module checks,
//! without solving, that the values a reader takes from the file's `nodes[]`
//! (`golomb openings`, `golomb import`) are the ones those proofs prove, and
//! that the file cannot be true as a whole otherwise: its proofs start where
//! the job and its children are and claim what the file says; a classify's
//! every decided child has its proof; no position (under the board's
//! symmetries) has two values; no lost node has a lost child; no winning
//! move leads to a won position; the root node's value is the job's.
//! `import` refuses such a file; `verify` fails on it and says how many node
//! values the proofs cover.

use std::collections::HashMap;

use golomb_engine::proof::ProofNode;
use golomb_engine::solve::Outcome;
use golomb_engine::split::Goal;
use golomb_engine::{Bits, Game, Position};
use golomb_proto::{JobSpec, Kind};
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

/// A way the file disagrees with itself, naming the node (`nodes[7]`) or proof.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("{0}")]
pub struct Disagreement(String);

/// Checks that the nodes of `file`, an export of a job of `spec` (checked
/// already: `import::file_spec`) played in `g`, agree with each other, with
/// the job's value, and with every position its proofs reach (the root's
/// proof and a classify's proofs of its children), and that those proofs
/// are of the job's positions; says how many node values the proofs cover.
/// Proofs are walked, not checked: `golomb verify` solves what is below
/// them. Exports of hands games and tiling counts have no such values.
pub fn check_nodes<B: Bits>(g: &Game<B>, file: &ExportFile, spec: &JobSpec) -> Result<NodeValues, Disagreement> {
    if spec.kind() != Kind::GameValue {
        return Ok(NodeValues::default());
    }
    let play = |line: &str, what: &str| {
        g.play_line(Position::empty(), line).map(|(pos, _)| pos).map_err(|e| Disagreement(format!("{what}: {e}")))
    };
    let root = play(&spec.moves, "the job's root")?;
    let mut proved = HashMap::new();
    if let Some(proof) = &file.proof {
        if play(&proof.moves, "the root's proof")? != root {
            return Err(Disagreement(format!("the root's proof starts at `{}`, not at the job's root", proof.moves)));
        }
        if file.job.value != Outcome::Unknown && proof.value != file.job.value {
            return Err(Disagreement(format!(
                "the root's proof proves a {:?}, the job says {:?}",
                proof.value, file.job.value
            )));
        }
        claimed("the root's proof", proof.value, &proof.tree)?;
        walk(g, &proof.tree, root, &mut proved).map_err(|e| Disagreement(format!("the root's proof: {e}")))?;
    }
    for (i, child) in file.children.iter().enumerate() {
        let name = format!("children[{i}] ({})", child.mv);
        let after = g.play_line(root, &child.mv).map_err(|e| Disagreement(format!("{name}: {e}")))?.0;
        if g.canonical(&play(&child.proof.moves, &name)?) != g.canonical(&after) {
            return Err(Disagreement(format!(
                "{name}: its proof starts at `{}`, not after that move",
                child.proof.moves
            )));
        }
        if child.value != child.proof.value {
            return Err(Disagreement(format!("{name}: a {:?}, its proof says {:?}", child.value, child.proof.value)));
        }
        claimed(&name, child.value, &child.proof.tree)?;
        walk(g, &child.proof.tree, after, &mut proved).map_err(|e| Disagreement(format!("{name}'s proof: {e}")))?;
    }
    let classify = spec.goal == Goal::Classify;
    let mut values: HashMap<Position<B>, usize> = HashMap::with_capacity(file.nodes.len());
    let mut parents = Vec::with_capacity(file.nodes.len());
    let mut afters = Vec::new();
    let mut counted = NodeValues::default();
    for (i, node) in file.nodes.iter().enumerate() {
        let bad = |what: String| Disagreement(format!("nodes[{i}] (`{}`): {what}", node.line));
        let moves: Vec<&str> = node.line.split(';').map(str::trim).filter(|m| !m.is_empty()).collect();
        let before = match moves.split_last() {
            Some((_, parent)) => g.play_line(Position::empty(), &parent.join(";")).map_err(|e| bad(e.to_string()))?.0,
            None => Position::empty(),
        };
        let pos = match moves.last() {
            Some(last) => g.play_line(before, last).map_err(|e| bad(e.to_string()))?.0,
            None => before,
        };
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
            Some(&value) if value != node.value => {
                return Err(bad(format!("a {:?}, but the file's proof proves a {value:?} there", node.value)));
            }
            Some(_) => counted.proved += 1,
            None if classify && node.depth == 1 => {
                return Err(bad("a decided child of a classify's root with no proof in children[]".into()));
            }
            None => counted.unproved += 1,
        }
        if node.depth > 0 && !moves.is_empty() {
            parents.push((i, g.canonical(&before)));
        }
        match (node.value, &node.winning_move) {
            (Outcome::Win, Some(mv)) => {
                let (after, _) =
                    g.play_line(pos, mv).map_err(|e| bad(format!("the winning move {mv} is not legal there: {e}")))?;
                afters.push((i, g.canonical(&after)));
            }
            (Outcome::Win, None) => {}
            (value, Some(mv)) => return Err(bad(format!("a {value:?} names a winning move, {mv}"))),
            (_, None) => {}
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

/// Checks that a proof's tree proves the value its file (or entry) claims.
fn claimed(name: &str, value: Outcome, tree: &ProofNode) -> Result<(), Disagreement> {
    if tree.value() == value {
        Ok(())
    } else {
        Err(Disagreement(format!("{name}: its tree proves a {:?}, it claims a {value:?}", tree.value())))
    }
}

/// Records the value of every position `node` (at `pos`) proves, keyed by
/// its canonical position; says where a move does not play or one position
/// gets two values.
fn walk<B: Bits>(
    g: &Game<B>,
    node: &ProofNode,
    pos: Position<B>,
    proved: &mut HashMap<Position<B>, Outcome>,
) -> Result<(), String> {
    let value = node.value();
    if let Some(&before) = proved.insert(g.canonical(&pos), value).as_ref()
        && before != value
    {
        return Err(format!("it gives one position (under the board's symmetries) a {value:?} and a {before:?}"));
    }
    let step = |mv: &str| g.play_line(pos, mv).map(|(next, _)| next).map_err(|e| format!("move {mv}: {e}"));
    match node {
        ProofNode::Win { winning_move: Some(mv), after: Some(after) } => walk(g, after, step(mv)?, proved),
        ProofNode::Win { .. } => Ok(()),
        ProofNode::Loss { replies } => {
            replies.iter().flatten().try_for_each(|reply| walk(g, &reply.after, step(&reply.reply)?, proved))
        }
    }
}
