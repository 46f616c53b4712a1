//! What the heuristic player sees in a position, after the Delphi program's
//! notes: **chains** (maximal edge-connected regions of empty cells) and the
//! pieces that still fit in each, **dead** cells (in chains no remaining
//! piece fits), **sanctuaries** (chains only one remaining piece can use, and
//! only once) and **mobility** (the placements each side has).
//!
//! Every legal placement lies inside exactly one chain (pieces are
//! connected), so one pass over the legal placements tells which pieces fit
//! in which chain.

use crate::game::Game;
use crate::game::bitboard::Bits;
use crate::game::position::Position;

use super::rules::{Rules, Side};

/// One chain: a maximal connected region of empty playable cells.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chain<B> {
    /// Its cells.
    pub cells: B,
    /// The pieces left (by anybody) with a placement inside it.
    pub fits: u64,
    /// The placements inside it.
    pub placements: u32,
}

impl<B: Bits> Chain<B> {
    /// The most pieces of `order` cells that could ever go in: limited by
    /// its area and by the pieces that fit.
    pub fn capacity(&self, order: usize) -> u32 {
        (self.cells.len() / order.max(1) as u32).min(self.fits.count_ones())
    }

    /// The one piece this chain is a sanctuary for: the only piece left
    /// that fits, in a chain too small to take two pieces.
    pub fn sanctuary(&self, order: usize) -> Option<usize> {
        (self.fits.count_ones() == 1 && (self.cells.len() as usize) < 2 * order)
            .then(|| self.fits.trailing_zeros() as usize)
    }
}

/// The chains of a position and the counts the evaluation uses.
#[derive(Clone, Debug)]
pub struct Features<B> {
    /// The chains, in order of their lowest cell.
    pub chains: Vec<Chain<B>>,
    /// Empty cells in chains where no piece left fits.
    pub dead_cells: u32,
    /// Placements each side may play, first player first.
    pub mobility: [u32; 2],
    /// The distinct pieces that have a sanctuary (a piece is counted once,
    /// however many sanctuaries it has).
    pub sanctuary_pieces: u64,
    /// The size of the pieces (their order; the largest piece, for mixed sets).
    pub order: usize,
}

impl<B: Bits> Features<B> {
    /// Looks at `pos` under `rules`.
    pub fn of(game: &Game<B>, rules: &Rules, pos: &Position<B>) -> Features<B> {
        let order = game.pieces().pieces().iter().map(|p| p.size()).max().unwrap_or(1);
        let (chains, chain_of) = find_chains(game, pos);
        let mut chains: Vec<Chain<B>> =
            chains.into_iter().map(|cells| Chain { cells, fits: 0, placements: 0 }).collect();
        let hands = [rules.pieces_of(game, Side::First, pos), rules.pieces_of(game, Side::Second, pos)];
        let mut mobility = [0u32; 2];
        let mut left = hands[0] | hands[1];
        while left != 0 {
            let piece = left.trailing_zeros() as usize;
            left &= left - 1;
            let bit = 1u64 << piece;
            for id in game.placements_of(piece) {
                let mask = game.placement(id).mask;
                if !mask.is_disjoint(pos.occupied()) {
                    continue;
                }
                let Some(first) = mask.first() else { continue };
                let chain = &mut chains[chain_of[first] as usize];
                chain.fits |= bit;
                chain.placements += 1;
                for (side, hand) in hands.iter().enumerate() {
                    if hand & bit != 0 {
                        mobility[side] += 1;
                    }
                }
            }
        }
        let dead_cells = chains.iter().filter(|c| c.fits == 0).map(|c| c.cells.len()).sum();
        let sanctuary_pieces = chains.iter().filter_map(|c| c.sanctuary(order)).fold(0u64, |s, p| s | 1 << p);
        Features { chains, dead_cells, mobility, sanctuary_pieces, order }
    }

