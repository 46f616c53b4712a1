//! The database file: its schema, its version, the migrations from older
//! versions, and the checks that keep a foreign or newer file from being
//! opened.
//!
//! The schema carries its version in `PRAGMA user_version`, and the
//! `application_id` marks the file as Golomb's. Version 2 added the
//! database's identity (`meta.db_id`, random at creation) and the lease token
//! of every unit (`units.lease_token`): results bind to both. Version 3
//! added what operators set (`jobs.paused`, `jobs.priority`,
//! `workers.draining`) and each job's progress over time (`progress`).
//! Version 4 added the hands game: a job's hands and neutral piece
//! (`jobs.hands`, `jobs.neutral`, NULL for Golomb's game), the root's score
//! (`jobs.score`), and the scores of units and nodes (`units.score`,
//! `nodes.score`).

use std::path::Path;

use rusqlite::Connection;

use super::error::StoreError;

/// The schema version this code writes and reads.
pub const SCHEMA_VERSION: i64 = 20;
/// Prepared statements kept per connection (see [`open`]).
const STATEMENT_CACHE: usize = 256;
/// Marks a database file as Golomb's (`PRAGMA application_id`, "GOLM").
const APPLICATION_ID: i64 = 0x474f_4c4d;

/// Version 1, as it was created: the base that the migrations build on.
const SCHEMA_V1: &str = "
CREATE TABLE jobs (
    id INTEGER PRIMARY KEY,
    rules TEXT NOT NULL, board TEXT NOT NULL, blocked TEXT NOT NULL, pieces TEXT NOT NULL,
    moves TEXT NOT NULL, goal TEXT NOT NULL, split_depth INTEGER NOT NULL, split_after REAL NOT NULL,
    each TEXT NOT NULL,
    symmetries INTEGER NOT NULL,
    state TEXT NOT NULL,
    root INTEGER,
    created REAL NOT NULL,
    finished REAL,
    error TEXT
);
CREATE TABLE nodes (
    id INTEGER PRIMARY KEY,
    job INTEGER NOT NULL REFERENCES jobs(id),
    key TEXT NOT NULL,
    line TEXT NOT NULL,
    depth INTEGER NOT NULL,
    rank BLOB NOT NULL,
    replies INTEGER NOT NULL,
    value TEXT,
    best TEXT,
    live INTEGER NOT NULL DEFAULT 1,
    open INTEGER NOT NULL DEFAULT 0,
    UNIQUE (job, key)
);
CREATE TABLE edges (
    parent INTEGER NOT NULL REFERENCES nodes(id),
    ord INTEGER NOT NULL,
    child INTEGER NOT NULL REFERENCES nodes(id),
    move TEXT NOT NULL,
    PRIMARY KEY (parent, ord)
);
CREATE INDEX edges_by_child ON edges(child);
CREATE TABLE units (
    id INTEGER PRIMARY KEY,
    job INTEGER NOT NULL REFERENCES jobs(id),
    node INTEGER NOT NULL UNIQUE REFERENCES nodes(id),
    rank BLOB NOT NULL,
    state TEXT NOT NULL,
    worker INTEGER,
    deadline REAL,
    attempts INTEGER NOT NULL DEFAULT 0,
    value TEXT,
    best TEXT,
    positions INTEGER NOT NULL DEFAULT 0,
    progress INTEGER NOT NULL DEFAULT 0,
    seconds REAL NOT NULL DEFAULT 0,
    error TEXT,
    finished REAL,
    weight INTEGER NOT NULL DEFAULT 1,
    checks TEXT NOT NULL DEFAULT '',
    solutions INTEGER,
    fixed INTEGER
);
CREATE INDEX units_queue ON units(state, job, rank);
CREATE INDEX units_by_worker ON units(worker, state);
CREATE INDEX units_by_job ON units(job, rank);
CREATE TABLE conflicts (
    id INTEGER PRIMARY KEY,
    unit INTEGER NOT NULL REFERENCES units(id),
    worker INTEGER,
    value TEXT NOT NULL,
    recorded TEXT NOT NULL,
    at REAL NOT NULL
);
CREATE TABLE workers (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    host TEXT NOT NULL,
    threads INTEGER NOT NULL,
    registered REAL NOT NULL,
    last_seen REAL NOT NULL,
    busy REAL NOT NULL DEFAULT 0
);
";

