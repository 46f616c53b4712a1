//! Tilings as an exact-cover problem, for the generic solver in
//! [`crate::puzzles::exact_cover`]: one primary item per free cell, one item per
//! piece (primary when each piece is used exactly once, secondary when at
//! most once), and one option per placement.

use std::ops::ControlFlow;

use super::tables::TileBits;
use super::{Each, Tiler, TilingCount};
use crate::game::PlacementId;
use crate::puzzles::exact_cover::{ExactCover, ItemId};

impl<B: TileBits> Tiler<'_, B> {
    /// The exact-cover matrix of this tiling problem, and the game placement of each option.
    pub fn exact_cover(&self) -> (ExactCover, Vec<PlacementId>) {
        let game = self.game;
        let board = game.board();
        let mut problem = ExactCover::new();
        let mut cell_item = vec![ItemId::MAX; board.cells()];
        for cell in game.playable().cells() {
            cell_item[cell] = problem.add_primary(1).unwrap_or(ItemId::MAX);
        }
        let mut piece_item = vec![ItemId::MAX; game.pieces().len()];
        for (_, item) in piece_item.iter_mut().enumerate().filter(|(p, _)| self.allowed >> p & 1 == 1) {
            *item = match self.each {
                Each::Exactly => problem.add_primary(1).unwrap_or(ItemId::MAX),
                Each::AtMost => problem.add_secondary(),
            };
        }
        let mut options = Vec::new();
        for (id, p) in game.placements().iter().enumerate() {
            if self.allowed >> p.piece & 1 == 0 {
                continue;
            }
            let items: Vec<ItemId> =
                p.mask.cells().map(|c| cell_item[c]).chain([piece_item[p.piece as usize]]).collect();
            // Placements only cover playable cells, and their piece is allowed, so
            // every item exists and appears once.
            if problem.add_option(&items).is_ok() {
                options.push(id as PlacementId);
            }
        }
        (problem, options)
    }

    /// Counts the tilings with the generic exact-cover solver, up to symmetry by
    /// the stabilizer of each solution (Burnside's lemma).
    pub fn count_by_exact_cover(&self) -> TilingCount {
        let (problem, options) = self.exact_cover();
        let mut fixed = 0u64;
        let mut ids = Vec::new();
        let stats = problem.solve(|chosen| {
            ids.clear();
            ids.extend(chosen.iter().map(|&o| options[o as usize]));
            fixed += self.stabilizer_size(&ids) as u64;
            ControlFlow::Continue(())
        });
        let group = self.game.board().symmetries().len() as u64;
        TilingCount { solutions: stats.solutions, solutions_up_to_symmetry: fixed / group, nodes: stats.nodes }
    }
}
