//! The argument groups several commands share: the game, a position in it,
//! the coordinator to talk to, and a job; with the one conversion of each
//! into engine and wire types, whose errors name the option at fault.

use std::path::PathBuf;

use anyhow::Context as _;
use clap::Args;
use golomb_engine::board::BoardError;
use golomb_engine::{AnyGame, Bits, Game, GameSpec, GameSpecError, PlacementId, Position, with_game};
use golomb_proto::pb;

use super::rules_args::{Rules, RulesArgs};

/// The board and pieces of a game.
#[derive(Debug, Clone, Args)]
pub struct GameArgs {
    /// Board size, WIDTHxHEIGHT (up to 26 columns and 256 cells).
    #[arg(long, default_value = "8x8")]
    pub board: String,
    /// Blocked cells, comma-separated (for example d4,e4,d5,e5).
    #[arg(long, default_value = "")]
    pub blocked: String,
    /// Piece set: pentominoes, tetrominoes, hexominoes or order:N.
    #[arg(long, default_value = "pentominoes")]
    pub pieces: String,
}

impl GameArgs {
    /// The game these options name.
    pub fn spec(&self) -> GameSpec {
        GameSpec::new(self.board.clone(), self.blocked.clone(), self.pieces.clone())
    }

    /// Builds the game, with errors that say which option is wrong.
    pub fn build(&self) -> anyhow::Result<AnyGame> {
        build_game(&self.spec(), ["--board", "--blocked"], "--pieces")
    }
}

/// Builds `spec`, naming `board` (the size, then the blocked cells) or `pieces`
/// (the options or fields they came from) in its errors.
pub fn build_game(spec: &GameSpec, board: [&str; 2], pieces: &str) -> anyhow::Result<AnyGame> {
    spec.build().map_err(|err| match err {
        GameSpecError::Board(e @ (BoardError::BadSize(_) | BoardError::OutOfRange { .. })) => {
            anyhow::Error::new(e).context(format!("bad {}", board[0]))
        }
        GameSpecError::Board(e) => anyhow::Error::new(e).context(format!("bad {}", board[1])),
        GameSpecError::Pieces(e) => anyhow::Error::new(e).context(format!("bad {pieces}")),
        GameSpecError::Game(e) => anyhow::Error::new(e),
    })
}

/// A game and a position in it.
#[derive(Debug, Clone, Args)]
pub struct PositionArgs {
    /// The board and pieces.
    #[command(flatten)]
    pub game: GameArgs,
    /// Moves played so far, separated by `;`, for example "L:c4,d4,e4,f4,c5;I:a1,b1,c1,d1,e1".
    #[arg(long, default_value = "")]
    pub moves: String,
}

impl PositionArgs {
    /// Plays `--moves` from the empty board: the position and the moves' placements.
    pub fn play<B: Bits>(&self, game: &Game<B>) -> anyhow::Result<(Position<B>, Vec<PlacementId>)> {
        game.play_line(Position::empty(), &self.moves).context("bad --moves")
    }
}

/// How to reach a coordinator.
#[derive(Debug, Clone, Args)]
pub struct ClientArgs {
    /// The coordinator: HOST:PORT, http://HOST:PORT or https://HOST:PORT for TLS; the port defaults
    /// to 7117 (default: the GOLOMB_COORDINATOR variable, else 127.0.0.1:7117).
    #[arg(long)]
    pub coordinator: Option<String>,
    /// A file holding the coordinator's token (default: the GOLOMB_TOKEN variable).
    #[arg(long)]
    pub token_file: Option<PathBuf>,
    /// For an https:// coordinator with a private CA: the CA's PEM certificate (default: the GOLOMB_TLS_CA
    /// variable, else the system's authorities).
    #[arg(long, env = "GOLOMB_TLS_CA")]
    pub tls_ca: Option<PathBuf>,
}

impl ClientArgs {
    /// Options that reach the coordinator at `url` without a token (for `golomb run`'s own client).
    pub fn local(url: String) -> ClientArgs {
        ClientArgs { coordinator: Some(url), token_file: None, tls_ca: None }
    }

    /// The coordinator these options name, with `--coordinator` in the error when it is at fault.
    pub fn coordinator(&self) -> anyhow::Result<golomb_proto::address::Coordinator> {
        let which = if self.coordinator.is_some() { "--coordinator" } else { golomb_proto::address::COORDINATOR_ENV };
        golomb_proto::address::resolve(self.coordinator.as_deref()).with_context(|| format!("bad {which}"))
    }