/// Version 1 to 2: the database's identity and per-lease tokens.
/// Units leased under version 1 have no token that a version-2 worker could
/// hold: they go back to the queue (without spending an attempt).
const V1_TO_V2: &str = "
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
ALTER TABLE units ADD COLUMN lease_token TEXT;
UPDATE units SET state = 'pending', worker = NULL, deadline = NULL, progress = 0 WHERE state = 'leased';
";

/// Version 2 to 3: pause, priority and drain, and the progress time series
/// (one row per job every minute or so while it runs: the proof-number
/// manager's figures, so progress over hours can be plotted).
const V2_TO_V3: &str = "
ALTER TABLE jobs ADD COLUMN paused INTEGER NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN priority INTEGER NOT NULL DEFAULT 0;
ALTER TABLE workers ADD COLUMN draining INTEGER NOT NULL DEFAULT 0;
CREATE TABLE progress (
    job INTEGER NOT NULL REFERENCES jobs(id),
    at REAL NOT NULL,
    proof_number REAL,
    disproof_number REAL,
    nodes INTEGER NOT NULL DEFAULT 0,
    nodes_proved INTEGER NOT NULL DEFAULT 0,
    nodes_disproved INTEGER NOT NULL DEFAULT 0,
    frontier INTEGER NOT NULL DEFAULT 0,
    in_flight INTEGER NOT NULL DEFAULT 0,
    positions INTEGER NOT NULL DEFAULT 0,
    children_decided INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (job, at)
);
";

/// Version 3 to 4: jobs of the hands game. `jobs.hands` and `jobs.neutral`
/// hold the setup (NULL for Golomb's game); `units.score` and `nodes.score`
/// the final score difference under best play from the FIRST player's view
/// (first minus second); `jobs.score` the root's score for its side to move,
/// once the job is done.
const V3_TO_V4: &str = "
ALTER TABLE jobs ADD COLUMN hands TEXT;
ALTER TABLE jobs ADD COLUMN neutral TEXT;
ALTER TABLE jobs ADD COLUMN score INTEGER;
ALTER TABLE units ADD COLUMN score INTEGER;
ALTER TABLE nodes ADD COLUMN score INTEGER;
";

/// Version 4 to 5: a worker whose results were voided (`golomb distrust`) is
/// marked, and leases nothing more; a job's first lease is kept
/// (`jobs.started`), so its rate counts only the time it ran, not its time
/// in the queue.
const V4_TO_V5: &str = "
ALTER TABLE workers ADD COLUMN distrusted INTEGER NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN started REAL;
";

/// Version 5 to 6: the coordinator's store of decided positions, shared by
/// all its jobs (`known`, see `store::known`): one row per position of a
/// game, keyed by the game and the position's canonical key, with a line
/// reaching it (its winning move is named in that line's position), the job
/// and node that decided it, and the worker whose unit did (NULL when its
/// children decided it, or it came from a file). A unit answered from it
/// names the job it came from (`units.known_job`); a job counts the nodes
/// and the positions it was spared (`jobs.known_nodes`, `jobs.known_positions`).
/// A unit that solves another unit's position again, to check its result
/// (`serve --check-fraction`), names that unit (`units.checking`).
const V5_TO_V6: &str = "
ALTER TABLE units ADD COLUMN checking INTEGER;
CREATE INDEX units_checks_by_job ON units(job, state) WHERE checking IS NOT NULL;
CREATE INDEX units_checks_by_checked ON units(checking) WHERE checking IS NOT NULL;
CREATE TABLE known (
    game TEXT NOT NULL,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    line TEXT NOT NULL,
    best TEXT,
    job INTEGER NOT NULL,
    node INTEGER NOT NULL,
    worker INTEGER,
    positions INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (game, key)
) WITHOUT ROWID;
CREATE INDEX known_by_worker ON known(worker);
ALTER TABLE units ADD COLUMN known_job INTEGER;
ALTER TABLE jobs ADD COLUMN known_nodes INTEGER NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN known_positions INTEGER NOT NULL DEFAULT 0;
";

/// Version 6 to 7: the proof tree a worker sent with a big unit's value
/// (`store::proofs`), one row per node, as JSON in the position of the
/// node's line, with the worker that sent it (NULL: from a file), so that
/// distrusting it drops the trees it sent; `golomb verify` then re-solves
/// the tree's small leaves instead of the unit's whole position. A check
/// unit made to bring a tree (`golomb prove`) asks its worker for one
/// whatever its search costs (`units.wants_proof`).
const V6_TO_V7: &str = "
CREATE TABLE proofs (
    node INTEGER PRIMARY KEY REFERENCES nodes(id),
    tree TEXT NOT NULL,
    worker INTEGER
);
CREATE INDEX proofs_by_worker ON proofs(worker);
ALTER TABLE units ADD COLUMN wants_proof INTEGER NOT NULL DEFAULT 0;
";

