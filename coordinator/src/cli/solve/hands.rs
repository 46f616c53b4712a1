//! `golomb solve --rules hands` and `--rules draft`: the score of a hands
//! game (or of a draft and the hands game after it) under best play, a best
//! move, and the board drawn as `golomb solve` draws it.

use std::io::Write;
use std::time::Duration;

use anyhow::Context as _;
use golomb_engine::hands::draft::solve_draft;
use golomb_engine::hands::setup::set_name;
use golomb_engine::hands::{HandsConfig, HandsGame, HandsSolver, HandsValue, Scores, Setup};
use golomb_engine::{Bits, Game, Player, with_game};
use serde::Serialize;

use super::args::{ProofSummary, SolveArgs};
use crate::cli::args::thread_pool;
use crate::cli::output::{self, OutputFile, Report};
use crate::cli::rules_args::Rules;

/// The hands of each player, by name.
#[derive(Serialize)]
struct HandsNames {
    first: Vec<String>,
    second: Vec<String>,
}

/// A draft's line of picks.
#[derive(Serialize)]
struct DraftSummary {
    first_pick: Player,
    /// One best sequence of picks, alternating from `first_pick`.
    picks: Vec<String>,
    /// Hands games solved during the draft.
    games: usize,
}

/// A solved (or abandoned) hands or draft game.
#[derive(Serialize)]
struct HandsSolveOutput {
    rules: Rules,
    board: String,
    pieces: String,
    hands: Option<HandsNames>,
    neutral: Option<String>,
    moves: String,
    side_to_move: Player,
    /// Pieces placed so far.
    placed: Scores,
    /// Final score difference, side to move minus the other, under best play (pieces already placed included).
    score: Option<i32>,
    value: HandsValue,
    best_move: Option<String>,
    draft: Option<DraftSummary>,
    proof: Option<ProofSummary>,
    positions: u64,
    seconds: f64,
    tt_mb: usize,
    #[serde(skip)]
    drawing: String,
}

impl Report for HandsSolveOutput {
    fn write_text(&self, out: &mut dyn Write) -> anyhow::Result<()> {
        write!(out, "{}", self.drawing)?;
        if let Some(draft) = &self.draft {
            writeln!(
                out,
                "draft:        {:?} player picks first; best picks {}",
                draft.first_pick,
                draft.picks.join(" ")
            )?;
        }
        if let Some(hands) = &self.hands {
            writeln!(out, "hands:        first {} / second {}", list(&hands.first), list(&hands.second))?;
        }
        if let Some(neutral) = &self.neutral {
            writeln!(out, "neutral:      {neutral} (belongs to nobody)")?;
        }
        writeln!(out, "placed:       first {}, second {}", self.placed.first, self.placed.second)?;
        match self.score {
            Some(score) => writeln!(
                out,
                "score:        {score:+} for the side to move ({:?} player): {}",
                self.side_to_move,
                match self.value {
                    HandsValue::Win => "win",
                    HandsValue::Draw => "draw",
                    _ => "loss",
                }
            )?,
            None => writeln!(out, "score:        unknown (stopped before the search finished)")?,
        }
        if let Some(best) = &self.best_move {
            writeln!(out, "best move:    {best}")?;
        }
        writeln!(out, "positions:    {} in {:.2} s", self.positions, self.seconds)?;
        if let Some(p) = &self.proof {
            writeln!(
                out,
                "proof:        {} (both bounds, {} each, {} position{} left for the checker)",
                p.file,
                p.plies_text(),
                p.leaves,
                output::plural(p.leaves)
            )?;
        }
        Ok(())
    }
}

fn list(names: &[String]) -> String {
    if names.is_empty() { "(none)".into() } else { names.join(",") }
}

/// Runs `golomb solve --rules hands` and `--rules draft`.
pub(super) fn run(args: &SolveArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    anyhow::ensure!(args.proof.is_none() || args.rules.rules == Rules::Hands, "--proof is for --rules golomb or hands");
    let game = args.position.game.build()?;
    // The score solver searches on every thread of the pool it runs in.
    let pool = thread_pool(args.threads)?;
    let report = pool.install(|| with_game!(&game, g => solve_in(g, args)))?;
    output::print(out, &report, args.json)
}

fn config(args: &SolveArgs) -> HandsConfig {
    HandsConfig {
        position_budget: args.max_positions,
        time_budget: args.max_seconds.map(Duration::from_secs_f64),
        cancel: None,
        tt_mb: args.tt_mb.unwrap_or(HandsConfig::default().tt_mb),
        split_plies: args.split_plies,
    }
}

