//! The scheduler's use of the engine: cutting a new job's tree into units,
//! cutting a long unit into its children, and naming results in the root's
//! own terms (merged children get their winning move mapped by symmetry).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use golomb_engine::hands::HandsGame;
use golomb_engine::notation::{join_line, last_move};
use golomb_engine::proof::ProofNode;
use golomb_engine::proof::verify::check_tree;
use golomb_engine::split::{self, Child, SplitError, position_key, rank_bytes};
use golomb_engine::tiling::Tiler;
use golomb_engine::{AnyGame, Bits, Game, GameSpec, GameSpecError, PlacementId, Player, Position, with_game};
use golomb_proto::spec::{HandsSpec, JobSpec, hands_setup};
use golomb_proto::{Kind, SpecError, ValidSpec, convert, pb};

use crate::store::hands::for_player;
use crate::store::{ChildRow, DecidedAt, NewNode, NumberedAt, SplitTarget, TreeGame};

/// The games built lately, newest last: a coordinator splits, expands and
/// imports nodes of a few games at a time, and building one (its placement
/// tables and symmetries) costs more than a small node's children.
static BUILT: Mutex<Vec<(GameSpec, Arc<AnyGame>)>> = Mutex::new(Vec::new());

/// How many built games [`BUILT`] keeps.
const BUILT_KEPT: usize = 4;

/// The game `spec` names, built once and shared while it is among the last few used.
fn built(spec: &GameSpec) -> Result<Arc<AnyGame>, GameSpecError> {
    let mut cache = BUILT.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(i) = cache.iter().position(|(s, _)| s == spec) {
        let entry = cache.remove(i);
        let game = Arc::clone(&entry.1);
        cache.push(entry);
        return Ok(game);
    }
    let game = Arc::new(spec.build()?);
    if cache.len() == BUILT_KEPT {
        cache.remove(0);
    }
    cache.push((spec.clone(), Arc::clone(&game)));
    Ok(game)
}

/// The most nodes one job's split may make.
pub const MAX_NODES: usize = 2_000_000;

/// The split tree of a valid job, as store rows (`[0]` is the root), and
/// the order of the board's symmetry group.
pub fn job_nodes(valid: &ValidSpec) -> Result<(Vec<NewNode>, u32), SpecError> {
    let symmetries = with_game!(&valid.game, g => g.board().symmetries().len() as u32);
    let nodes = match (valid.spec.kind(), &valid.spec.hands) {
        (Kind::HandsScore, Some(hands)) => hands_nodes(valid, hands)?,
        (Kind::TilingCount, _) => count_nodes(valid)?,
        (Kind::GameValue | Kind::HandsScore, _) => game_nodes(valid)?,
    };
    Ok((nodes, symmetries))
}

/// A hands job's nodes: the root (the one unit at depth 0) and, at depth 1,
/// one unit per legal move of the side to move (no symmetry merging: the
/// hands are not symmetric).
fn hands_nodes(valid: &ValidSpec, hands: &HandsSpec) -> Result<Vec<NewNode>, SpecError> {
    with_game!(&valid.game, g => {
        let rules = HandsGame::new(g, hands_setup(hands).build(g)?)?;
        let (root, _) = rules.play_line(&valid.spec.moves)?;
        let moves = rules.moves(&root);
        let cut = valid.spec.split_depth == 1;
        let mut nodes = vec![NewNode {
            key: "hands root".into(),
            line: valid.spec.moves.clone(),
            depth: 0,
            rank: Vec::new(),
            replies: moves.len() as u32,
            unit: !cut,
            children: Vec::new(),
            share: None,
        }];
        if cut {
            for (i, &id) in moves.iter().enumerate() {
                let name = g.move_name(id);
                let line = join_line(&valid.spec.moves, &name);
                nodes[0].children.push((name, i + 1));
                nodes.push(NewNode {
                    key: format!("hands {line}"),
                    line,
                    depth: 1,
                    rank: u16::try_from(i).unwrap_or(u16::MAX).to_be_bytes().to_vec(),
                    replies: rules.moves(&rules.after(&root, id)).len() as u32,
                    unit: true,
                    children: Vec::new(),
                    share: None,
                });
            }
        }
        Ok(nodes)
    })
}

