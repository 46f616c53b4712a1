//! The opening facts of the 8x8 pentomino game (Orman 1996), found by
//! computing every opening's number of replies.

use golomb_engine::{Bitboard, Board, Game, PieceSet, Position};

#[test]
fn the_most_restrictive_openings_are_an_l_then_an_n() {
    let game = Game::<Bitboard>::new(Board::new(8, 8).unwrap(), PieceSet::of_order(5)).unwrap();
    let start = Position::empty();
    let openings = game.legal_moves(&start);
    assert_eq!(openings.len(), 2308);
    assert_eq!(game.placements_up_to_symmetry(), 296);

    let replies: Vec<(usize, &str)> = openings
        .iter()
        .map(|&id| {
            let piece = game.pieces().piece(game.placement(id).piece as usize).name();
            (game.count_moves(&start.after(game.placement(id))), piece)
        })
        .collect();
    let fewest = replies.iter().min().unwrap();
    assert_eq!(*fewest, (1181, "L"));
    let fewest_n = replies.iter().filter(|(_, p)| *p == "N").min().unwrap();
    assert_eq!(fewest_n.0, 1197);
    // The L has the fewest of all, the N the next fewest of any piece.
    let fewest_other = replies.iter().filter(|(_, p)| *p != "L" && *p != "N").min().unwrap();
    assert!(fewest_other.0 > 1197, "{fewest_other:?}");
    let most = replies.iter().max().unwrap();
    assert!(most.0 < 2100, "after the first move there are at most about 2000 replies: {most:?}");
}
