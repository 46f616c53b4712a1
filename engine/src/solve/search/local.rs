//! The local kernel: search below a node with at most [`LOCAL_MAX`] moves,
//! on [`MoveSet`]s over that node's [`Universe`].
//!
//! Every node orders its moves by the number of replies they leave, fewest
//! first: counting them is one population count per move. The same scan
//! decides many nodes without searching a child:
//! - a move that leaves no reply wins;
//! - a move that leaves exactly one reply loses (the opponent plays it and
//!   leaves nothing), so it is never tried;
//! - a move that leaves at most [`SMALL_MAX`] replies is decided by a table
//!   of every conflict graph on that many moves (two replies: the move wins
//!   if they do not conflict; three: if exactly one pair of them conflicts);
//! - if every connected component of the conflict graph is a clique (no two
//!   moves conflict, say), every move removes exactly its own component, and
//!   the parity of the number of components decides.
//!
//! Before the scan, the two moves that last won at the same ply (usually in
//! siblings, whose refutations often work here too) are tried alone: if one
//! decides the node, the scan is skipped.
//!
//! A searched node one ply below the searcher's top, with at least
//! [`MIN_MOVES`](crate::solve::like_answers::MIN_MOVES) moves, tries first
//! the answers that refuted the top's moves most like the one that led to
//! it ([`LikeAnswers`](crate::solve::like_answers::LikeAnswers)); then the
//! last [`KILLERS`](crate::solve::buffers::KILLERS) moves that won at its
//! ply; then the rest, fewest replies first.
//!
//! A searched node skips a child equal to one of the last [`TWINS`] children
//! it found lost for itself: two moves whose conflict rows agree on the
//! node's moves (a piece with two placements in a pocket that nothing else
//! reaches, say) lead to the same position, and are common in endgames.
//!
//! A searched node below the searcher's top with at least [`LOCAL_TT_MIN`]
//! moves (and the solve's `tt_min_moves`) looks itself up in a
//! transposition table before searching, and stores its value after. Nodes
//! of at most [`NEAR_MAX`] moves use a small table of the searcher's own
//! ([`NEAR_TT_MB`]), which stays in the processor's cache; larger ones the
//! search's shared table, where nearly every probe waits for main memory.
//! (On the 1197 opening, nearly a fifth of the time went to that wait.)
//!
//! A node that searches its children and whose moves fit a narrower set is
//! renumbered on one first, so the deeper, more numerous nodes work on
//! single words; its scan's sort keys are renumbered with it, not redone.
//! A searched node picks its first three moves by selection and
//! sorts the rest once.

use crate::bitboard::Bits;
use crate::solve::Outcome;
use crate::solve::buffers::KILLERS;
use crate::solve::history::HINTS;
use crate::solve::like_answers::{CANDIDATES, MIN_MOVES as LIKE_MIN_MOVES};
use crate::solve::moveset::MoveSet;
use crate::solve::tt::{TtCheck, TtKey};
use crate::solve::universe::Universe;

use super::small::{SMALL_MAX, small_wins};
use super::{POLL_INTERVAL, Searcher};

pub use crate::solve::buffers::{LOCAL_MAX, LocalBuffers, NEAR_MAX, NEAR_TT_MB};
use crate::solve::buffers::{OrderKey, Pool};

/// Nodes with fewer moves are searched without a table lookup.
const LOCAL_TT_MIN: usize = 12;

/// A searched node picks its first moves by selection, then sorts the rest.
/// (Instructions for 2, 3 and 4: 8x5 1.667, 1.663 and 1.662 G, 6x8 2.817,
/// 2.812 and 2.814 G, 7x7 11.489 and 11.463 G for 2 and 3; same positions.)
const SELECTED: usize = 3;

/// A searched node remembers this many children that won for the opponent, to skip their twins.
const TWINS: usize = 4;

/// The sort rank of the first killer: the top's hints and the like answers rank below it.
const KILLER_RANK: usize = if HINTS > CANDIDATES { HINTS } else { CANDIDATES };

/// The sort rank of a move that leaves no reply: the killers rank below it.
const REPLIES_RANK: usize = KILLER_RANK + KILLERS;

