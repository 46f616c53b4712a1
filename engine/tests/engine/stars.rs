//! Star puzzles: hand-checked unique puzzles, an impossible one, bad files,
//! and the exact-cover solver against a row-by-row brute force.

use golomb_engine::stars::{StarPuzzle, StarsError};
use proptest::prelude::*;

/// One star per row, column and region; its only solution below.
const ONE_STAR: &str = "\
HHHEECCC
HEEEECCC
AAEEEDDD
AAAEEDDD
AAAFEDDD
FFFFDDGG
FFFFDDGG
FFFFFBBG
";

/// Two stars per row, column and region; a unique solution.
const TWO_STARS: &str = "\
CCCDDAAA
CCCDDAAA
CCCDDBBB
FFCBBBBB
FFHHGGBB
FFHHHGGB
FEEHHGGB
FEEEEGGG
";

#[test]
fn a_one_star_puzzle_has_its_unique_solution() {
    let puzzle = StarPuzzle::parse(ONE_STAR).unwrap();
    let solutions = puzzle.solutions(1, None).unwrap();
    assert_eq!(solutions.len(), 1);
    let columns = [1, 5, 2, 0, 3, 7, 4, 6];
    let expected: Vec<(usize, usize)> = columns.iter().enumerate().map(|(r, &c)| (r, c)).collect();
    assert_eq!(solutions[0].stars(), expected);
    assert_eq!(solutions[0].rows()[0], ".*......");
    assert_eq!(solutions[0].to_string().lines().count(), 8);
}

#[test]
fn a_two_star_puzzle_has_its_unique_solution() {
    let puzzle = StarPuzzle::parse(TWO_STARS).unwrap();
    let solutions = puzzle.solutions(2, None).unwrap();
    assert_eq!(solutions.len(), 1);
    let rows = solutions[0].rows();
    assert_eq!(rows, [".*.*....", ".....*.*", ".*.*....", ".....*.*", "*.*.....", "....*.*.", "*.*.....", "....*.*."]);
    // Each region holds two stars.
    for region in "ABCDEFGH".chars() {
        let stars = solutions[0].stars().iter().filter(|&&(r, c)| puzzle.region(r, c) == region).count();
        assert_eq!(stars, 2, "region {region}");
    }
    // The same grid with one star each has other answers or none, but not this one.
    assert!(puzzle.solutions(1, None).unwrap().iter().all(|s| s.rows() != rows));
}

#[test]
fn an_impossible_puzzle_has_no_solution() {
    // Regions A and B both lie in the top row, which holds only one star.
    let puzzle = StarPuzzle::parse("AAABB\nCCCCC\nDDDDD\nEEEEE\nEEEEE\n").unwrap();
    assert_eq!(puzzle.solutions(1, None).unwrap(), vec![]);
    // Two cells of a 2x2 grid always touch.
    assert_eq!(StarPuzzle::parse("AB\nAB").unwrap().solutions(1, None).unwrap(), vec![]);
}

#[test]
fn bad_files_name_the_line() {
    assert_eq!(StarPuzzle::parse("\n  \n"), Err(StarsError::Empty));
    assert_eq!(StarPuzzle::parse("ABC\nABC\nAB\n"), Err(StarsError::Ragged { line: 3, found: 2, expected: 3 }));
    assert_eq!(StarPuzzle::parse("ABC\nA-C\nABC\n"), Err(StarsError::BadChar { line: 2, column: 2, ch: '-' }));
    let err = StarPuzzle::parse("AAB\nAAB\nAAB\n").unwrap_err();
    assert_eq!(err, StarsError::RegionCount { found: 2, size: 3, letters: "AB".into() });
    assert!(err.to_string().contains("2 regions"), "{err}");
    let ragged = StarPuzzle::parse("AB\n\nA").unwrap_err().to_string();
    assert!(ragged.contains("line 3"), "{ragged}");
    // Spaces between letters are allowed.
    assert!(StarPuzzle::parse("A B\nA B\n").is_ok());
    let puzzle = StarPuzzle::parse(ONE_STAR).unwrap();
    assert!(matches!(puzzle.solutions(0, None), Err(StarsError::BadStarCount { .. })));
    assert!(matches!(puzzle.solutions(5, None), Err(StarsError::BadStarCount { max: 4, .. })));
}

/// Counts solutions row by row, checking rows, columns, regions and touching directly.
fn brute_force(regions: &[usize], n: usize, k: usize) -> u64 {
    let rows: Vec<Vec<usize>> = (0u32..1 << n)
        .filter(|m| m.count_ones() as usize == k && m & (m >> 1) == 0)
        .map(|m| (0..n).filter(|c| m >> c & 1 == 1).collect())
        .collect();
    fn go(
        r: usize,
        prev: &[usize],
        cols: &mut Vec<usize>,
        regs: &mut Vec<usize>,
        ctx: (&[Vec<usize>], &[usize], usize, usize),
    ) -> u64 {
        let (rows, regions, n, k) = ctx;
        if r == n {
            return u64::from(cols.iter().all(|&c| c == k) && regs.iter().all(|&c| c == k));
        }
        let mut total = 0;
        for row in rows {
            if row.iter().any(|&c| prev.iter().any(|&p| c.abs_diff(p) <= 1)) {
                continue;
            }
            for &c in row {
                cols[c] += 1;
                regs[regions[r * n + c]] += 1;
            }
            if cols.iter().all(|&c| c <= k) && regs.iter().all(|&c| c <= k) {
                total += go(r + 1, row, cols, regs, ctx);
            }
            for &c in row {
                cols[c] -= 1;
                regs[regions[r * n + c]] -= 1;
            }
        }
        total
    }
    go(0, &[], &mut vec![0; n], &mut vec![0; n], (&rows, regions, n, k))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn exact_cover_equals_brute_force(n in 4usize..=7, two in any::<bool>(), labels in prop::collection::vec(0usize..7, 49)) {
        let k = if two && n >= 6 { 2 } else { 1 };
        let mut regions: Vec<usize> = labels[..n * n].iter().map(|l| l % n).collect();
        // Every region letter appears: the first cells of the diagonal take 0..n.
        for i in 0..n {
            regions[i * n + i] = i;
        }
        let text: String = regions
            .chunks(n)
            .map(|row| row.iter().map(|&r| (b'A' + r as u8) as char).collect::<String>() + "\n")
            .collect();
        let puzzle = StarPuzzle::parse(&text).unwrap();
        // Region letters are numbered in order of appearance; count in the file's terms.
        let found = puzzle.solve(k as u32, |_| std::ops::ControlFlow::Continue(())).unwrap();
        prop_assert_eq!(found, brute_force(&regions, n, k));
    }
}