/// A tiling count's units: one per share of the search, below a root that is not a unit.
fn count_nodes(valid: &ValidSpec) -> Result<Vec<NewNode>, SpecError> {
    with_game!(&valid.game, g => {
        let tiler = Tiler::new(g, valid.spec.each)?;
        let shares = tiler.shares(valid.spec.split_depth as usize);
        if shares.len() >= MAX_NODES {
            return Err(SplitError::TooLarge { depth: valid.spec.split_depth, limit: MAX_NODES }.into());
        }
        let root = NewNode {
            key: "root".into(),
            line: String::new(),
            depth: 0,
            rank: Vec::new(),
            replies: 1,
            unit: false,
            children: Vec::new(),
            share: None,
        };
        let units = shares.into_iter().enumerate().map(|(i, share)| NewNode {
            key: format!("share {i}"),
            line: g.line_name(&share.prefix),
            depth: share.prefix.len() as u32,
            rank: (i as u32).to_be_bytes().to_vec(),
            replies: 1,
            unit: true,
            children: Vec::new(),
            share: Some((share.weight, share.checks.iter().map(|&c| c as u32).collect())),
        });
        Ok(std::iter::once(root).chain(units).collect())
    })
}

/// About how many distinct positions a split of `root` to `depth` plies makes.
///
/// The moves of a few positions per ply, reached by fixed pseudo-random
/// lines, give the mean branching; sequences are divided by the orders in
/// which each player's moves can come (transpositions) and by the board's
/// symmetries. It costs a few move generations, so a hopeless split is
/// refused in moments instead of after minutes of building.
pub fn estimate_nodes<B: Bits>(game: &Game<B>, root: &Position<B>, depth: u32) -> f64 {
    const SAMPLES: u64 = 24;
    let symmetries = game.board().symmetries().len().max(1) as f64;
    let mut total = 1.0;
    let mut sequences = 1.0;
    let mut frontier = vec![*root];
    for ply in 1..=depth {
        let counts: Vec<usize> = frontier.iter().map(|p| game.legal_moves(p).len()).collect();
        let mean = counts.iter().sum::<usize>() as f64 / counts.len().max(1) as f64;
        sequences *= mean;
        let (mine, theirs) = (u64::from(ply).div_ceil(2), u64::from(ply) / 2);
        let orders = (1..=mine).product::<u64>() as f64 * (1..=theirs).product::<u64>() as f64;
        total += sequences / orders / symmetries;
        let mut next = Vec::new();
        let mut seed = 0x9e37_79b9_7f4a_7c15u64 ^ u64::from(ply);
        for (pos, &count) in frontier.iter().zip(&counts) {
            let moves = game.legal_moves(pos);
            for _ in 0..SAMPLES.div_ceil(frontier.len() as u64) {
                if count == 0 {
                    break;
                }
                seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                next.push(pos.after(game.placement(moves[(seed >> 33) as usize % count])));
            }
        }
        if next.is_empty() {
            break;
        }
        frontier = next;
    }
    total
}

/// A game job's split tree.
fn game_nodes(valid: &ValidSpec) -> Result<Vec<NewNode>, SpecError> {
    with_game!(&valid.game, g => {
        let (root, _) = g.play_line(Position::empty(), &valid.spec.moves)?;
        let depth = valid.spec.split_depth;
        let estimate = estimate_nodes(g, &root, depth);
        // The estimate is rough: refuse only what is clearly out of reach; the split's own limit does the rest.
        if estimate > 4.0 * MAX_NODES as f64 {
            return Err(SpecError::TooLarge { depth, estimate, limit: MAX_NODES });
        }
        let tree = split::split(g, &root, depth, MAX_NODES)?;
        Ok(tree
            .nodes
            .iter()
            .map(|n| NewNode {
                key: n.key.clone(),
                line: join_line(&valid.spec.moves, &g.line_name(&n.line)),
                depth: n.depth,
                rank: rank_bytes(&n.rank),
                replies: n.replies as u32,
                unit: n.is_unit(tree.depth),
                children: n.children.iter().map(|&(id, child)| (g.move_name(id), child)).collect(),
                share: None,
            })
            .collect())
    })
}