    /// An estimate of how many more pieces will be placed: each chain takes
    /// at most its [`Chain::capacity`], and no more pieces than are left to
    /// fit anywhere. With `sanctuaries`, a piece with a sanctuary counts as
    /// one sure move and is taken out of the other chains' counts (it cannot
    /// be played twice), which the plain count would double-count.
    pub fn moves_left(&self, sanctuaries: bool) -> u32 {
        let all_fit = self.chains.iter().fold(0u64, |s, c| s | c.fits);
        if !sanctuaries {
            let capacity: u32 = self.chains.iter().map(|c| c.capacity(self.order)).sum();
            return capacity.min(all_fit.count_ones());
        }
        let sure = self.sanctuary_pieces;
        let mut contested = 0;
        for chain in self.chains.iter().filter(|c| c.sanctuary(self.order).is_none()) {
            let rest = Chain { fits: chain.fits & !sure, ..chain.clone() };
            contested += rest.capacity(self.order);
        }
        sure.count_ones() + contested.min((all_fit & !sure).count_ones())
    }

    /// The sanctuaries of each side's pieces (hands), first player first;
    /// with the common pile both sides share them.
    pub fn sanctuaries_of(&self, game: &Game<B>, rules: &Rules, pos: &Position<B>) -> [u32; 2] {
        [Side::First, Side::Second].map(|side| (self.sanctuary_pieces & rules.pieces_of(game, side, pos)).count_ones())
    }
}

