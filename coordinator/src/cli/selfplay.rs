//! `golomb selfplay`: computer players against each other, many games with
//! the first player alternating, as the Delphi program's author used his
//! simulation mode to drop heuristics that did not help. Prints each
//! pairing's results as a table or JSON.
//!
//! The default pairings: the heuristic against itself, against the
//! solver-backed player and against the random one, and ablations: the
//! heuristic against itself without one feature (sanctuaries, chains,
//! mobility), searching one ply, or never full width; `--pairs` names others. The solver-backed player searches within a position budget on
//! one thread, so a seed fixes every game.

use std::io::Write;
use std::time::Instant;

use anyhow::Context as _;
use clap::Args;
use golomb_engine::hands::{HandsSource, NeutralSpec, SetupSpec};
use golomb_engine::player::arena::{Tally, play_match};
use golomb_engine::player::heuristic::{Heuristic, HeuristicConfig};
use golomb_engine::player::random::RandomPlayer;
use golomb_engine::player::solver::{Budget, SolverBacked};
use golomb_engine::player::{Player, Rules, Table};
use golomb_engine::solve::tt::TtCheck;
use golomb_engine::{Game, GameSpec, with_game};
use serde::Serialize;

use super::args::build_game;
use super::output::{self, Report};

/// Options of `golomb selfplay`.
#[derive(Debug, Args)]
pub struct SelfplayArgs {
    /// Games per pairing (the first player alternates).
    #[arg(long, default_value_t = 20)]
    pub games: u32,
    /// The pieces: 4, 5 or 6 (tetrominoes, pentominoes, hexominoes), or any piece-set name.
    #[arg(long, default_value = "5")]
    pub pieces: String,
    /// Board size, WIDTHxHEIGHT.
    #[arg(long, default_value = "8x8")]
    pub board: String,
    /// Blocked cells, comma-separated.
    #[arg(long, default_value = "")]
    pub blocked: String,
    /// Seed of the first game (game g uses seed + g).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The solver-backed player's budget per move, in positions.
    #[arg(long, default_value_t = 200_000)]
    pub solver_positions: u64,
    /// The solver-backed player's transposition table in MiB.
    #[arg(long, default_value_t = 32)]
    pub tt_mb: usize,
    /// Play the hands game with these hands (first player's, a slash, the second's); A holds
    /// the first hand in even-numbered games.
    #[arg(long, conflicts_with = "deal")]
    pub hands: Option<String>,
    /// Play the hands game, dealing the pieces from SEED, SEED+1, ...: each deal is played
    /// twice, A holding the first hand once and B once (a random neutral piece for an odd set).
    #[arg(long)]
    pub deal: Option<u64>,
    /// Play these pairings instead of the default ones: A/B, comma-separated, each of A and B
    /// `solver`, `random` or `heuristic` with any of -no-sanctuaries, -no-chains, -no-mobility,
    /// -depthN, -narrow (for example heuristic-no-chains/random).
    #[arg(long)]
    pub pairs: Option<String>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// A player kind in a pairing.
#[derive(Copy, Clone, Debug)]
enum Kind {
    Heuristic(HeuristicConfig),
    Solver,
    Random,
}

impl Kind {
    fn name(&self) -> String {
        match self {
            Kind::Heuristic(c) => c.name(),
            Kind::Solver => "solver".into(),
            Kind::Random => "random".into(),
        }
    }
}

/// The pairings played by default, A first in the pair.
fn pairings() -> Vec<(Kind, Kind)> {
    let full = HeuristicConfig::default();
    vec![
        (Kind::Heuristic(full), Kind::Heuristic(full)),
        (Kind::Heuristic(full), Kind::Solver),
        (Kind::Heuristic(full), Kind::Random),
        (Kind::Heuristic(full), Kind::Heuristic(HeuristicConfig { sanctuaries: false, ..full })),
        (Kind::Heuristic(full), Kind::Heuristic(HeuristicConfig { chains: false, ..full })),
        (Kind::Heuristic(full), Kind::Heuristic(HeuristicConfig { mobility: false, ..full })),
        (Kind::Heuristic(full), Kind::Heuristic(HeuristicConfig { depth: 1, ..full })),
        (Kind::Heuristic(full), Kind::Heuristic(HeuristicConfig { full_width_below: 0, ..full })),
    ]
}

impl Kind {
    /// The player a name stands for: `solver`, `random`, or `heuristic`
    /// followed by any of `-no-sanctuaries`, `-no-chains`, `-no-mobility`,
    /// `-depthN` and `-narrow` (the names [`Kind::name`] prints).
    fn parse(name: &str) -> Option<Kind> {
        match name {
            "solver" => return Some(Kind::Solver),
            "random" => return Some(Kind::Random),
            _ => {}
        }
        let mut rest = name.strip_prefix("heuristic")?;
        let mut config = HeuristicConfig::default();
        while !rest.is_empty() {
            let part = rest.strip_prefix('-').filter(|p| !p.is_empty())?;
            let (word, tail) = if let Some(after) = part.strip_prefix("no-") {
                let end = after.find('-').unwrap_or(after.len());
                match &after[..end] {
                    "sanctuaries" => config.sanctuaries = false,
                    "chains" => config.chains = false,
                    "mobility" => config.mobility = false,
                    _ => return None,
                }
                ("", &after[end..])
            } else {
                let end = part.find('-').unwrap_or(part.len());
                (&part[..end], &part[end..])
            };
            match word {
                "" => {}
                "narrow" => config.full_width_below = 0,
                depth => config.depth = depth.strip_prefix("depth")?.parse().ok().filter(|&d| (1..=4).contains(&d))?,
            }
            rest = tail;
        }
        Some(Kind::Heuristic(config))
    }
}

/// One pairing's results.
#[derive(Serialize)]
struct PairingRow {
    a: String,
    b: String,
    #[serde(flatten)]
    tally: Tally,
    a_rate: f64,
    seconds: f64,
}

/// The whole run.
#[derive(Serialize)]
struct SelfplayReport {
    board: String,
    pieces: String,
    rules: String,
    games_per_pairing: u32,
    seed: u64,
    solver_positions: u64,
    pairings: Vec<PairingRow>,
}

impl Report for SelfplayReport {
    fn write_text(&self, out: &mut dyn Write) -> anyhow::Result<()> {
        writeln!(
            out,
            "{} on {}, {}, {} games per pairing (first player alternating), seed {}, solver budget {} positions a move",
            self.pieces, self.board, self.rules, self.games_per_pairing, self.seed, self.solver_positions
        )?;
        writeln!(
            out,
            "{:<28} {:<28} {:>5} {:>6} {:>6} {:>5} {:>7} {:>10} {:>10} {:>8}",
            "A", "B", "games", "A wins", "B wins", "draws", "A rate", "A 1st won", "1st won", "seconds"
        )?;
        for r in &self.pairings {
            let t = &r.tally;
            writeln!(
                out,
                "{:<28} {:<28} {:>5} {:>6} {:>6} {:>5} {:>6.0}% {:>10} {:>10} {:>8.1}",
                r.a,
                r.b,
                t.games,
                t.a_wins,
                t.b_wins,
                t.draws,
                100.0 * r.a_rate,
                format!("{}/{}", t.a_wins_first, t.a_first),
                format!("{}/{}", t.first_wins, t.games),
                r.seconds
            )?;
        }
        Ok(())
    }
}

/// Runs `golomb selfplay`.
pub fn run(args: &SelfplayArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    anyhow::ensure!(args.games >= 1, "--games must be at least 1");
    let pieces = match args.pieces.trim() {
        "4" => "tetrominoes".to_string(),
        "5" => "pentominoes".to_string(),
        "6" => "hexominoes".to_string(),
        other => other.to_string(),
    };
    let spec = GameSpec::new(args.board.clone(), args.blocked.clone(), pieces);
    let game = build_game(&spec, ["--board", "--blocked"], "--pieces")?;
    let chosen = match &args.pairs {
        None => pairings(),
        Some(list) => list
            .split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(|pair| {
                let bad = || {
                    anyhow::anyhow!(
                        "bad --pairs: `{pair}` is not A/B with A and B among solver, random and heuristic[-no-sanctuaries][-no-chains][-no-mobility][-depthN][-narrow]"
                    )
                };
                let (a, b) = pair.split_once('/').ok_or_else(bad)?;
                Ok((Kind::parse(a.trim()).ok_or_else(bad)?, Kind::parse(b.trim()).ok_or_else(bad)?))
            })
            .collect::<anyhow::Result<Vec<_>>>()?,
    };
    anyhow::ensure!(!chosen.is_empty(), "--pairs names no pairing");
    // One thread: the solver's budget in positions then fixes its play.
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().context("cannot start the solver's thread")?;
    let rows = pool.install(|| with_game!(&game, g => play_all(g, args, &chosen)))?;
    let rules = match (&args.hands, args.deal) {
        (Some(hands), _) => format!("hands {hands}"),
        (None, Some(seed)) => format!("hands dealt from seed {seed} on"),
        (None, None) => "common pile".to_string(),
    };
    let report = SelfplayReport {
        board: spec.board,
        pieces: spec.pieces,
        rules,
        games_per_pairing: args.games,
        seed: args.seed,
        solver_positions: args.solver_positions,
        pairings: rows,
    };
    output::print(out, &report, args.json)
}

fn play_all<B: TtCheck>(
    game: &Game<B>,
    args: &SelfplayArgs,
    chosen: &[(Kind, Kind)],
) -> anyhow::Result<Vec<PairingRow>> {
    // The rules of each run of games: one set of rules for all, or one deal per pair of games.
    let runs: Vec<(Rules, u32)> = match (&args.hands, args.deal) {
        (Some(hands), _) => {
            let spec = SetupSpec { hands: HandsSource::Listed(hands.clone()), neutral: NeutralSpec::None };
            vec![(Rules::Hands(spec.build(game).context("bad --hands")?), args.games)]
        }
        (None, Some(seed)) => {
            let neutral = if game.pieces().len() % 2 == 1 { NeutralSpec::Random } else { NeutralSpec::None };
            (0..args.games.div_ceil(2))
                .map(|k| {
                    let spec = SetupSpec { hands: HandsSource::Dealt(seed + k as u64), neutral: neutral.clone() };
                    let games = (args.games - 2 * k).min(2);
                    Ok((Rules::Hands(spec.build(game).context("bad --deal")?), games))
                })
                .collect::<anyhow::Result<_>>()?
        }
        (None, None) => vec![(Rules::CommonPile, args.games)],
    };
    Ok(chosen
        .iter()
        .map(|&(a, b)| {
            let start = Instant::now();
            let mut tally = Tally::default();
            let mut seed = args.seed;
            for (rules, games) in &runs {
                let table = Table { game, rules };
                tally.add(&play_match(table, *games, seed, |who, seed| make(if who == 0 { a } else { b }, seed, args)));
                seed += u64::from(*games);
            }
            PairingRow {
                a: a.name(),
                b: b.name(),
                a_rate: tally.a_rate(),
                tally,
                seconds: start.elapsed().as_secs_f64(),
            }
        })
        .collect())
}

fn make<B: TtCheck>(kind: Kind, seed: u64, args: &SelfplayArgs) -> Box<dyn Player<B>> {
    match kind {
        Kind::Heuristic(config) => Box::new(Heuristic::new(config, seed)),
        Kind::Solver => {
            Box::new(SolverBacked::new(Budget { time: None, positions: Some(args.solver_positions) }, args.tt_mb, seed))
        }
        Kind::Random => Box::new(RandomPlayer::new(seed)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_back_to_their_players() {
        for (a, b) in pairings() {
            for kind in [a, b] {
                assert_eq!(Kind::parse(&kind.name()).map(|k| k.name()), Some(kind.name()));
            }
        }
        let Some(Kind::Heuristic(c)) = Kind::parse("heuristic-no-chains-no-mobility-depth3-narrow") else { panic!() };
        assert!(!c.chains && !c.mobility && c.sanctuaries && c.depth == 3 && c.full_width_below == 0);
        for bad in ["heuristics", "heuristic-no-luck", "heuristic-depth9", "heuristic-", "solver2"] {
            assert!(Kind::parse(bad).is_none(), "{bad}");
        }
    }
}