/// Version 7 to 8: a game job's progress sample names the root's child
/// that the search is closest to proving a winning move (`progress.closest`,
/// a node id; NULL for classify jobs, decided roots and older samples).
const V7_TO_V8: &str = "
ALTER TABLE progress ADD COLUMN closest INTEGER;
";

/// Version 8 to 9: children born lazily. A node expanded below a job's
/// root stores a batch of its children; `nodes.unborn` counts the ones not
/// stored yet and `nodes.unborn_replies` is the fewest replies among them
/// (both 0 for a node whose children are all stored, as every node of an
/// older file). `nodes.open` counts them as open children.
const V8_TO_V9: &str = "
ALTER TABLE nodes ADD COLUMN unborn INTEGER NOT NULL DEFAULT 0;
ALTER TABLE nodes ADD COLUMN unborn_replies INTEGER NOT NULL DEFAULT 0;
";

/// Version 9 to 10: who failed which unit. A unit fails its job only when
/// enough different workers failed it (a report of failure or a lease let
/// expire), and a worker's failure reports (`reported`: how many) count
/// against it, not the job.
const V9_TO_V10: &str = "
CREATE TABLE failures (
    unit INTEGER NOT NULL REFERENCES units(id),
    worker INTEGER NOT NULL,
    reported INTEGER NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (unit, worker)
) WITHOUT ROWID;
CREATE INDEX failures_by_worker ON failures(worker);
";

/// Version 10 to 11: when each unit was leased (`units.leased_at`, NULL
/// for units leased before), so that a split reported before the unit's
/// budget ran out is refused.
const V10_TO_V11: &str = "
ALTER TABLE units ADD COLUMN leased_at REAL;
";

/// Version 11 to 12: how many nodes the manager's tree held at each
/// progress sample (`progress.held`; it forgets what is below decided
/// nodes, see `manager/forget.rs`), 0 for samples taken before.
const V11_TO_V12: &str = "
ALTER TABLE progress ADD COLUMN held INTEGER NOT NULL DEFAULT 0;
";

/// Version 12 to 13: adaptive checks. `workers.agreed` counts the checks
/// by other workers that agreed with this worker's results (a worker's
/// results are all checked until it has earned trust, see `check`);
/// `jobs.unchecked` counts the results drawn for a check that no other
/// worker was at work to take.
const V12_TO_V13: &str = "
ALTER TABLE workers ADD COLUMN agreed INTEGER NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN unchecked INTEGER NOT NULL DEFAULT 0;
";

/// Version 13 to 14: checks between machines. `workers.address` is the
/// network address a worker registered from (NULL where none was known):
/// a check goes to a worker on another machine than the one whose result
/// it checks, so that one machine registering two ids cannot check itself.
const V13_TO_V14: &str = "
ALTER TABLE workers ADD COLUMN address TEXT;
";

/// Version 14 to 15: a unit's own budget in seconds (`units.budget`; NULL: its
/// job's `split_after`). A check goes out with its job's budget, as an
/// ordinary unit does, and one that ran past it comes back with budget 0
/// (solved whole); `golomb prove`'s re-solves have 0 from the start.
const V14_TO_V15: &str = "
ALTER TABLE units ADD COLUMN budget REAL;
";

/// Version 15 to 16: arbitration by a third worker. A check that disagrees
/// with the result it checks brings an *arbitration unit*, a check of the
/// same result (`units.checking`) that names the disagreeing check
/// (`units.arbitrating`) and goes to a worker on neither side's machine;
/// its result settles the dispute (see `dispute`).
const V15_TO_V16: &str = "
ALTER TABLE units ADD COLUMN arbitrating INTEGER;
CREATE INDEX units_arbitrations ON units(arbitrating) WHERE arbitrating IS NOT NULL;
";

/// Version 16 to 17: what a decided child of a classify job's root cost
/// (`nodes.cost`: the positions of the units below it, written when it is
/// decided), so that a job's status no longer sums every unit below every
/// decided opening (a classify's status read polled twice a second by
/// `golomb run` took a tenth of its CPU). NULL: summed when read.
const V16_TO_V17: &str = "
ALTER TABLE nodes ADD COLUMN cost INTEGER;
";