/// The chains of empty playable cells at `pos` (flood fill), and each cell's
/// chain number (`u16::MAX` for cells in none).
pub fn find_chains<B: Bits>(game: &Game<B>, pos: &Position<B>) -> (Vec<B>, Vec<u16>) {
    let board = game.board();
    let empty = game.playable().difference(pos.occupied());
    let mut chain_of = vec![u16::MAX; board.cells()];
    let mut chains = Vec::new();
    let mut stack = Vec::new();
    for start in empty.cells() {
        if chain_of[start] != u16::MAX {
            continue;
        }
        let id = chains.len() as u16;
        let mut cells = B::EMPTY;
        chain_of[start] = id;
        stack.push(start);
        while let Some(cell) = stack.pop() {
            cells = cells.with(cell);
            let (x, y) = board.xy(cell);
            for (nx, ny) in [(x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)] {
                if nx < 0 || ny < 0 || nx as usize >= board.width() || ny as usize >= board.height() {
                    continue;
                }
                let n = board.cell(nx as usize, ny as usize);
                if empty.contains(n) && chain_of[n] == u16::MAX {
                    chain_of[n] = id;
                    stack.push(n);
                }
            }
        }
        chains.push(cells);
    }
    (chains, chain_of)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::bitboard::Bitboard;
    use crate::game::board::{Board, BoardSpec};
    use crate::game::pieces::PieceSet;

    fn game(size: &str, blocked: &str, order: usize) -> Game<Bitboard> {
        let board = Board::from_spec(&BoardSpec::parse(size, blocked).unwrap()).unwrap();
        Game::new(board, PieceSet::of_order(order)).unwrap()
    }

    #[test]
    fn chains_split_the_empty_cells() {
        // A wall down column b splits a 5x5 board into a 1-wide and a 3-wide strip.
        let g = game("5x5", "b1,b2,b3,b4,b5", 4);
        let f = Features::of(&g, &Rules::CommonPile, &Position::empty());
        assert_eq!(f.chains.len(), 2);
        assert_eq!(f.chains[0].cells.len(), 5, "chains come in order of their lowest cell: a1 first");
        assert_eq!(f.chains[1].cells.len(), 15);
        assert_eq!(f.dead_cells, 0);
        // Only I fits the 1-wide strip: a sanctuary (5 cells cannot take two tetrominoes).
        let i = g.pieces().find("I").unwrap();
        assert_eq!(f.chains[0].fits, 1 << i);
        assert_eq!(f.chains[1].fits, g.all_pieces());
        assert_eq!(f.sanctuary_pieces, 1 << i);
        assert_eq!(f.chains[1].capacity(4), 3);
        assert_eq!(f.mobility[0], f.mobility[1]);
        assert_eq!(f.mobility[0] as usize, g.count_moves(&Position::empty()));
    }

    #[test]
    fn dead_cells_and_sanctuaries_on_a_hand_made_position() {
        // 5x5 tetrominoes. Blocked cells wall off three pockets:
        //   a1..a4 (a column of 4: only I fits, and once) -> a sanctuary for I;
        //   e1,e2 (2 cells) -> dead;
        //   the rest.
        let g = game("5x5", "b1,b2,b3,b4,a5,d1,d2,e3", 4);
        let f = Features::of(&g, &Rules::CommonPile, &Position::empty());
        let i = g.pieces().find("I").unwrap();
        assert_eq!(f.sanctuary_pieces, 1 << i);
        assert_eq!(f.dead_cells, 2, "{:?}", f.chains);
        // A sanctuary is one sure move; I no longer counts in the big chain.
        let big = f.chains.iter().find(|c| c.cells.len() > 4).unwrap();
        assert!(big.fits >> i & 1 == 1);
        let plain = f.moves_left(false);
        let with = f.moves_left(true);
        assert!(with >= 1 && with <= plain + 1, "{with} {plain}");
        assert_eq!(f.sanctuaries_of(&g, &Rules::CommonPile, &Position::empty()), [1, 1]);
        let hands = crate::hands::Hands::new(1 << i, g.all_pieces() & !(1 << i)).unwrap();
        let hands = Rules::Hands(crate::hands::Setup::of_hands(hands));
        assert_eq!(f.sanctuaries_of(&g, &hands, &Position::empty()), [1, 0]);
    }

    #[test]
    fn a_full_board_has_no_chains() {
        let g = game("4x2", "", 4);
        // O cannot take a 1x4 row.
        assert!(g.play_line(Position::empty(), "I:a1,b1,c1,d1;O:a2,b2,c2,d2").is_err());
        let (pos, _) = g.play_line(Position::empty(), "I:a1,b1,c1,d1").unwrap();
        let f = Features::of(&g, &Rules::CommonPile, &pos);
        assert_eq!(f.chains.len(), 1);
        assert_eq!(f.moves_left(true), 0, "the I is used: nothing else fits a 1x4 row");
        assert_eq!(f.dead_cells, 4);
    }
}
/// How often the sanctuary accounting changes the moves-left estimate on
/// 8x8 pentomino positions from random playouts: a measurement for the
/// README, not a check (`cargo test -p golomb-engine --lib
/// how_often_sanctuaries_change_the_estimate -- --ignored --nocapture`).
#[cfg(test)]
mod measure {
    use super::*;
    use crate::game::bitboard::Bitboard;
    use crate::game::board::Board;
    use crate::game::pieces::PieceSet;
    use crate::hands::rng::SplitMix64 as Rng;

    #[test]
    #[ignore = "a measurement: run by hand"]
    fn how_often_sanctuaries_change_the_estimate() {
        let g = Game::<Bitboard>::new(Board::new(8, 8).unwrap(), PieceSet::of_order(5)).unwrap();
        let mut rng = Rng::new(1);
        let (mut positions, mut with_sanctuary, mut differ, mut parity_differs) = (0, 0, 0, 0);
        for _ in 0..300 {
            let mut pos = Position::empty();
            loop {
                let moves = g.legal_moves(&pos);
                if moves.is_empty() {
                    break;
                }
                pos.play_unchecked(g.placement(moves[rng.below(moves.len())]));
                let f = Features::of(&g, &Rules::CommonPile, &pos);
                positions += 1;
                with_sanctuary += usize::from(f.sanctuary_pieces != 0);
                let (with, plain) = (f.moves_left(true), f.moves_left(false));
                differ += usize::from(with != plain);
                parity_differs += usize::from(with % 2 != plain % 2);
            }
        }
        println!(
            "{positions} positions, {with_sanctuary} with a sanctuary, estimate changed in {differ}, its parity in {parity_differs}"
        );
        assert!(positions > 0);
    }
}
