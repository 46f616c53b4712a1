//! Racing the root's moves to a proof: a proof-number loop over the
//! root's first moves, each searched with a budget that doubles, the move
//! that looks closest to its proof searched next.
//!
//! A won root needs one winning move, and its proof is every reply
//! refuted; moves cost orders of magnitude apart to prove, and which is
//! cheap shows only once some of its replies have been refuted. So the
//! root's first moves ([`ENTRANTS`]) enter a race. Each has an estimate
//! of what its proof still costs: before it is searched, its replies
//! times a cost per reply (the probe's samples' mean where it was priced,
//! else the mean of every reply refuted so far); once searched, its open
//! replies times what each refuted one cost it. The move with the lowest
//! estimate is searched next, by every thread (its node is a parallel
//! one), until it is decided or it has spent as much again as all its
//! searches before ([`FIRST_BUDGET`] the first time). A search stopped by
//! its budget loses only what was in flight: every reply it refuted is in
//! the table, and the next search of the move finds it there.
//!
//! The race ends with a move proved (the root is won by it), or with every
//! entrant refuted; the root then searches its other moves as before (the
//! refuted ones are in the table). Values are never guessed: every value
//! the race gives is a search's.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use crate::bitboard::Bits;
use crate::solve::movelist::MoveList;
use crate::solve::parallel::solve_node;
use crate::solve::stats::Stats;
use crate::solve::tt::TtCheck;
use crate::solve::{Context, Outcome, Scope};

/// Root moves in the race at most, the first in the root's order.
pub const ENTRANTS: usize = 40;

/// Positions a move's first search may take; each later one may take as
/// many as all the move's searches before it.
pub const FIRST_BUDGET: u64 = 1 << 22;

/// One root move in the race.
#[derive(Clone, Debug)]
pub(super) struct Entrant<B> {
    /// The move, as `(piece, mask)`.
    pub mv: (u8, B),
    /// What one of its replies is expected to cost before it is searched
    /// (the probe's samples' mean), if anything says so.
    pub per_reply: Option<u64>,
    replies: u64,
    /// Replies refuted so far (as many as the last search of it refuted).
    refuted: u64,
    /// Positions its searches took.
    spent: u64,
    /// Whether a search of it was decided: a reply won for the opponent.
    lost: bool,
}

impl<B> Entrant<B> {
    /// An entrant that nothing has searched yet.
    pub(super) fn new(mv: (u8, B), per_reply: Option<u64>) -> Entrant<B> {
        Entrant { mv, per_reply, replies: 0, refuted: 0, spent: 0, lost: false }
    }

    /// What its proof is estimated to cost from here, with `mean` the mean
    /// cost of the replies refuted so far in the whole race.
    fn estimate(&self, mean: f64) -> f64 {
        if self.lost {
            return f64::INFINITY;
        }
        let open = (self.replies - self.refuted) as f64;
        if self.spent == 0 {
            return open * self.per_reply.map_or(mean, |p| p as f64);
        }
        open * self.spent as f64 / self.refuted.max(1) as f64
    }
}

/// What the race found: the move that won the root, if one did, and the
/// work it took (every search of the race).
pub(super) struct RaceResult<B> {
    /// The root move proved, if one was.
    pub won: Option<(u8, B)>,
    /// The entrants decided (won or lost), each once, with what it cost.
    pub decided: Vec<((u8, B), u64)>,
    /// The searches' work.
    pub stats: Stats,
}

/// Races `entrants`, moves of the root `root`, until one is proved or
/// all are refuted (or the search is stopped meanwhile); `prior` is what
/// a reply is expected to cost before any is refuted.
pub(super) fn race<'c, B: Bits + TtCheck>(
    ctx: &'c Context<'c, B>,
    root: &MoveList<B>,
    mut entrants: Vec<Entrant<B>>,
    prior: u64,
    scope: &'c Scope<'c>,
) -> RaceResult<B> {
    let mut result = RaceResult { won: None, decided: Vec::new(), stats: Stats::default() };
    let mut child = MoveList::with_capacity(root.len());
    for entrant in &mut entrants {
        child.fill_child(root, entrant.mv.0, entrant.mv.1);
        entrant.replies = child.len() as u64;
        if child.is_empty() {
            // No reply: the move wins at once.
            result.won = Some(entrant.mv);
            result.decided.push((entrant.mv, 0));
            return result;
        }
    }
    // Replies refuted in the whole race, and what their moves' searches cost.
    let (mut refuted, mut spent) = (0u64, 0u64);
    loop {
        let mean = if refuted == 0 { prior.max(1) as f64 } else { spent as f64 / refuted as f64 };
        let next = entrants
            .iter()
            .enumerate()
            .filter(|(_, e)| !e.lost)
            .min_by(|(_, a), (_, b)| a.estimate(mean).total_cmp(&b.estimate(mean)))
            .map(|(i, _)| i);
        let Some(next) = next else { return result };
        if scope.is_cancelled() || ctx.limit_reached() {
            return result;
        }
        let entrant = &mut entrants[next];
        let budget = entrant.spent.max(first_budget());
        child.fill_child(root, entrant.mv.0, entrant.mv.1);
        let (outcome, step) = search_with_budget(ctx, &child, entrant.mv, budget, scope);
        result.stats.merge(&step);
        entrant.spent += step.positions;
        let newly = ctx.progress.first.replies_refuted.load(Relaxed).saturating_sub(entrant.refuted);
        entrant.refuted += newly;
        refuted += newly;
        spent += step.positions;
        match outcome {
            Outcome::Loss => {
                // Every reply refuted: the move wins the root.
                result.won = Some(entrant.mv);
                result.decided.push((entrant.mv, entrant.spent));
                return result;
            }
            Outcome::Win => {
                entrant.lost = true;
                result.decided.push((entrant.mv, entrant.spent));
            }
            Outcome::Unknown => {}
        }
    }
}

/// Searches the child `child` of the root, reached by `mv`, on every
/// thread, stopping after about `budget` positions: its value for the
/// side to move there (unknown where the budget ran out), and the work.
fn search_with_budget<'c, B: Bits + TtCheck>(
    ctx: &'c Context<'c, B>,
    child: &MoveList<B>,
    mv: (u8, B),
    budget: u64,
    scope: &'c Scope<'c>,
) -> (Outcome, Stats) {
    let positions: &AtomicU64 = &ctx.progress.positions;
    let budget_scope = Scope::with_budget(scope, positions, positions.load(Relaxed).saturating_add(budget));
    ctx.progress.first.replies_refuted.store(0, Relaxed);
    ctx.first_move_alone(Some(mv));
    let mut result = solve_node(ctx, child, 1, Some(mv), &budget_scope);
    ctx.first_move_alone(None);
    result.stats.positions += 1;
    (result.outcome, result.stats)
}

/// TEMPORARY, for the measurements: which race runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// No race: the probe's cheapest move first, alone.
    Off,
    /// The race over the probe's prices.
    Probe,
    /// The race over the root's order, only the gate's samples.
    Gate,
}

/// TEMPORARY: the mode from `GOLOMB_RACE`.
pub fn mode() -> Mode {
    match std::env::var("GOLOMB_RACE").as_deref() {
        Ok("probe") => Mode::Probe,
        Ok("gate") => Mode::Gate,
        _ => Mode::Off,
    }
}

/// TEMPORARY: the first budget from `GOLOMB_RACE_B0` (a power of two).
fn first_budget() -> u64 {
    std::env::var("GOLOMB_RACE_B0").ok().and_then(|v| v.parse::<u32>().ok()).map_or(FIRST_BUDGET, |k| 1 << k)
}