/// Version 17 to 18: two reads that went over a job's history on every call.
/// Whether a classify job has an undecided opening (asked after every
/// report) walked the root's decided children first, and a job's searched
/// positions (asked by every status read, twice a second by `golomb run`)
/// summed every unit: 6% of the coordinator's time each on the 7x7
/// classify at 0.05 s units, 0.1 to 0.2 s a status read on a job of half a
/// million units. Now the undecided nodes of each depth are an index
/// (`nodes_open_by_depth`), and each job's unit totals are a row
/// (`unit_totals`) that triggers keep as units are updated or deleted,
/// whatever writes them: a unit counts while it is leased or settled (not
/// while it waits: what a lease that expired searched no longer counts),
/// with its positions (`worked`: those of units a worker ran, not
/// imported ones) and a count job's tilings. A unit is always inserted
/// waiting, so it counts for nothing then and inserts need no trigger: one
/// that did nothing cost a job of a million units 14 s more to store
/// (`cargo bench --bench manager`), each insert running its program.
const V17_TO_V18: &str = "
CREATE INDEX nodes_open_by_depth ON nodes(job, depth) WHERE value IS NULL AND score IS NULL;
CREATE TABLE unit_totals (
    job INTEGER PRIMARY KEY,
    positions INTEGER NOT NULL DEFAULT 0,
    worked INTEGER NOT NULL DEFAULT 0,
    solutions INTEGER NOT NULL DEFAULT 0,
    fixed INTEGER NOT NULL DEFAULT 0
);
INSERT INTO unit_totals (job, positions, worked, solutions, fixed)
    SELECT job, COALESCE(SUM(positions + progress), 0),
           COALESCE(SUM(CASE WHEN worker IS NOT NULL THEN positions + progress ELSE 0 END), 0),
           COALESCE(SUM(solutions), 0), COALESCE(SUM(fixed), 0)
    FROM units WHERE state != 'pending' GROUP BY job;
CREATE TRIGGER unit_totals_delete AFTER DELETE ON units WHEN old.state != 'pending' BEGIN
    UPDATE unit_totals SET positions = positions - old.positions - old.progress,
        worked = worked - CASE WHEN old.worker IS NOT NULL THEN old.positions + old.progress ELSE 0 END,
        solutions = solutions - COALESCE(old.solutions, 0), fixed = fixed - COALESCE(old.fixed, 0)
    WHERE job = old.job;
END;
CREATE TRIGGER unit_totals_update AFTER UPDATE OF job, state, positions, progress, worker, solutions, fixed ON units
BEGIN
    UPDATE unit_totals SET positions = positions - old.positions - old.progress,
        worked = worked - CASE WHEN old.worker IS NOT NULL THEN old.positions + old.progress ELSE 0 END,
        solutions = solutions - COALESCE(old.solutions, 0), fixed = fixed - COALESCE(old.fixed, 0)
    WHERE job = old.job AND old.state != 'pending';
    INSERT OR IGNORE INTO unit_totals (job) SELECT new.job WHERE new.state != 'pending';
    UPDATE unit_totals SET positions = positions + new.positions + new.progress,
        worked = worked + CASE WHEN new.worker IS NOT NULL THEN new.positions + new.progress ELSE 0 END,
        solutions = solutions + COALESCE(new.solutions, 0), fixed = fixed + COALESCE(new.fixed, 0)
    WHERE job = new.job AND new.state != 'pending';
END;
";

/// Version 18 to 19: decided subtrees leave the tables (`store::trim`).
/// Below a node decided as a win only its winning child is needed; a queue
/// (`trim_queue`) holds the decided wins with other children stored, and
/// each job's row counts the nodes and done units deleted (`jobs.trimmed_*`),
/// and `trimmed_durations` the deleted done units' seconds by the bucket of
/// `/metrics` they fall in (`le`, the bucket's bound; 1e308 past the last),
/// so that the job's figures and the coordinator's counters stay what they
/// were. Conflicts get an index by unit (each deleted unit is looked up
/// there). A file from before queues its decided wins.
const V18_TO_V19: &str = "
ALTER TABLE jobs ADD COLUMN trimmed_nodes INTEGER NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN trimmed_proved INTEGER NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN trimmed_disproved INTEGER NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN trimmed_done INTEGER NOT NULL DEFAULT 0;
CREATE TABLE trimmed_durations (le REAL PRIMARY KEY, units INTEGER NOT NULL, seconds REAL NOT NULL);
CREATE INDEX conflicts_by_unit ON conflicts(unit);
CREATE TABLE trim_queue (node INTEGER PRIMARY KEY, retry_at REAL NOT NULL DEFAULT 0);
INSERT INTO trim_queue (node)
    SELECT DISTINCT p.id FROM nodes p JOIN edges e ON e.parent = p.id
    WHERE p.value = 'win' AND p.best IS NOT NULL AND e.move != p.best
      AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.root = p.id);