/// The children of a unit's node as store rows, each with its move: one ply further down.
pub fn unit_children(target: &SplitTarget) -> Result<Vec<(String, NewNode)>, SpecError> {
    let SplitTarget { spec, line, rank, depth } = target;
    if spec.kind() == Kind::HandsScore {
        return Err(SpecError::HandsJob("a hands job's units are never split"));
    }
    let (line, depth) = (line.as_str(), *depth);
    let game = built(&spec.game)?;
    with_game!(&*game, g => {
        let (pos, _) = g.play_line(Position::empty(), line)?;
        let images = split::images(g, &pos);
        Ok(split::children(g, &pos)
            .into_iter()
            .enumerate()
            .map(|(i, Child { placement, replies, .. })| {
                let name = g.move_name(placement);
                let mut rank = rank.to_vec();
                rank.extend(u16::try_from(i).unwrap_or(u16::MAX).to_be_bytes());
                let node = NewNode {
                    key: split::child_key(g, &images, placement),
                    line: join_line(line, &name),
                    depth: depth + 1,
                    rank,
                    replies: replies as u32,
                    unit: replies > 0,
                    children: Vec::new(),
                    share: None,
                };
                (name, node)
            })
            .collect())
    })
}

/// The wire form of the root's children: merged ones name the move they
/// equal and carry its winning move mapped onto their own position.
pub fn child_results(spec: &JobSpec, rows: &[ChildRow]) -> Result<Vec<pb::ChildResult>, SpecError> {
    if let Some(mover) = spec.hands_side_to_move()? {
        return Ok(rows.iter().map(|row| hands_child_result(mover, row)).collect());
    }
    let game = built(&spec.game)?;
    with_game!(&*game, g => {
        let (root, _) = g.play_line(Position::empty(), &spec.moves)?;
        rows.iter().map(|row| child_result(g, &root, &spec.moves, row)).collect()
    })
}

/// A hands job's child: its score for the player who made the move (the
/// root's side to move), its best reply, no value (scores, not win/loss).
fn hands_child_result(mover: Player, row: &ChildRow) -> pb::ChildResult {
    pb::ChildResult {
        r#move: row.mv.clone(),
        value: convert::value(golomb_engine::solve::Outcome::Unknown),
        winning_move: row.best.clone().unwrap_or_default(),
        same_as: String::new(),
        positions: row.positions,
        seconds: row.seconds,
        replies: row.replies,
        index: row.index,
        score: row.score.map(|s| for_player(s, mover)),
    }
}

fn child_result<B: Bits>(
    game: &Game<B>,
    root: &Position<B>,
    root_line: &str,
    row: &ChildRow,
) -> Result<pb::ChildResult, SpecError> {
    let own_line = join_line(root_line, &row.mv);
    let merged = own_line != row.node_line;
    let mut winning_move = row.best.clone().unwrap_or_default();
    let mut same_as = String::new();
    if merged {
        same_as = last_move(&row.node_line).to_string();
        let mv = game.parse_move(&row.mv)?;
        let mine = root.after(game.placement(mv));
        let (theirs, _) = game.play_line(Position::empty(), &row.node_line)?;
        if let (Some(best), Some(s)) = (row.best.as_deref(), split::symmetry_between(game, &theirs, &mine)) {
            let best = game.parse_move(best)?;
            winning_move = game.move_name(game.symmetric_placement(s, best));
        }
    }
    Ok(pb::ChildResult {
        r#move: row.mv.clone(),
        value: convert::value(row.value),
        winning_move,
        same_as,
        positions: row.positions,
        seconds: row.seconds,
        replies: row.replies,
        index: row.index,
        score: None,
    })
}

/// The most children one give-back may report decided (more than any position has moves).
pub const MAX_DECIDED: usize = 1 << 16;

