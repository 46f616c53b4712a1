//! The tiling kernel: fill the first empty cell with every placement of an
//! unused piece whose lowest cell it is, prune dead regions, recurse.
//!
//! The kernel knows nothing about symmetry or threads: a [`Visit`] decides
//! what a solution is worth and whether to go on.

use std::ops::ControlFlow;

use super::tables::{Tables, TileBits};

/// What the kernel does with each tiling it finds.
pub(crate) trait Visit {
    /// Called with the placements of one tiling (indices into the tables), in the
    /// order they were placed. Returning `Break` stops the search.
    fn solution(&mut self, placed: &[u32]) -> ControlFlow<()>;
}

/// One depth-first search from a partial tiling.
pub(crate) struct Kernel<'t, B, V> {
    tables: &'t Tables<B>,
    /// The placements on the board, `placed[..depth]`: at most one per piece.
    placed: [u32; 64],
    depth: usize,
    /// Nodes visited so far.
    pub nodes: u64,
    /// The visitor.
    pub visit: V,
}

impl<'t, B: TileBits, V: Visit> Kernel<'t, B, V> {
    /// A kernel that starts from the placements `prefix` already on the board.
    pub fn new(tables: &'t Tables<B>, prefix: &[u32], visit: V) -> Self {
        let mut placed = [0; 64];
        placed[..prefix.len()].copy_from_slice(prefix);
        Kernel { tables, placed, depth: prefix.len(), nodes: 0, visit }
    }

    /// Searches every completion of the prefix: `empty` are the cells still to
    /// cover, `remaining` the pieces still available (bit `p` = piece `p`).
    pub fn run(&mut self, empty: B, remaining: u64) -> ControlFlow<()> {
        if self.tables.prunes() && self.tables.has_dead_region(empty) {
            return ControlFlow::Continue(());
        }
        self.search(empty, remaining)
    }

    fn search(&mut self, empty: B, remaining: u64) -> ControlFlow<()> {
        self.nodes += 1;
        let Some(cell) = empty.first() else {
            return self.visit.solution(&self.placed[..self.depth]);
        };
        let t = self.tables;
        let groups = t.fitting_groups(cell, empty);
        let mut pieces = remaining;
        while pieces != 0 {
            let piece = pieces.trailing_zeros() as usize;
            pieces &= pieces - 1;
            for k in t.at(cell, piece, groups) {
                let mask = t.masks[k];
                if !mask.is_subset(empty) {
                    continue;
                }
                let next = empty.difference(mask);
                if t.prunes() && t.cuts_dead_region(next, mask) {
                    continue;
                }
                self.placed[self.depth] = k as u32;
                self.depth += 1;
                let flow = self.search(next, remaining & !(1 << piece));
                self.depth -= 1;
                flow?;
            }
        }
        ControlFlow::Continue(())
    }
}

/// The children of a partial tiling, by the kernel's rule: the placements that
/// cover the first empty cell and leave no dead region. Used to split work.
pub(crate) fn children<B: TileBits>(t: &Tables<B>, empty: B, remaining: u64) -> Vec<(u32, B, u64)> {
    let Some(cell) = empty.first() else { return Vec::new() };
    let mut out = Vec::new();
    for piece in (0..t.pieces).filter(|p| remaining >> p & 1 == 1) {
        for k in t.all_at(cell, piece) {
            let mask = t.masks[k];
            if mask.is_subset(empty) {
                let next = empty.difference(mask);
                if !(t.prunes() && t.has_dead_region(next)) {
                    out.push((k as u32, next, remaining & !(1 << piece)));
                }
            }
        }
    }
    out
}