";

/// Schema 20: the positions a job searched in earlier sittings that no row
/// of this file holds (`jobs.carried_positions`). An export keeps decided
/// nodes only, so the search spent on nodes still undecided (a split node's
/// own budget, the line it followed) left the job's count at each resume;
/// an import that starts a job now carries the file's total (`golomb import`).
const V19_TO_V20: &str = "
ALTER TABLE jobs ADD COLUMN carried_positions INTEGER NOT NULL DEFAULT 0;
";

/// Random bytes as hex (identities and lease tokens).
pub(super) fn random_hex(bytes: usize) -> String {
    let mut buf = vec![0u8; bytes];
    // Without an OS random source there is no safe token: fail loudly.
    getrandom::fill(&mut buf).expect("the operating system's random source works");
    buf.iter().map(|b| format!("{b:02x}")).collect()
}

/// Opens (or creates) the database at `path` in WAL mode, refusing foreign or newer files.
pub(super) fn open(path: &Path) -> Result<Connection, StoreError> {
    let conn = Connection::open(path)?;
    super::storage::check_writable(&conn, path)?;
    conn.busy_timeout(std::time::Duration::from_secs(5))?;
    // Every statement of a lease and a report stays prepared: rusqlite keeps
    // 16 by default, fewer than one round trip runs, and re-preparing the
    // rest cost a third of the coordinator's time.
    conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
    // And they stay prepared when their values change. SQLite (3.54) marks
    // a statement with a `column = ?` filter to be prepared again whenever
    // that value is bound anew, in case the value changes the plan; rusqlite
    // clears a statement's bindings when it returns it to the cache, which
    // expires every such statement, so nearly every cached statement was
    // prepared again on each use (8% of `golomb run`'s CPU on the 7x7
    // classify at 0.05 s units). The planner's stability guarantee keeps
    // one plan a statement; no query of the store depends on its values'
    // statistics (there are none: the store never runs ANALYZE).
    conn.set_db_config(rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)?;
    let shown = path.display().to_string();
    let app: i64 = conn.query_row("PRAGMA application_id", [], |r| r.get(0))?;
    let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    let has_tables: bool =
        conn.query_row("SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table')", [], |r| r.get(0))?;
    if app != APPLICATION_ID && (app != 0 || has_tables) {
        return Err(StoreError::Foreign { path: shown, found: app });
    }
    if version > SCHEMA_VERSION {
        return Err(StoreError::Newer { path: shown, found: version, supported: SCHEMA_VERSION });
    }
    if has_tables {
        super::storage::check_integrity(&conn, path)?;
    }
    conn.pragma_update(None, "journal_mode", "WAL")?;
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    if version < SCHEMA_VERSION {
        migrate(&conn, version)?;
    }
    Ok(conn)
}

