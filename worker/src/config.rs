//! A worker's settings ([`WorkerConfig`]) and what it reports when it stops
//! ([`WorkerSummary`]): below the main loop, the connection and the
//! delivery, which all read them.

/// How to run a worker.
#[derive(Clone, Debug)]
pub struct WorkerConfig {
    /// The coordinator's URL, like `http://127.0.0.1:7117`.
    pub coordinator: String,
    /// Solver threads.
    pub threads: usize,
    /// A name shown by `golomb workers`.
    pub name: String,
    /// The coordinator's token, if it has one.
    pub token: Option<String>,
    /// Transposition table size in MiB (default: sized to each game's board).
    pub tt_mb: Option<usize>,
    /// For an `https://` coordinator with a private CA: the CA's PEM certificate.
    pub tls_ca: Option<std::path::PathBuf>,
    /// A game unit whose search examined at least this many positions is
    /// reported with its proof tree ([`DEFAULT_PROOF_FROM_POSITIONS`]).
    pub proof_from_positions: u64,
    /// The local address to connect from (a machine with several; the
    /// coordinator tells machines apart by the address a worker connects from).
    pub local_address: Option<std::net::IpAddr>,
    /// The share of a game unit's budget spent, when the unit runs past it,
    /// on a proof-number search that gives its children numbers for the
    /// manager ([`DEFAULT_NUMBERS_SHARE`]; 0: none).
    pub numbers_share: f64,
}

/// The default of [`WorkerConfig::proof_from_positions`]: 2^25, about 33 M
/// positions, a few seconds of search. Below it the checker's plain search
/// re-solves the unit's position whole in reasonable time; above it, one
/// leaf as big as the unit would cost the checker far more than the solver
/// (one 8x8 opening: over 3.5 G plain positions, unfinished), so the worker
/// sends the tree that splits it into one small leaf per reply. The tree
/// costs the searches that find the answers its table has not kept.
pub const DEFAULT_PROOF_FROM_POSITIONS: u64 = 1 << 25;

/// The default of [`WorkerConfig::numbers_share`]: a tenth of the budget.
/// A unit given back to be split then tells the coordinator how close each
/// child it looked into is to an answer (see `docs/manager.md`, "Numbers
/// from the workers").
pub const DEFAULT_NUMBERS_SHARE: f64 = 0.1;

/// What a worker did, returned when it stops.
#[derive(Clone, Debug, Default)]
pub struct WorkerSummary {
    /// Units solved and reported.
    pub units: u64,
    /// Positions searched in them.
    pub positions: u64,
    /// Seconds during which some unit was being solved.
    pub busy_seconds: f64,
    /// Seconds the worker ran.
    pub wall_seconds: f64,
    /// Whether it stopped because the coordinator drained it (`golomb drain`).
    pub drained: bool,
}
