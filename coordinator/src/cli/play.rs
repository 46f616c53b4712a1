//! `golomb play`: a person plays against the computer in the terminal; and
//! `golomb play --replay FILE`, which draws a saved game position by
//! position.
//!
//! The game is read from stdin line by line (moves and commands, see
//! [`input`]) and drawn on stdout ([`draw`]); the loop is in [`session`],
//! and the saved record's format in [`record`].

mod draw;
mod input;
mod record;
mod session;

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context as _;
use clap::{Args, ValueEnum};
use golomb_engine::hands::{HandsSource, NeutralSpec, SetupSpec};
use golomb_engine::player::solver::Budget;
use golomb_engine::player::{Rules, Side};
use golomb_engine::{Bits, Game, GameSpec, with_game};

use super::args::{build_game, thread_pool};
use draw::Style;

/// The longest `--think` accepted: a day (longer budgets overflow the clock).
const MAX_THINK: f64 = 86_400.0;

/// Who moves first.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum First {
    /// You.
    Human,
    /// The computer.
    Computer,
}

/// Options of `golomb play`.
#[derive(Debug, Args)]
pub struct PlayArgs {
    /// The pieces: 4, 5 or 6 (tetrominoes, pentominoes, hexominoes), or any piece-set name.
    #[arg(long, default_value = "5")]
    pub pieces: String,
    /// Board size, WIDTHxHEIGHT (default: 5x5 for tetrominoes, 8x8 for pentominoes, 15x15 for hexominoes).
    #[arg(long)]
    pub board: Option<String>,
    /// Blocked cells, comma-separated.
    #[arg(long, default_value = "")]
    pub blocked: String,
    /// Who moves first.
    #[arg(long, value_enum, default_value = "human")]
    pub first: First,
    /// Seconds the computer may think per move (and a hint may take in all).
    #[arg(long, default_value_t = 2.0)]
    pub think: f64,
    /// Seed of the computer's tie-breaks (the same seed and moves give the same game).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Threads the solver may use (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// The solver's transposition table in MiB.
    #[arg(long, default_value_t = 64)]
    pub tt_mb: usize,
    /// Draw without colours (also off when stdout is not a terminal or NO_COLOR is set).
    #[arg(long)]
    pub no_color: bool,
    /// Write the game record to this file when the game ends (or is left).
    #[arg(long)]
    pub save: Option<PathBuf>,
    /// Replay a saved game instead of playing: draw every position in turn.
    #[arg(long, conflicts_with = "save")]
    pub replay: Option<PathBuf>,
    /// Play the hands game with these hands: the first player's pieces, a slash, the second's
    /// (for example "F,I,L,N,P,T/U,V,W,X,Y,Z"). With `--first computer` the computer holds the first hand.
    #[arg(long, conflicts_with = "deal")]
    pub hands: Option<String>,
    /// Play the hands game with the pieces dealt at random from this seed.
    #[arg(long)]
    pub deal: Option<u64>,
    /// The hands game's neutral piece, placed before the first move and counted for nobody:
    /// a placement (X:g7,f8,g8,h8,g9) or `random` (from the --deal seed). With --deal and an odd
    /// number of pieces (35 hexominoes), a random one is placed unless this says `none`.
    #[arg(long)]
    pub neutral: Option<String>,
}

impl PlayArgs {
    /// The piece-set name `--pieces` stands for.
    fn piece_set(&self) -> String {
        match self.pieces.trim() {
            "4" => "tetrominoes".into(),
            "5" => "pentominoes".into(),
            "6" => "hexominoes".into(),
            other => other.to_string(),
        }
    }

    /// The game these options name.
    fn spec(&self) -> GameSpec {
        let pieces = self.piece_set();
        let board = self.board.clone().unwrap_or_else(|| {
            match pieces.as_str() {
                "tetrominoes" => "5x5",
                "hexominoes" => "15x15",
                _ => "8x8",
            }
            .to_string()
        });
        GameSpec::new(board, self.blocked.clone(), pieces)
    }

    /// The rules these options name, for `game`.
    fn rules<B: Bits>(&self, game: &Game<B>) -> anyhow::Result<Rules> {
        let hands = match (&self.hands, self.deal) {
            (Some(listed), _) => HandsSource::Listed(listed.clone()),
            (None, Some(seed)) => HandsSource::Dealt(seed),
            (None, None) => {
                anyhow::ensure!(self.neutral.is_none(), "--neutral needs the hands game (--hands or --deal)");
                return Ok(Rules::CommonPile);
            }
        };
        let odd = game.pieces().len() % 2 == 1;
        let neutral = match self.neutral.as_deref().map(str::trim) {
            Some("none") => NeutralSpec::None,
            Some(text) => NeutralSpec::parse(text),
            None if odd && self.deal.is_some() => NeutralSpec::Random,
            None => NeutralSpec::None,
        };
        let which = if self.hands.is_some() { "--hands" } else { "--deal" };
        let setup = SetupSpec { hands, neutral }
            .build(game)
            .with_context(|| format!("bad {which}{}", if self.neutral.is_some() { " or --neutral" } else { "" }))?;
        Ok(Rules::Hands(setup))
    }

    /// Whether to draw with ANSI colours.
    fn style(&self) -> Style {
        let no_color_env = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Style { color: !self.no_color && !no_color_env && std::io::stdout().is_terminal() }
    }
}

/// Runs `golomb play`.
pub fn run(args: &PlayArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    if let Some(path) = &args.replay {
        return record::replay(path, args.style(), out);
    }
    anyhow::ensure!(
        args.think.is_finite() && args.think > 0.0 && args.think <= MAX_THINK,
        "--think must be a positive number of seconds, at most {MAX_THINK} (a day)"
    );
    let spec = args.spec();
    let game = build_game(&spec, ["--board", "--blocked"], "--pieces")?;
    let pool = thread_pool(args.threads)?;
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    with_game!(&game, g => {
        let setup = session::Setup {
            spec: spec.clone(),
            rules: args.rules(g)?,
            human: if args.first == First::Human { Side::First } else { Side::Second },
            budget: Budget { time: Some(Duration::from_secs_f64(args.think)), positions: None },
            seed: args.seed,
            tt_mb: args.tt_mb,
            style: args.style(),
            save: args.save.clone(),
        };
        session::play(g, &setup, &pool, &mut input, out).context("the game stopped")
    })
}
