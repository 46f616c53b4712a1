//! The scaling bench's real solves: each made once per position (up to
//! symmetry), shared by the runs side by side, kept in a text file when the
//! bench is given one (gzip when its name ends in `.gz`: the committed
//! caches are; new solves are appended to it as gzip members of their
//! own), and solved ahead by spare threads.

use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Read, Write};

use flate2::Compression;
use flate2::read::MultiGzDecoder;
use flate2::write::GzEncoder;
use std::sync::{Arc, Condvar, Mutex};

use golomb_engine::solve::partial::decided_children;
use golomb_engine::solve::{Outcome, Progress, SolveConfig, TranspositionTable, solve};
use golomb_engine::split::position_key;
use golomb_engine::{Position, WideBitboard};

use super::G;

/// A solve as it is kept in the cache: the children it decided by their
/// position keys, which hold for every symmetric image of the position.
pub struct Found {
    pub outcome: Outcome,
    pub positions: u64,
    pub decided: Vec<(String, Outcome)>,
}

/// One unit's real solve: one thread, a fresh 16 MiB table, the budget in positions.
fn solve_one(game: &G, pos: &Position<WideBitboard>, budget: u64) -> Found {
    let tt = TranspositionTable::new(16);
    let config = SolveConfig { position_budget: Some(budget), ..SolveConfig::default() };
    let report = solve(game, pos, &config, &tt, &Progress::default());
    let decided = if report.outcome == Outcome::Unknown {
        decided_children(game, pos, &report, &tt)
            .into_iter()
            .map(|d| (position_key(game, &pos.after(game.placement(d.placement))), d.outcome))
            .collect()
    } else {
        Vec::new()
    };
    Found { outcome: report.outcome, positions: report.stats.positions, decided }
}

/// The real solves of one game and budget, shared by the runs side by side,
/// and kept in a text file (one line a solve) when the bench is given one.
pub struct Cache {
    /// `BOARD:GOAL:BUDGET`, the first field of each of this game's lines.
    game: String,
    budget: u64,
    state: Mutex<CacheState>,
    /// Signalled when a solve that another run waits for is kept.
    kept_one: Condvar,
    /// Children of expanded nodes, solved ahead by the spare threads
    /// (last queued first: the manager works where it last expanded).
    ahead: Mutex<Ahead>,
}

/// The solves queued ahead of the runs, each once.
#[derive(Default)]
struct Ahead {
    stack: Vec<Position<WideBitboard>>,
    queued: HashSet<String>,
}

struct CacheState {
    kept: HashMap<String, Arc<Found>>,
    /// Solves under way, so that two runs do not make the same one.
    making: HashSet<String>,
    file: Option<BufWriter<File>>,
    /// Whether the file is gzip (each line appended as a member of its own).
    gzip: bool,
    /// Real solves made by this process, and their positions.
    made: (u64, u64),
}

impl Cache {
    /// The cache of `game` in `path` (read, then appended to), or one in
    /// memory only.
    pub fn open(path: Option<&str>, game: &str, budget: u64) -> Cache {
        let mut kept = HashMap::new();
        let mut file = None;
        let gzip = path.is_some_and(|p| p.ends_with(".gz"));
        if let Some(path) = path {
            if let Ok(f) = File::open(path) {
                let text: Box<dyn Read> = if gzip { Box::new(MultiGzDecoder::new(f)) } else { Box::new(f) };
                for line in BufReader::new(text).lines() {
                    let line = line.unwrap_or_else(|e| panic!("{path}: {e}"));
                    if let Some((key, found)) = parse_line(&line, game) {
                        kept.insert(key, Arc::new(found));
                    }
                }
            }
            let f = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .unwrap_or_else(|e| panic!("GOLOMB_SCALING_CACHE {path}: {e}"));
            file = Some(BufWriter::new(f));
        }
        let state = CacheState { kept, making: HashSet::new(), file, gzip, made: (0, 0) };
        Cache {
            game: game.to_string(),
            budget,
            state: Mutex::new(state),
            kept_one: Condvar::new(),
            ahead: Mutex::new(Ahead::default()),
        }
    }

