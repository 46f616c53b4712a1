//! Tilings: the classic pentomino rectangle counts, the bitboard tiler against
//! the generic exact-cover solver and against brute-force orbit counting, and
//! parallel against sequential.

use std::collections::BTreeSet;

use golomb_engine::tiling::{Each, TileBits, Tiler, TilingCount, TilingError};
use golomb_engine::{Bitboard, Bits, Board, BoardSpec, Game, PieceSet, PlacementId, WideBitboard};
use proptest::prelude::*;

fn game<B: Bits>(size: &str, blocked: &str, order: usize) -> Game<B> {
    let board = Board::from_spec(&BoardSpec::parse(size, blocked).unwrap()).unwrap();
    Game::new(board, PieceSet::of_order(order)).unwrap()
}

fn count<B: TileBits>(g: &Game<B>, each: Each) -> TilingCount {
    Tiler::new(g, each).unwrap().count()
}

const HOLE: &str = "d4,e4,d5,e5";

#[test]
fn pentomino_rectangles_match_the_known_counts() {
    for (size, blocked, found, up_to_symmetry) in [
        ("6x10", "", 9356, 2339),
        ("5x12", "", 4040, 1010),
        ("4x15", "", 1472, 368),
        ("3x20", "", 8, 2),
        ("8x8", HOLE, 520, 65),
    ] {
        let c = count(&game::<Bitboard>(size, blocked, 5), Each::Exactly);
        assert_eq!((c.solutions, c.solutions_up_to_symmetry), (found, up_to_symmetry), "{size} {blocked}");
    }
}

#[test]
fn layout_and_width_do_not_change_the_counts() {
    // Wide boards are laid out by columns; the wide bitboard has its own shifts.
    let c = count(&game::<Bitboard>("20x3", "", 5), Each::Exactly);
    assert_eq!((c.solutions, c.solutions_up_to_symmetry), (8, 2));
    let c = count(&game::<WideBitboard>("3x20", "", 5), Each::Exactly);
    assert_eq!((c.solutions, c.solutions_up_to_symmetry), (8, 2));
    let c = count(&game::<WideBitboard>("8x8", HOLE, 5), Each::Exactly);
    assert_eq!((c.solutions, c.solutions_up_to_symmetry), (520, 65));
}

#[test]
fn parallel_counts_equal_sequential_ones() {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
    for (size, blocked) in [("5x12", ""), ("8x8", HOLE), ("3x20", "")] {
        let g = game::<Bitboard>(size, blocked, 5);
        let tiler = Tiler::new(&g, Each::Exactly).unwrap();
        let (serial, parallel) = (tiler.count(), pool.install(|| tiler.count_parallel()));
        assert_eq!(
            (serial.solutions, serial.solutions_up_to_symmetry),
            (parallel.solutions, parallel.solutions_up_to_symmetry),
            "{size}"
        );
    }
}

#[test]
fn exact_cover_agrees_on_the_small_rectangles() {
    for (size, blocked) in [("3x20", ""), ("4x15", ""), ("8x8", HOLE)] {
        let g = game::<Bitboard>(size, blocked, 5);
        let tiler = Tiler::new(&g, Each::Exactly).unwrap();
        let (fast, cover) = (tiler.count(), tiler.count_by_exact_cover());
        assert_eq!(
            (fast.solutions, fast.solutions_up_to_symmetry),
            (cover.solutions, cover.solutions_up_to_symmetry),
            "{size}"
        );
    }
}

#[test]
fn listed_tilings_are_tilings_and_stop_at_the_limit() {
    let g = game::<Bitboard>("3x20", "", 5);
    let tiler = Tiler::new(&g, Each::Exactly).unwrap();
    let all = tiler.solutions(None);
    assert_eq!(all.len(), 8);
    for ids in &all {
        assert_valid(&g, ids, Each::Exactly);
    }
    assert_eq!(tiler.solutions(Some(3)).len(), 3);
    assert_eq!(tiler.solutions(Some(3))[..], all[..3]);
    let drawing = tiler.draw(&all[0]);
    assert_eq!(drawing.lines().count(), 20);
    assert!(drawing.lines().all(|l| l.len() == 3), "{drawing}");
    for letter in "FILNPTUVWXYZ".chars() {
        assert_eq!(drawing.chars().filter(|&c| c == letter).count(), 5, "{drawing}");
    }
}

#[test]
fn each_piece_at_most_once_allows_subsets() {
    // A 5x4 rectangle takes four distinct pentominoes of the twelve.
    let g = game::<Bitboard>("5x4", "", 5);
    let tiler = Tiler::new(&g, Each::AtMost).unwrap();
    let (fast, cover) = (tiler.count(), tiler.count_by_exact_cover());
    assert!(fast.solutions > 0);
    assert_eq!((fast.solutions, fast.solutions_up_to_symmetry), (cover.solutions, cover.solutions_up_to_symmetry));
    for ids in tiler.solutions(None) {
        assert_valid(&g, &ids, Each::AtMost);
    }
    assert_eq!(Tiler::new(&g, Each::Exactly).err(), Some(TilingError::AreaMismatch { cells: 20, piece_cells: 60 }));
    // Two pentominoes cannot tile 2x5 without using one piece twice.
    let strip = game::<Bitboard>("5x2", "", 5);
    assert_eq!(count(&strip, Each::AtMost).solutions, 0);
    assert!(matches!(Tiler::with_pieces(&g, Each::AtMost, 1 << 12), Err(TilingError::UnknownPiece { .. })));
}