impl<B: Bits + TtCheck> Searcher<'_, B> {
    /// The value of the node at `ply` (non-empty, at most [`LOCAL_MAX`] moves), by the local kernel.
    pub(super) fn search_locally(&mut self, ply: usize) -> Outcome {
        match self.lists[ply].len() {
            0..=64 => self.enter::<1>(ply),
            65..=128 => self.enter::<2>(ply),
            129..=256 => self.enter::<4>(ply),
            _ => self.enter::<8>(ply),
        }
    }

    /// Numbers the moves of the list at `ply` on a `W`-word set and searches it.
    fn enter<const W: usize>(&mut self, ply: usize) -> Outcome
    where
        LocalBuffers<B>: Pool<B, W>,
    {
        let mut universe = Pool::<B, W>::pool(&mut self.local).pop().unwrap_or_default();
        self.local.stamp += 1;
        universe.build(self.lists[ply].moves(), self.local.stamp);
        let outcome = self.local(&universe, MoveSet::first_n(universe.len()), ply);
        Pool::<B, W>::pool(&mut self.local).push(universe);
        outcome
    }

    /// Renumbers the moves `set` of `parent` on a `V`-word set and searches
    /// the children in `keys` (the parent's scan of them, renumbered here).
    fn renumber<const W: usize, const V: usize>(
        &mut self,
        parent: &Universe<B, W>,
        set: MoveSet<W>,
        mut keys: Vec<OrderKey>,
        ply: usize,
    ) -> Outcome
    where
        LocalBuffers<B>: Pool<B, V>,
    {
        let mut universe = Pool::<B, V>::pool(&mut self.local).pop().unwrap_or_default();
        self.local.stamp += 1;
        universe.build(parent.placements(set), self.local.stamp);
        // The new numbers follow the old order: a move's number is the count of moves below it.
        for key in &mut keys {
            let m = (*key & 0xffff) as usize;
            *key = *key & !0xffff | set.rank(m) as OrderKey;
        }
        let outcome = self.search_children(&universe, MoveSet::first_n(universe.len()), keys, ply);
        Pool::<B, V>::pool(&mut self.local).push(universe);
        outcome
    }

    /// The value of the node whose moves are `set` (non-empty) in `universe`.
    fn local<const W: usize>(&mut self, universe: &Universe<B, W>, set: MoveSet<W>, ply: usize) -> Outcome
    where
        LocalBuffers<B>: Pool<B, W>,
    {
        if self.unflushed >= POLL_INTERVAL && self.should_stop() {
            return Outcome::Unknown;
        }
        let n = set.len() as usize;
        let mut keys = std::mem::take(&mut self.local.keys[ply]);
        keys.clear();
        // Whether every component of the conflict graph is a clique, and how many there are.
        let mut cliques = true;
        let mut classes = 0;
        let mut decided = None;
        let killer = self.local.killers[ply];
        // A move can only be a killer if its cells lie in theirs: one test
        // spares most moves the comparisons.
        let killer_cells = killer.iter().fold(B::EMPTY, |cells, &k| cells.union(k));
        // The moves that last won at this ply, in siblings of this node, often win here too.
        for (stamp, refuter) in self.local.refuters[ply] {
            if stamp == universe.stamp() && set.contains(refuter) {
                let child = set.difference(universe.conflict(refuter));
                let replies = child.len() as usize;
                if replies == 0 || (2..=SMALL_MAX).contains(&replies) && !small_wins(universe, child, replies) {
                    decided = Some(refuter);
                    break;
                }
            }
        }
        let scanned = if decided.is_some() { MoveSet::EMPTY } else { set };
        for m in scanned.iter() {
            let child = set.difference(universe.conflict(m));
            let replies = child.len() as usize;
            if cliques {
                let lowest = set.difference(child).first().unwrap_or(m);
                cliques = lowest == m || set.difference(universe.conflict(lowest)) == child;
                classes += usize::from(lowest == m);
            }
            let wins = match replies {
                0 => true,
                // The opponent's only reply leaves us nothing.
                1 => false,
                // A few replies: their conflict graph, looked up, decides.
                2..=SMALL_MAX => !small_wins(universe, child, replies),
                _ => {
                    // The top node's hints go first, then the moves that last won at this ply.
                    // Only the top node has hints: look its moves up alone.
                    let hint = if ply == 0 { self.hints.rank(universe.placement(m)) } else { None };
                    let rank = match hint {
                        Some(rank) => rank,
                        None => {
                            let mask = universe.mask(m);
                            let killer_rank = if mask.is_subset(killer_cells) {
                                killer.iter().position(|&k| k == mask)
                            } else {
                                None
                            };
                            killer_rank.map_or(REPLIES_RANK + replies, |rank| KILLER_RANK + rank)
                        }
                    } as OrderKey;
                    keys.push(rank << 16 | m as OrderKey);
                    false
                }
            };
            if wins {
                decided = Some(m);
                break;
            }
        }
        if decided.is_none() && cliques {
            // Every move removes exactly its own clique: the parity of their number decides.
            decided = (classes % 2 == 1).then(|| set.first().unwrap_or(0));
            keys.clear();
        }
        if let Some(m) = decided {
            self.local.note_refuter(ply, universe.stamp(), m);
            self.local.keys[ply] = keys;
            self.stats.positions += 1;
            self.unflushed += 1;
            self.win_move = Some(universe.placement(m));
            if ply == 0 {
                self.top_tries = 1;
            }
            return Outcome::Win;
        }
        if keys.is_empty() {
            self.local.keys[ply] = keys;
            if ply == 0 {
                self.top_tries = n as u64;
            }
            return Outcome::Loss;
        }
        if ply == 1 && n >= LIKE_MIN_MOVES {
            self.put_like_answers_first(universe, &mut keys);
        }
        // A node that has to search its children moves to the narrowest set
        // that holds its moves (nodes decided by the scan never pay for it).
        if W > 1 && n <= MoveSet::<1>::CAPACITY {
            return self.renumber::<W, 1>(universe, set, keys, ply);
        }
        if W > 2 && n <= MoveSet::<2>::CAPACITY {
            return self.renumber::<W, 2>(universe, set, keys, ply);
        }
        if W > 4 && n <= MoveSet::<4>::CAPACITY {
            return self.renumber::<W, 4>(universe, set, keys, ply);
        }
        self.search_children(universe, set, keys, ply)
    }

    /// Gives the moves of a node one ply below the top that refuted the
    /// top's moves most like the one that led to it the first sort ranks,
    /// best first (`keys`: the node's scan, in local order).
    fn put_like_answers_first<const W: usize>(&self, universe: &Universe<B, W>, keys: &mut [OrderKey]) {
        let answers = self.local.like_answers.best(self.local.top_move);
        if answers[0].is_empty() {
            return;
        }
        for key in keys.iter_mut() {
            let m = (*key & 0xffff) as usize;
            if let Some(rank) = answers.iter().position(|&a| a == universe.mask(m)) {
                *key = (rank as OrderKey) << 16 | m as OrderKey;
            }
        }
    }

    /// Searches the children of the node whose moves are `set` in
    /// `universe`, in the order of `keys` (its scan's sort keys, not empty).
    fn search_children<const W: usize>(
        &mut self,
        universe: &Universe<B, W>,
        set: MoveSet<W>,
        mut keys: Vec<OrderKey>,
        ply: usize,
    ) -> Outcome
    where
        LocalBuffers<B>: Pool<B, W>,
    {
        let n = set.len() as usize;
        // The top node always searches, so that it knows its winning move.
        let key = (ply > 0 && n >= self.ctx.tt_min_moves.max(LOCAL_TT_MIN)).then(|| {
            let (reach, pieces) = universe.key(set);
            TtKey::new(reach, pieces)
        });
        let near = n <= NEAR_MAX;
        if let Some(key) = &key {
            let found = if near {
                self.stats.near_probes += 1;
                self.local.near.probe(key).inspect(|_| self.stats.near_hits += 1)
            } else {
                self.stats.tt_probes += 1;
                self.ctx.tt.probe(key).inspect(|_| self.stats.tt_hits += 1)
            };
            if let Some(win) = found {
                self.local.keys[ply] = keys;
                return if win { Outcome::Win } else { Outcome::Loss };
            }
        }
        let before = self.stats.positions;
        let mut outcome = Outcome::Loss;
        let mut tries = 0;
        // The last children that won for the opponent: an equal child is not searched again.
        let mut lost = [MoveSet::<W>::EMPTY; TWINS];
        let mut lost_count = 0;
        for i in 0..keys.len() {
            // Selection for the first moves (most nodes that win do so with
            // them), then one sort for the rest (keys are distinct: no need
            // for a stable sort).
            if i < SELECTED {
                let (best, _) = keys[i..].iter().enumerate().min_by_key(|&(_, k)| k).unwrap_or((0, &0));
                keys.swap(i, i + best);
            } else if i == SELECTED {
                keys[i..].sort_unstable();
            }
            let m = (keys[i] & 0xffff) as usize;
            let child = set.difference(universe.conflict(m));
            tries += 1;
            if lost[..lost_count.min(TWINS)].contains(&child) {
                continue;
            }
            self.stats.positions += 1;
            self.unflushed += 1;
            self.local.note_try(ply, universe.mask(m));
            match self.local(universe, child, ply + 1) {
                Outcome::Loss => {
                    self.win_move = Some(universe.placement(m));
                    self.local.note_killer(ply, universe.placement(m));
                    self.local.note_refuter(ply, universe.stamp(), m);
                    outcome = Outcome::Win;
                    break;
                }
                Outcome::Unknown => {
                    outcome = Outcome::Unknown;
                    break;
                }
                Outcome::Win => {
                    lost[lost_count % TWINS] = child;
                    lost_count += 1;
                }
            }
        }
        self.local.keys[ply] = keys;
        if ply == 0 {
            self.top_tries = tries;
        }
        if let Some(key) = &key
            && outcome != Outcome::Unknown
        {
            let table = if near { &self.local.near } else { self.ctx.tt };
            table.store(key, outcome == Outcome::Win, self.stats.positions - before);
        }
        outcome
    }
}