/// Checks what a worker says it decided below a unit it gives back to be
/// split, and names each decided child by its place in `children` (the
/// split's own children, merged under the board's symmetries).
///
/// Every reported move must be a legal move of the unit's position, every
/// value a win or a loss, and every win must carry a winning move that is
/// legal in the child (mapped onto the merged child's own position when
/// the worker named another move of the same class). A report that fails
/// any check is refused whole, with the field that failed.
pub fn decided_children(
    target: &SplitTarget,
    children: &[(String, NewNode)],
    reported: &[pb::DecidedChild],
) -> Result<Vec<DecidedAt>, String> {
    use golomb_engine::solve::Outcome;
    // The count is bounded at the wire (`MAX_DECIDED`), not by `children`: symmetric
    // moves are one child of the split but each is reported.
    if reported.is_empty() {
        return Ok(Vec::new());
    }
    let game = built(&target.spec.game).map_err(|e| e.to_string())?;
    with_game!(&*game, g => {
        let (pos, _) = g.play_line(Position::empty(), &target.line).map_err(|e| e.to_string())?;
        let by_key = children_by_key(children);
        let mut out: Vec<DecidedAt> = Vec::with_capacity(reported.len());
        // Where in `reported` each of `out` was first named.
        let mut first: Vec<usize> = Vec::with_capacity(reported.len());
        for (i, d) in reported.iter().enumerate() {
            let field = format!("decided[{i}]");
            let (index, mine, id) = child_at(g, pos, &by_key, &d.r#move, &field)?;
            let value = convert::outcome(d.value);
            let best = match value {
                Outcome::Unknown => return Err(format!("{field}.value: a decided child is a win or a loss")),
                Outcome::Loss => None,
                Outcome::Win => {
                    let best = g.parse_move(&d.winning_move).map_err(|e| format!("{field}.winning_move: {e}"))?;
                    g.play_line(mine, &d.winning_move).map_err(|e| format!("{field}.winning_move: {e}"))?;
                    // The split names the child by its own move: map the answer onto that position.
                    let (theirs, _) = g
                        .play_line(pos, &children[index].0)
                        .map_err(|e| format!("{field}: the split's own child does not play: {e}"))?;
                    let best = if g.move_name(id) == children[index].0 {
                        best
                    } else {
                        let s = split::symmetry_between(g, &mine, &theirs)
                            .ok_or_else(|| format!("{field}.move: no symmetry maps it onto its class"))?;
                        g.symmetric_placement(s, best)
                    };
                    Some(g.move_name(best))
                }
            };
            // Symmetric moves are one child, each reported: the same value twice is one
            // claim, two values for one child a report that contradicts itself.
            match out.iter().position(|o| o.index == index) {
                None => {
                    out.push(DecidedAt { index, value, best });
                    first.push(i);
                }
                Some(k) if out[k].value != value => {
                    return Err(format!(
                        "{field}.move: the same child as decided[{}], with the other value",
                        first[k]
                    ));
                }
                Some(_) => {}
            }
        }
        Ok(out)
    })
}

/// A split's children by position key, each with its place in `children`.
fn children_by_key(children: &[(String, NewNode)]) -> HashMap<&str, usize> {
    children.iter().enumerate().map(|(i, (_, node))| (node.key.as_str(), i)).collect()
}

/// The place in `by_key` (a split's children) of the child that `mv`, a
/// move of `pos` in a worker's report, reaches, with the child's position
/// and the move; an error names `field`.
fn child_at<B: Bits>(
    g: &Game<B>,
    pos: Position<B>,
    by_key: &HashMap<&str, usize>,
    mv: &str,
    field: &str,
) -> Result<(usize, Position<B>, PlacementId), String> {
    let id = g.parse_move(mv).map_err(|e| format!("{field}.move: {e}"))?;
    let (mine, _) = g.play_line(pos, mv).map_err(|e| format!("{field}.move: {e}"))?;
    let key = position_key(g, &mine);
    let &index = by_key.get(key.as_str()).ok_or_else(|| format!("{field}.move: not a child of the unit"))?;
    Ok((index, mine, id))
}

/// Checks the numbers a worker gives children of a unit it gives back to
/// be split, and names each child by its place in `children` (the split's
/// own, merged under the board's symmetries): every move must be a legal
/// move of the unit's position, every number at least 1 and at most
/// [`golomb_proto::MAX_NUMBER`] (a number of 0 would be a value). The
/// first of symmetric moves counts. A report that fails a check is refused
/// whole, with the field that failed.
pub fn numbered_children(
    target: &SplitTarget,
    children: &[(String, NewNode)],
    reported: &[pb::NumberedChild],
) -> Result<Vec<NumberedAt>, String> {
    if reported.is_empty() {
        return Ok(Vec::new());
    }
    let game = built(&target.spec.game).map_err(|e| e.to_string())?;
    with_game!(&*game, g => {
        let (pos, _) = g.play_line(Position::empty(), &target.line).map_err(|e| e.to_string())?;
        let by_key = children_by_key(children);
        let mut out: Vec<NumberedAt> = Vec::with_capacity(reported.len());
        for (i, n) in reported.iter().enumerate() {
            let field = format!("numbers[{i}]");
            let (index, _, _) = child_at(g, pos, &by_key, &n.r#move, &field)?;
            for (name, value) in [("phi", n.phi), ("delta", n.delta)] {
                if !(1..=golomb_proto::MAX_NUMBER).contains(&value) {
                    return Err(format!("{field}.{name}: {value}, not between 1 and {}", golomb_proto::MAX_NUMBER));
                }
            }
            if !out.iter().any(|o| o.index == index) {
                out.push(NumberedAt { index, phi: n.phi, delta: n.delta });
            }
        }
        Ok(out)
    })
}

/// One step of the line below a split unit, checked: its line from the
/// empty board in the worker's frame (the unit's line and the steps' moves)
/// and its position's key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineStep {
    /// The moves from the empty board to the step's position.
    pub line: String,
    /// The step position's key (equal positions under the board's symmetries share it).
    pub key: String,
}

/// Checks the line a worker reports below a unit it gives back to be split:
/// at most [`golomb_proto::MAX_PATH_STEPS`] steps, at most [`MAX_DECIDED`]
/// decided children in all, every step's move legal in the position the
/// steps before it reach, and every decided child's move legal there, its
/// value a win or a loss and a win's winning move legal in the child. Names
/// the first field that fails; nothing is applied before all pass.
pub fn line_steps(target: &SplitTarget, path: &[pb::PathStep]) -> Result<Vec<LineStep>, String> {
    if path.len() > golomb_proto::MAX_PATH_STEPS {
        return Err(format!("path: {} steps, at most {}", path.len(), golomb_proto::MAX_PATH_STEPS));
    }
    let decided: usize = path.iter().map(|step| step.decided.len()).sum();
    if decided > MAX_DECIDED {
        return Err(format!("path: {decided} decided children in all, at most {MAX_DECIDED}"));
    }
    if path.is_empty() {
        return Ok(Vec::new());
    }
    let game = built(&target.spec.game).map_err(|e| e.to_string())?;
    with_game!(&*game, g => {
        let (mut pos, _) = g.play_line(Position::empty(), &target.line).map_err(|e| e.to_string())?;
        let mut line = target.line.clone();
        let mut steps = Vec::with_capacity(path.len());
        for (i, step) in path.iter().enumerate() {
            // One move a step (a line of several, or none, would skip the depth bound).
            g.parse_move(&step.r#move).map_err(|e| format!("path[{i}].move: {e}"))?;
            let (next, _) = g.play_line(pos, &step.r#move).map_err(|e| format!("path[{i}].move: {e}"))?;
            if g.count_moves(&next) == 0 {
                return Err(format!("path[{i}].move: the position after it has no moves: nothing is below it"));
            }
            pos = next;
            for (j, d) in step.decided.iter().enumerate() {
                let field = format!("path[{i}].decided[{j}]");
                g.parse_move(&d.r#move).map_err(|e| format!("{field}.move: {e}"))?;
                let (child, _) = g.play_line(pos, &d.r#move).map_err(|e| format!("{field}.move: {e}"))?;
                match convert::outcome(d.value) {
                    golomb_engine::solve::Outcome::Unknown => {
                        return Err(format!("{field}.value: a decided child is a win or a loss"));
                    }
                    golomb_engine::solve::Outcome::Win => {
                        g.parse_move(&d.winning_move).map_err(|e| format!("{field}.winning_move: {e}"))?;
                        g.play_line(child, &d.winning_move).map_err(|e| format!("{field}.winning_move: {e}"))?;
                    }
                    golomb_engine::solve::Outcome::Loss => {}
                }
            }
            line = join_line(&line, &step.r#move);
            steps.push(LineStep { line: line.clone(), key: position_key(g, &pos) });
        }
        Ok(steps)
    })
}

/// `reported`, decided children of the position `from` reaches, as the same
/// children of the position `to` reaches (equal to it under a symmetry of the
/// board, or by another order of the same moves): every move and winning
/// move mapped by the symmetry between them.
pub fn map_decided(
    spec: &JobSpec,
    from: &str,
    to: &str,
    reported: &[pb::DecidedChild],
) -> Result<Vec<pb::DecidedChild>, String> {
    if from == to || reported.is_empty() {
        return Ok(reported.to_vec());
    }
    let game = built(&spec.game).map_err(|e| e.to_string())?;
    with_game!(&*game, g => {
        let (mine, _) = g.play_line(Position::empty(), from).map_err(|e| e.to_string())?;
        let (theirs, _) = g.play_line(Position::empty(), to).map_err(|e| e.to_string())?;
        let s = split::symmetry_between(g, &mine, &theirs).ok_or("the two lines reach positions that are not equal")?;
        let map = |mv: &str| -> Result<String, String> {
            if mv.is_empty() {
                return Ok(String::new());
            }
            let id = g.parse_move(mv).map_err(|e| e.to_string())?;
            Ok(g.move_name(g.symmetric_placement(s, id)))
        };
        reported
            .iter()
            .map(|d| {
                Ok(pb::DecidedChild { r#move: map(&d.r#move)?, value: d.value, winning_move: map(&d.winning_move)? })
            })
            .collect()
    })
}

/// The engine as the store's [`TreeGame`]: children as a split makes
/// them, moves mapped between equal positions by the board's symmetries.
pub struct Engine;

impl TreeGame for Engine {
    fn children(&self, target: &SplitTarget) -> Result<Vec<(String, NewNode)>, SpecError> {
        unit_children(target)
    }

    fn map_move(&self, spec: &JobSpec, from: &str, to: &str, mv: &str) -> Result<String, String> {
        let game = built(&spec.game).map_err(|e| e.to_string())?;
        with_game!(&*game, g => {
            let (from, _) = g.play_line(Position::empty(), from).map_err(|e| e.to_string())?;
            let (to, _) = g.play_line(Position::empty(), to).map_err(|e| e.to_string())?;
            let id = g.parse_move(mv).map_err(|e| e.to_string())?;
            let symmetry = split::symmetry_between(g, &from, &to)
                .ok_or("the two lines do not reach positions equal under the board's symmetries")?;
            let mapped = g.symmetric_placement(symmetry, id);
            g.play_line(to, &g.move_name(mapped)).map_err(|e| format!("the mapped move does not play: {e}"))?;
            Ok(g.move_name(mapped))
        })
    }

    fn map_tree(&self, spec: &JobSpec, from: &str, to: &str, tree: &str) -> Result<String, String> {
        let game = built(&spec.game).map_err(|e| e.to_string())?;
        let tree: ProofNode = serde_json::from_str(tree).map_err(|e| e.to_string())?;
        with_game!(&*game, g => {
            let (from, _) = g.play_line(Position::empty(), from).map_err(|e| e.to_string())?;
            let (to_pos, _) = g.play_line(Position::empty(), to).map_err(|e| e.to_string())?;
            let symmetry = split::symmetry_between(g, &from, &to_pos)
                .ok_or("the two lines do not reach positions equal under the board's symmetries")?;
            let mapped = tree.map_moves(&mut |name: &str| {
                let id = g.parse_move(name).map_err(|e| e.to_string())?;
                Ok::<_, String>(g.move_name(g.symmetric_placement(symmetry, id)))
            })?;
            // The same shape at the same position up to symmetry: the check cannot fail but costs little.
            check_tree(g, &mapped, to_pos, to).map_err(|e| format!("the mapped tree does not hold: {e}"))?;
            serde_json::to_string(&mapped).map_err(|e| e.to_string())
        })
    }
}

#[cfg(test)]
mod tests;