    /// Queues `positions` to be solved ahead by the spare threads, those
    /// not kept or under way, the last on top; one queued already is queued
    /// again on top only if `again` (the copy below is found kept when it
    /// comes up).
    pub fn ahead(&self, game: &G, positions: &[Position<WideBitboard>], again: bool) {
        let keys: Vec<String> = positions.iter().map(|p| position_key(game, p)).collect();
        let fresh: Vec<bool> = {
            let state = self.state.lock().expect("no run panicked");
            keys.iter().map(|k| !state.kept.contains_key(k) && !state.making.contains(k)).collect()
        };
        let mut ahead = self.ahead.lock().expect("no run panicked");
        for ((pos, key), fresh) in positions.iter().zip(keys).zip(fresh) {
            if fresh && (ahead.queued.insert(key) || again) {
                ahead.stack.push(*pos);
            }
        }
    }

    /// The next position to solve ahead, if any is queued.
    pub fn next_ahead(&self, game: &G) -> Option<Position<WideBitboard>> {
        let mut ahead = self.ahead.lock().expect("no run panicked");
        let pos = ahead.stack.pop()?;
        ahead.queued.remove(&position_key(game, &pos));
        Some(pos)
    }

    /// The solve of `pos`: kept, made by another run (waited for), or made here.
    pub fn solve(&self, game: &G, pos: &Position<WideBitboard>) -> Arc<Found> {
        let key = position_key(game, pos);
        let mut state = self.state.lock().expect("no run panicked");
        loop {
            if let Some(found) = state.kept.get(&key) {
                return Arc::clone(found);
            }
            if !state.making.contains(&key) {
                break;
            }
            state = self.kept_one.wait(state).expect("no run panicked");
        }
        state.making.insert(key.clone());
        drop(state);
        let found = Arc::new(solve_one(game, pos, self.budget));
        let mut state = self.state.lock().expect("no run panicked");
        state.made.0 += 1;
        state.made.1 += found.positions;
        let gzip = state.gzip;
        if let Some(file) = &mut state.file {
            let decided: Vec<String> = found.decided.iter().map(|(k, v)| format!("{k}={}", letter(*v))).collect();
            let line = format!(
                "{}\t{key}\t{}\t{}\t{}\n",
                self.game,
                letter(found.outcome),
                found.positions,
                decided.join(",")
            );
            let bytes = if gzip {
                let mut member = GzEncoder::new(Vec::new(), Compression::default());
                member.write_all(line.as_bytes()).and_then(|()| member.finish()).expect("gzip into memory")
            } else {
                line.into_bytes()
            };
            file.write_all(&bytes).and_then(|()| file.flush()).expect("the cache file takes a line");
        }
        state.making.remove(&key);
        state.kept.insert(key, Arc::clone(&found));
        self.kept_one.notify_all();
        found
    }

    /// How many positions are queued to be solved ahead.
    pub fn queued_ahead(&self) -> usize {
        self.ahead.lock().expect("no run panicked").stack.len()
    }

    /// Solves kept, and those made by this process with their positions.
    pub fn counts(&self) -> (usize, u64, u64) {
        let state = self.state.lock().expect("no run panicked");
        (state.kept.len(), state.made.0, state.made.1)
    }
}

/// One line of the cache file, if it is whole and of `game`.
fn parse_line(line: &str, game: &str) -> Option<(String, Found)> {
    let fields: Vec<&str> = line.split('\t').collect();
    // A line cut short by a stopped run is left out.
    let [g, key, outcome, positions, decided] = fields[..] else { return None };
    if g != game {
        return None;
    }
    let mut children = Vec::new();
    for d in decided.split(',').filter(|d| !d.is_empty()) {
        let (k, v) = d.rsplit_once('=')?;
        children.push((k.to_string(), outcome_of(v)?));
    }
    Some((
        key.to_string(),
        Found { outcome: outcome_of(outcome)?, positions: positions.parse().ok()?, decided: children },
    ))
}

fn letter(outcome: Outcome) -> char {
    match outcome {
        Outcome::Win => 'W',
        Outcome::Loss => 'L',
        Outcome::Unknown => 'U',
    }
}

fn outcome_of(letter: &str) -> Option<Outcome> {
    match letter {
        "W" => Some(Outcome::Win),
        "L" => Some(Outcome::Loss),
        "U" => Some(Outcome::Unknown),
        _ => None,
    }
}