fn solve_in<B: Bits>(game: &Game<B>, args: &SolveArgs) -> anyhow::Result<HandsSolveOutput> {
    let config = config(args);
    let (setup, draft) = match args.rules.rules {
        Rules::Draft => {
            anyhow::ensure!(
                args.position.moves.trim().is_empty(),
                "--moves is for --rules hands: a draft is solved from its start (the hands are not known before it)"
            );
            let neutral = args.rules.draft_neutral(game)?;
            let pool = game.all_pieces() & !neutral.neutral.map_or(0, |id| 1u64 << game.placement(id).piece);
            let first_pick = args.rules.first_pick.into();
            let result = solve_draft(game, pool, neutral.neutral, first_pick, &config);
            let summary = DraftSummary {
                first_pick,
                picks: result.picks.iter().map(|&p| game.pieces().piece(p as usize).name().to_string()).collect(),
                games: result.games,
            };
            match result.hands {
                Some(hands) => (Some(Setup { hands, neutral: neutral.neutral }), Some((summary, result))),
                None => (None, Some((summary, result))),
            }
        }
        _ => (Some(args.rules.hands_setup(game)?), None),
    };
    let Some(setup) = setup else {
        // A draft stopped by its budget: no hands, no score.
        let (summary, result) = draft.context("a draft result")?;
        return Ok(HandsSolveOutput {
            rules: Rules::Draft,
            board: game.board().size_name(),
            pieces: game.pieces().spec().to_string(),
            hands: None,
            neutral: None,
            moves: String::new(),
            side_to_move: Player::First,
            placed: Scores::default(),
            score: None,
            value: HandsValue::Unknown,
            best_move: None,
            draft: Some(summary),
            proof: None,
            positions: result.positions,
            seconds: result.elapsed.as_secs_f64(),
            tt_mb: config.tt_mb,
            drawing: game.draw_line(&[]),
        });
    };
    let rules = HandsGame::new(game, setup)?;
    let (pos, line) = rules.play_line(&args.position.moves).context("bad --moves")?;
    let mut proof_file = OutputFile::create_if(args.proof.as_ref())?;
    let mut solver = HandsSolver::new(rules, &config);
    let result = solver.solve(&pos);
    let proof = match &mut proof_file {
        Some(file) => Some(write_proof(&mut solver, &pos, &game.line_name(&line), args, file)?),
        None => None,
    };
    // A draft's counts include every hands game it solved.
    let (positions, seconds) = match &draft {
        Some((_, d)) => (d.positions + result.positions, d.elapsed.as_secs_f64() + result.elapsed.as_secs_f64()),
        None => (result.positions, result.elapsed.as_secs_f64()),
    };
    let score = result.score;
    let names =
        |set: u64| set_name(game.pieces(), set).split(',').filter(|s| !s.is_empty()).map(String::from).collect();
    Ok(HandsSolveOutput {
        rules: args.rules.rules,
        board: game.board().size_name(),
        pieces: game.pieces().spec().to_string(),
        hands: Some(HandsNames {
            first: names(setup.hands.of(Player::First)),
            second: names(setup.hands.of(Player::Second)),
        }),
        neutral: setup.neutral.map(|id| game.move_name(id)),
        moves: game.line_name(&line),
        side_to_move: pos.side_to_move(),
        placed: rules.scores(&pos),
        score,
        value: HandsValue::of(score),
        best_move: result.best_move.map(|id| game.move_name(id)),
        draft: draft.map(|(summary, _)| summary),
        proof,
        positions,
        seconds,
        tt_mb: config.tt_mb,
        drawing: game.draw_line(&rules.placed(&line)),
    })
}

/// The default plies of each bound tree: the chooser's move and every answer.
const PROOF_PLIES: usize = 2;

/// Builds the proof of the solved root's score (both bounds) and writes it.
fn write_proof<B: Bits>(
    solver: &mut HandsSolver<'_, B>,
    pos: &golomb_engine::hands::HandsPosition<B>,
    moves: &str,
    args: &SolveArgs,
    out: &mut OutputFile,
) -> anyhow::Result<ProofSummary> {
    let plies = args.proof_plies.unwrap_or(PROOF_PLIES);
    let info = serde_json::json!({ "solver": "hands alpha-beta", "plies": plies });
    let file = golomb_engine::hands::proof::build(solver, pos, moves, plies, Some(info))?;
    ProofSummary::write(out, &file, plies, file.lower.leaves() + file.upper.leaves(), None)
}