    /// The options to repeat in a hint so that it works as typed:
    /// `--coordinator`, `--token-file` and `--tls-ca` when they were given as
    /// options (a coordinator or token from the environment is found again by
    /// the next command).
    pub fn hint(&self) -> anyhow::Result<String> {
        let coordinator = self.coordinator()?;
        let mut hint = String::new();
        if coordinator.from_option {
            hint += &format!(" --coordinator {}", coordinator.url.trim_start_matches("http://"));
        }
        if let Some(token) = &self.token_file {
            hint += &format!(" --token-file {}", token.display());
        }
        if let Some(ca) = &self.tls_ca {
            hint += &format!(" --tls-ca {}", ca.display());
        }
        Ok(hint)
    }
}

/// A unit's default budget in seconds: long enough that a unit's setup is
/// small beside its search, short enough that the manager learns often.
pub const DEFAULT_SPLIT_AFTER: f64 = 30.0;

/// A job: a position, a goal and how to split it.
#[derive(Debug, Clone, Args)]
pub struct JobArgs {
    /// The root position.
    #[command(flatten)]
    pub position: PositionArgs,
    /// `solve` (the root's value and a winning move), `classify` (the value of every child of the root)
    /// or `count` (the tilings of the board by the pieces).
    #[arg(long, default_value = "solve")]
    pub goal: String,
    /// For `count`: each piece `exactly` once or `at-most` once.
    #[arg(long, default_value = "exactly")]
    pub each: String,
    /// Plies below the root at which the job starts, cut into work units (0 to 4); the
    /// proof-number manager expands further as units run past `--split-after`.
    /// For `count`: placements.
    #[arg(long, default_value_t = 1)]
    pub split_depth: u32,
    /// A unit's budget: a unit still running after this many seconds is given back and
    /// its node expanded into its children (0: never; units then run to the end).
    #[arg(long, default_value_t = DEFAULT_SPLIT_AFTER)]
    pub split_after: f64,
    /// The rules and the hands game's setup (`--rules hands`: cut at split depth 0 or 1, every unit
    /// solved to the end).
    #[command(flatten)]
    pub rules: RulesArgs,
}

/// The rules' wire fields `(rules, hands, neutral)` of a job: a deal and a
/// random neutral piece are resolved on this side into listed hands and a
/// placed piece, so the job stores what it is played with.
fn rules_wire(rules: &RulesArgs, game: &GameArgs) -> anyhow::Result<(String, String, String)> {
    match rules.rules {
        Rules::Golomb => {
            rules.check_golomb()?;
            Ok((golomb_proto::spec::RULES.into(), String::new(), String::new()))
        }
        Rules::Hands => {
            let built = game.build()?;
            with_game!(&built, g => {
                let setup = rules.hands_setup(g)?;
                let neutral = setup.neutral.map_or_else(String::new, |id| g.move_name(id));
                Ok((golomb_proto::spec::HANDS_RULES.into(), setup.hands.name(g.pieces()), neutral))
            })
        }
        Rules::Draft => anyhow::bail!("--rules draft is not on the cluster yet: jobs take --rules golomb or hands"),
    }
}

impl JobArgs {
    /// The job as the wire carries it. The coordinator validates every field
    /// (`golomb run` with [`golomb_proto::ValidSpec::new`]), so a bad goal is
    /// refused with the same message however the job arrives.
    pub fn wire_spec(&self) -> anyhow::Result<pb::JobSpec> {
        let game = &self.position.game;
        let (rules, hands, neutral) = rules_wire(&self.rules, game)?;
        Ok(pb::JobSpec {
            rules,
            hands,
            neutral,
            board: game.board.clone(),
            blocked: game.blocked.clone(),
            pieces: game.pieces.clone(),
            moves: self.position.moves.clone(),
            goal: self.goal.clone(),
            split_depth: self.split_depth,
            split_after_seconds: self.split_after,
            each: self.each.clone(),
        })
    }
}

/// The rayon pool for `--threads` (default: one thread per core).
pub fn thread_pool(threads: Option<usize>) -> anyhow::Result<rayon::ThreadPool> {
    let threads = threads.unwrap_or_else(rayon::current_num_threads);
    anyhow::ensure!(threads >= 1, "--threads must be at least 1");
    Ok(rayon::ThreadPoolBuilder::new().num_threads(threads).build()?)
}
