//! Property tests of positions, move generation, symmetry and notation on
//! random small boards, against slow independent checks.

use std::collections::BTreeSet;

use golomb_engine::{Bits, Board, BoardSpec, Game, PieceSet, PlacementId, Position, WideBitboard};
use proptest::prelude::*;

/// A random game and a random line of legal moves in it.
#[derive(Debug, Clone)]
struct Scenario {
    width: usize,
    height: usize,
    order: usize,
    blocked: Vec<usize>,
    choices: Vec<usize>,
}

fn scenario() -> impl Strategy<Value = Scenario> {
    (
        3usize..=8,
        3usize..=8,
        4usize..=5,
        prop::collection::vec(0usize..64, 0..4),
        prop::collection::vec(0usize..10_000, 0..8),
    )
        .prop_map(|(width, height, order, blocked, choices)| {
            let cells = width * height;
            let blocked = blocked.into_iter().map(|c| c % cells).collect::<BTreeSet<_>>().into_iter().collect();
            Scenario { width, height, order, blocked, choices }
        })
}

/// Builds the game (on the wide bitboard when `wide`) and plays the scenario's line.
fn setup<B: Bits>(s: &Scenario) -> (Game<B>, Position<B>, Vec<PlacementId>) {
    let probe = Board::new(s.width, s.height).unwrap();
    let names: Vec<String> = s.blocked.iter().map(|&c| probe.cell_name(c)).collect();
    let board = Board::from_spec(&BoardSpec { width: s.width, height: s.height, blocked: names }).unwrap();
    let game = Game::<B>::new(board, PieceSet::of_order(s.order)).unwrap();
    let mut pos = Position::empty();
    let mut line = Vec::new();
    for &choice in &s.choices {
        let moves = game.legal_moves(&pos);
        if moves.is_empty() {
            break;
        }
        let id = moves[choice % moves.len()];
        pos.play(&game, id).unwrap();
        line.push(id);
    }
    (game, pos, line)
}

/// Every legal move as (piece, sorted cells), found without the placement tables:
/// each unused piece, each orientation, each offset, checked cell by cell.
fn slow_legal_moves<B: Bits>(game: &Game<B>, line: &[PlacementId]) -> BTreeSet<(u8, Vec<usize>)> {
    let board = game.board();
    let mut covered = vec![false; board.cells()];
    let mut used = BTreeSet::new();
    for &id in line {
        let p = game.placement(id);
        used.insert(p.piece);
        for c in p.mask.cells() {
            covered[c] = true;
        }
    }
    let mut out = BTreeSet::new();
    for (pid, piece) in game.pieces().pieces().iter().enumerate() {
        if used.contains(&(pid as u8)) {
            continue;
        }
        for shape in piece.orientations() {
            for oy in 0..board.height() as i32 {
                for ox in 0..board.width() as i32 {
                    let cells: Option<Vec<usize>> = shape
                        .squares()
                        .iter()
                        .map(|&(x, y)| {
                            let (x, y) = (x + ox, y + oy);
                            let inside = (x as usize) < board.width() && (y as usize) < board.height();
                            inside.then(|| board.cell(x as usize, y as usize))
                        })
                        .collect();
                    if let Some(mut cells) = cells
                        && cells.iter().all(|&c| !covered[c] && !board.is_blocked(c))
                    {
                        cells.sort_unstable();
                        out.insert((pid as u8, cells));
                    }
                }
            }
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn play_then_undo_restores_the_position(s in scenario()) {
        let (game, pos, line) = setup::<WideBitboard>(&s);
        let mut back = pos;
        for &id in line.iter().rev() {
            back.undo(game.placement(id));
        }
        prop_assert_eq!(back, Position::empty());
        let mut replay = Position::empty();
        for &id in &line {
            let before = replay;
            replay.play(&game, id).unwrap();
            replay.undo(game.placement(id));
            prop_assert_eq!(replay, before);
            replay.play(&game, id).unwrap();
        }
        prop_assert_eq!(replay, pos);
    }

    #[test]
    fn move_generation_equals_a_slow_check(s in scenario()) {
        let (game, pos, line) = setup::<WideBitboard>(&s);
        let generated: BTreeSet<(u8, Vec<usize>)> = game
            .legal_moves(&pos)
            .into_iter()
            .map(|id| (game.placement(id).piece, game.placement(id).mask.cells().collect()))
            .collect();
        prop_assert_eq!(generated.len(), game.count_moves(&pos), "no move generated twice");
        prop_assert_eq!(generated, slow_legal_moves(&game, &line));
    }

    #[test]
    fn narrow_and_wide_bitboards_agree(s in scenario()) {
        let (narrow, npos, nline) = setup::<golomb_engine::Bitboard>(&s);
        let (wide, wpos, wline) = setup::<WideBitboard>(&s);
        prop_assert_eq!(&nline, &wline);
        prop_assert_eq!(narrow.legal_moves(&npos), wide.legal_moves(&wpos));
        prop_assert_eq!(narrow.line_name(&nline), wide.line_name(&wline));
    }

    #[test]
    fn symmetric_positions_have_equal_canonical_forms(s in scenario(), pick in 0usize..8) {
        let (game, pos, line) = setup::<WideBitboard>(&s);
        let sym = pick % game.board().symmetries().len();
        let mut image = Position::empty();
        for &id in &line {
            image.play(&game, game.symmetric_placement(sym, id)).unwrap();
        }
        prop_assert_eq!(image, game.symmetric_position(sym, &pos));
        prop_assert_eq!(game.canonical(&image), game.canonical(&pos));
        prop_assert_eq!(game.count_moves(&image), game.count_moves(&pos));
    }

    #[test]
    fn notation_round_trips(s in scenario(), rotate in 0usize..5) {
        let (game, pos, line) = setup::<WideBitboard>(&s);
        let text = game.line_name(&line);
        let (parsed, ids) = game.play_line(Position::empty(), &text).unwrap();
        prop_assert_eq!(&ids, &line);
        prop_assert_eq!(parsed, pos);
        prop_assert_eq!(game.line_name(&ids), text);
        for &id in &line {
            // Cells may be written in any order.
            let name = game.move_name(id);
            let (piece, cells) = name.split_once(':').unwrap();
            let mut cells: Vec<&str> = cells.split(',').collect();
            let k = rotate % cells.len();
            cells.rotate_left(k);
            cells.reverse();
            prop_assert_eq!(game.parse_move(&format!("{piece}:{}", cells.join(","))).unwrap(), id);
        }
    }
}