/// Brings a file of schema `version` (0: new) to [`SCHEMA_VERSION`], in one transaction.
fn migrate(conn: &Connection, version: i64) -> Result<(), StoreError> {
    let tx = conn.unchecked_transaction()?;
    if version < 1 {
        tx.execute_batch(SCHEMA_V1)?;
        tx.pragma_update(None, "application_id", APPLICATION_ID)?;
    }
    if version < 2 {
        tx.execute_batch(V1_TO_V2)?;
        tx.execute("INSERT INTO meta (key, value) VALUES ('db_id', ?1)", [random_hex(8)])?;
    }
    if version < 3 {
        tx.execute_batch(V2_TO_V3)?;
    }
    if version < 4 {
        tx.execute_batch(V3_TO_V4)?;
    }
    if version < 5 {
        tx.execute_batch(V4_TO_V5)?;
    }
    if version < 6 {
        tx.execute_batch(V5_TO_V6)?;
    }
    if version < 7 {
        tx.execute_batch(V6_TO_V7)?;
    }
    if version < 8 {
        tx.execute_batch(V7_TO_V8)?;
    }
    if version < 9 {
        tx.execute_batch(V8_TO_V9)?;
    }
    if version < 10 {
        tx.execute_batch(V9_TO_V10)?;
    }
    if version < 11 {
        tx.execute_batch(V10_TO_V11)?;
    }
    if version < 12 {
        tx.execute_batch(V11_TO_V12)?;
    }
    if version < 13 {
        tx.execute_batch(V12_TO_V13)?;
    }
    if version < 14 {
        tx.execute_batch(V13_TO_V14)?;
    }
    if version < 15 {
        tx.execute_batch(V14_TO_V15)?;
    }
    if version < 16 {
        tx.execute_batch(V15_TO_V16)?;
    }
    if version < 17 {
        tx.execute_batch(V16_TO_V17)?;
    }
    if version < 18 {
        tx.execute_batch(V17_TO_V18)?;
    }
    if version < 19 {
        tx.execute_batch(V18_TO_V19)?;
    }
    if version < 20 {
        tx.execute_batch(V19_TO_V20)?;
    }
    tx.pragma_update(None, "user_version", SCHEMA_VERSION)?;
    tx.commit()?;
    Ok(())
}

/// The database's identity: random, made when the file was created (or migrated).
pub(super) fn db_id(conn: &Connection) -> Result<String, StoreError> {
    Ok(conn.query_row("SELECT value FROM meta WHERE key = 'db_id'", [], |r| r.get(0))?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_version_1_file_is_migrated_and_keeps_its_rows() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v1.db");
        {
            let conn = Connection::open(&path).unwrap();
            conn.execute_batch(SCHEMA_V1).unwrap();
            conn.pragma_update(None, "application_id", APPLICATION_ID).unwrap();
            conn.pragma_update(None, "user_version", 1).unwrap();
            conn.execute(
                "INSERT INTO workers (name, host, threads, registered, last_seen) VALUES ('w', 'h', 2, 0, 0)",
                [],
            )
            .unwrap();
        }
        let conn = open(&path).unwrap();
        let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
        assert_eq!(version, SCHEMA_VERSION);
        assert_eq!(db_id(&conn).unwrap().len(), 16);
        let workers: i64 = conn.query_row("SELECT COUNT(*) FROM workers", [], |r| r.get(0)).unwrap();
        assert_eq!(workers, 1);
        drop(conn);
        let again = open(&path).unwrap();
        assert_eq!(db_id(&again).unwrap().len(), 16, "reopening keeps the identity");
    }

    #[test]
    fn a_version_3_file_gains_the_hands_columns_and_keeps_its_jobs() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v3.db");
        {
            let conn = Connection::open(&path).unwrap();
            conn.execute_batch(SCHEMA_V1).unwrap();
            conn.execute_batch(V1_TO_V2).unwrap();
            conn.execute_batch(V2_TO_V3).unwrap();
            conn.execute("INSERT INTO meta (key, value) VALUES ('db_id', 'abcdef0123456789')", []).unwrap();
            conn.pragma_update(None, "application_id", APPLICATION_ID).unwrap();
            conn.pragma_update(None, "user_version", 3).unwrap();
            conn.execute(
                "INSERT INTO jobs (rules, board, blocked, pieces, moves, goal, split_depth, split_after, each,
                                   symmetries, state, created)
                 VALUES ('golomb', '6x6', '', 'pentominoes', '', 'solve', 1, 30, '', 8, 'done', 0)",
                [],
            )
            .unwrap();
        }
        let conn = open(&path).unwrap();
        let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
        assert_eq!(version, SCHEMA_VERSION);
        assert_eq!(db_id(&conn).unwrap(), "abcdef0123456789", "the identity is kept");
        let (hands, neutral, score): (Option<String>, Option<String>, Option<i64>) = conn
            .query_row("SELECT hands, neutral, score FROM jobs", [], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap();
        assert_eq!((hands, neutral, score), (None, None, None), "an old job is Golomb's game");
        for table in ["units", "nodes"] {
            let has: bool = conn
                .query_row(
                    &format!("SELECT COUNT(*) > 0 FROM pragma_table_info('{table}') WHERE name = 'score'"),
                    [],
                    |r| r.get(0),
                )
                .unwrap();
            assert!(has, "{table}.score exists");
        }
    }
}