/// Every free cell covered once, by distinct pieces, all of them when `Exactly`.
fn assert_valid<B: Bits>(g: &Game<B>, ids: &[PlacementId], each: Each) {
    let mut covered = B::EMPTY;
    let mut pieces = BTreeSet::new();
    for &id in ids {
        let p = g.placement(id);
        assert!(p.mask.is_disjoint(covered));
        covered = covered.union(p.mask);
        assert!(pieces.insert(p.piece), "piece {} used twice", p.piece);
    }
    assert_eq!(covered, g.playable());
    if each == Each::Exactly {
        assert_eq!(pieces.len(), g.pieces().len());
    }
}

/// Orbits counted the slow way: the least image of each tiling, collected.
fn orbits_by_canonical_form<B: TileBits>(tiler: &Tiler<'_, B>) -> u64 {
    let g = tiler.game();
    let mut seen = BTreeSet::new();
    tiler.for_each(|ids| {
        let canonical = (0..g.board().symmetries().len())
            .map(|s| {
                let mut image: Vec<PlacementId> = ids.iter().map(|&id| g.symmetric_placement(s, id)).collect();
                image.sort_unstable();
                image
            })
            .min();
        seen.insert(canonical);
        std::ops::ControlFlow::Continue(())
    });
    seen.len() as u64
}

#[derive(Debug, Clone)]
struct Case {
    width: usize,
    height: usize,
    order: usize,
    pieces: u64,
    exactly: bool,
    shuffle: Vec<usize>,
}

fn case() -> impl Strategy<Value = Case> {
    (2usize..=6, 2usize..=6, 3usize..=5, any::<u64>(), any::<bool>(), prop::collection::vec(0usize..1000, 36)).prop_map(
        |(width, height, order, pieces, exactly, shuffle)| Case { width, height, order, pieces, exactly, shuffle },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// The tiler equals exact cover and brute-force orbit counting on random
    /// small boards with blocked cells and random piece subsets.
    #[test]
    fn tiler_equals_exact_cover(c in case()) {
        let set = PieceSet::of_order(c.order);
        let allowed = c.pieces & ((1u64 << set.len()) - 1);
        let area: usize = (0..set.len()).filter(|p| allowed >> p & 1 == 1).map(|p| set.piece(p).size()).sum();
        let cells = c.width * c.height;
        // Exactly: block just enough cells for the areas to match. At most: block a few.
        let blocks = if c.exactly { cells.checked_sub(area) } else { Some(c.shuffle[0] % 4) };
        prop_assume!(blocks.is_some_and(|b| b < cells));
        let mut order: Vec<usize> = (0..cells).collect();
        order.sort_by_key(|&i| (c.shuffle[i % c.shuffle.len()], i));
        let probe = Board::new(c.width, c.height).unwrap();
        let blocked: Vec<String> = order[..blocks.unwrap_or(0)].iter().map(|&i| probe.cell_name(i)).collect();
        let board = Board::from_spec(&BoardSpec { width: c.width, height: c.height, blocked }).unwrap();
        let g = Game::<Bitboard>::new(board, set).unwrap();
        let each = if c.exactly { Each::Exactly } else { Each::AtMost };
        let tiler = Tiler::with_pieces(&g, each, allowed).unwrap();
        let fast = tiler.count();
        let cover = tiler.count_by_exact_cover();
        prop_assert_eq!(fast.solutions, cover.solutions);
        prop_assert_eq!(fast.solutions_up_to_symmetry, cover.solutions_up_to_symmetry);
        prop_assert_eq!(fast.solutions_up_to_symmetry, orbits_by_canonical_form(&tiler));
        prop_assert_eq!(tiler.for_each(|_| std::ops::ControlFlow::Continue(())), fast.solutions);
        let wide = Game::<WideBitboard>::new(g.board().clone(), PieceSet::of_order(c.order)).unwrap();
        prop_assert_eq!(Tiler::with_pieces(&wide, each, allowed).unwrap().count(), fast);
    }
}

#[test]
fn shares_add_up_to_the_whole_count() {
    use golomb_engine::tiling::ShareCount;
    for (size, blocked, each) in
        [("6x5", "", Each::AtMost), ("8x8", "d4,e4,d5,e5", Each::Exactly), ("3x20", "", Each::Exactly)]
    {
        let board = Board::from_spec(&BoardSpec::parse(size, blocked).unwrap()).unwrap();
        let game: Game<WideBitboard> = Game::new(board, PieceSet::of_order(5)).unwrap();
        let tiler = Tiler::new(&game, each).unwrap();
        let whole = tiler.count();
        for depth in [0, 1, 2] {
            let shares = tiler.shares(depth);
            let parts: Vec<ShareCount> = shares.iter().map(|s| tiler.count_share(s).unwrap()).collect();
            let total = tiler.total_of(parts);
            assert_eq!(
                (total.solutions, total.solutions_up_to_symmetry),
                (whole.solutions, whole.solutions_up_to_symmetry),
                "{size} depth {depth}"
            );
        }
    }
}
