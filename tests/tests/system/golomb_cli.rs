//! End-to-end tests of the `golomb` command line: the real binary, its
//! output, its JSON and its exit codes.

use std::process::{Command, Output};

fn golomb(args: &[&str]) -> Output {
    Command::new(golomb_tests::binary("golomb")).args(args).output().expect("the golomb binary runs")
}

fn json(args: &[&str]) -> serde_json::Value {
    let out = golomb(args);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("valid JSON")
}

/// Runs a command that must fail; returns its message.
fn failure(args: &[&str]) -> String {
    let out = golomb(args);
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(!out.status.success(), "{args:?} should fail");
    assert!(!stderr.contains("panicked"), "{args:?} panicked: {stderr}");
    stderr
}

#[test]
fn info_counts_placements_on_eight_by_eight() {
    let info = json(&["info", "--board", "8x8", "--json"]);
    assert_eq!(info["placements"], 2308);
    assert_eq!(info["placements_up_to_symmetry"], 296);
    assert_eq!(info["symmetries"], 8);
    let text = String::from_utf8(golomb(&["info", "--board", "8x8"]).stdout).unwrap();
    assert!(text.contains("2308 (296 up to symmetry)"), "{text}");
    let holed = json(&["info", "--board", "8x8", "--blocked", "d4,e4,d5,e5", "--json"]);
    assert_eq!(holed["playable_cells"], 60);
    assert_eq!(holed["symmetries"], 8);
    let hex = json(&["info", "--board", "15x15", "--pieces", "hexominoes", "--json"]);
    assert_eq!(hex["piece_names"].as_array().unwrap().len(), 35);
}

#[test]
fn pieces_reports_polyomino_counts() {
    for (order, free, one_sided, fixed) in [(4, 5, 7, 19), (5, 12, 18, 63), (6, 35, 60, 216), (8, 369, 704, 2725)] {
        let p = json(&["pieces", "--order", &order.to_string(), "--json"]);
        assert_eq!(
            (p["free"].as_u64(), p["one_sided"].as_u64(), p["fixed"].as_u64()),
            (Some(free), Some(one_sided), Some(fixed))
        );
        assert_eq!(p["pieces"].as_array().unwrap().len(), free as usize);
    }
    let p = json(&["pieces", "--order", "5", "--json"]);
    assert_eq!(p["pieces"][3]["name"], "N");
    assert_eq!(p["pieces"][3]["cells"].as_array().unwrap().len(), 5);
}

#[test]
fn moves_lists_and_counts_legal_moves() {
    let opening = "N:a1,b1,b2,c2,d2";
    let m = json(&["moves", "--moves", opening, "--json"]);
    let listed = m["moves"].as_array().unwrap();
    assert_eq!(m["count"].as_u64().unwrap() as usize, listed.len());
    assert_eq!(m["side_to_move"], "second");
    // Every listed move plays, and round-trips through the command line.
    let reply = listed[0].as_str().unwrap();
    let after = json(&["moves", "--moves", &format!("{opening};{reply}"), "--count", "--json"]);
    assert!(after["count"].as_u64().unwrap() < m["count"].as_u64().unwrap());
    let plain = String::from_utf8(golomb(&["moves", "--count"]).stdout).unwrap();
    assert_eq!(plain.trim(), "2308");
}

#[test]
fn perft_counts_sequences() {
    let one = json(&["perft", "--depth", "1", "--json"]);
    assert_eq!(one["count"], 2308);
    let two = json(&["perft", "--depth", "2", "--threads", "1", "--json"]);
    let two_parallel = json(&["perft", "--depth", "2", "--threads", "2", "--json"]);
    assert_eq!(two["count"], two_parallel["count"]);
    assert_eq!(two["count"], 3_418_576);
}

#[test]
fn bad_input_is_rejected_with_the_offending_token() {
    let cases: &[(&[&str], &str)] = &[
        (&["moves", "--moves", "L:a1,a2,a3,a4,z1"], "`z1`"),
        (&["moves", "--moves", "L:a1,a2,a3,a4,a9"], "cell `a9` is off the 8x8 board"),
        (&["moves", "--moves", "Q:a1,a2,a3,a4,b1"], "unknown piece `Q`"),
        (&["moves", "--moves", "L:a1,a2,a3,a4,c1"], "do not form piece L"),
        (
            &["moves", "--moves", "L:a1,a2,a3,a4,b1;I:a1,b1,c1,d1,e1"],
            "move 2 `I:a1,b1,c1,d1,e1` is illegal: cell a1 is already covered",
        ),
        (&["moves", "--moves", "L:a1,a2,a3,a4,b1;L:h1,h2,h3,h4,g1"], "piece L is already on the board"),
        (&["moves", "--moves", "L a1"], "`L a1` is not a move"),
        (&["info", "--board", "17x17"], "board 17x17 is not supported"),
        (&["info", "--board", "eight"], "`eight` is not a board size"),
        (&["info", "--blocked", "d4,x4"], "`x4`"),
        (&["info", "--blocked", "d4,d4"], "blocked cell `d4` is listed twice"),
        (&["info", "--pieces", "heptagons"], "unknown piece set `heptagons`"),
        (&["info", "--pieces", "order:7"], "at most 64"),
        (&["moves", "--blocked", "a1", "--moves", "I:a1,a2,a3,a4,a5"], "cell `a1` is blocked"),
        (&["pieces", "--order", "0"], "--order"),
    ];
    for (args, expected) in cases {
        let message = failure(args);
        assert!(message.contains(expected), "{args:?}: expected {expected:?} in {message:?}");
    }
}

#[test]
fn solve_rectangles_and_verify_their_proofs() {
    let dir = std::env::temp_dir().join(format!("golomb-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (board, value) in [("2x2", "loss"), ("4x4", "loss"), ("3x4", "win"), ("5x5", "win"), ("6x5", "win")] {
        let proof = dir.join(format!("{board}.json"));
        let solved = json(&["solve", "--board", board, "--tt-mb", "16", "--proof", proof.to_str().unwrap(), "--json"]);
        assert_eq!(solved["value"], value, "{board}");
        assert_eq!(solved["winning_move"].is_string(), value == "win", "{board}");
        let verified = json(&["verify", proof.to_str().unwrap(), "--json"]);
        assert_eq!(verified["verified"], true);
        assert_eq!(verified["value"], value);
    }
    // A proof whose winning move is swapped for a losing one is refused, naming the position.
    let proof = dir.join("6x5.json");
    let text = std::fs::read_to_string(&proof).unwrap();
    let mut file: serde_json::Value = serde_json::from_str(&text).unwrap();
    let first_reply = file["tree"]["after"]["replies"][0].clone();
    let line = format!("{};{}", file["tree"]["move"].as_str().unwrap(), first_reply["move"].as_str().unwrap());
    let answers = json(&["moves", "--board", "6x5", "--moves", &line, "--json"]);
    let losing = answers["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap().to_string())
        .find(|m| {
            json(&["solve", "--board", "6x5", "--moves", &format!("{line};{m}"), "--tt-mb", "1", "--json"])["value"]
                == "win"
        })
        .expect("some answer loses");
    file["tree"]["after"]["replies"][0]["after"]["move"] = serde_json::Value::String(losing.clone());
    std::fs::write(&proof, file.to_string()).unwrap();
    let message = failure(&["verify", proof.to_str().unwrap()]);
    assert!(message.contains("NOT verified") && message.contains(&losing), "{message}");
    std::fs::write(&proof, "{ not json").unwrap();
    assert!(failure(&["verify", proof.to_str().unwrap()]).contains("not a valid proof file"));
    std::fs::remove_dir_all(&dir).ok();
}

/// A proof written compressed (a name ending in `.gz`) and checked in two
/// parts, as two machines would: the parts' re-solves are the whole proof's,
/// and both name the same proof.
#[test]
fn a_compressed_proof_verifies_in_parts() {
    let dir = tempfile::tempdir().unwrap();
    let proof = dir.path().join("6x5.json.gz");
    let path = proof.to_str().unwrap();
    json(&["solve", "--board", "6x5", "--tt-mb", "16", "--proof", path, "--json"]);
    assert!(std::fs::read(&proof).unwrap().starts_with(&[0x1f, 0x8b]), "written with gzip");
    let whole = json(&["verify", path, "--json"]);
    assert_eq!(whole["value"], "win");
    assert!(whole.get("part").is_none(), "{whole}");
    let parts: Vec<_> = ["1/2", "2/2"].iter().map(|k| json(&["verify", path, "--part", k, "--json"])).collect();
    let leaves: u64 = parts.iter().map(|p| p["leaves"].as_u64().unwrap()).sum();
    assert_eq!(leaves, whole["leaves"].as_u64().unwrap());
    assert_eq!(parts[0]["leaves_in_proof"], whole["leaves"]);
    assert_eq!(parts[0]["proof_sha256"], parts[1]["proof_sha256"]);
    assert_eq!(parts[1]["part"], "2/2");
    let text = String::from_utf8(golomb(&["verify", path, "--part", "1/2"]).stdout).unwrap();
    assert!(
        text.starts_with("part 1/2 verified: win for the side to move at the empty board, if every part"),
        "{text}"
    );
    assert!(failure(&["verify", path, "--part", "3/2"]).contains("1 to 2"));
}

#[test]
fn solve_reports_statistics_and_stops_on_budget() {
    let solved = json(&["solve", "--board", "6x5", "--threads", "2", "--json"]);
    assert!(solved["stats"]["positions"].as_u64().unwrap() > 1);
    assert!(solved["stats"]["positions_per_child"].is_array());
    let stopped = json(&["solve", "--board", "8x8", "--max-positions", "20000", "--tt-mb", "8", "--json"]);
    assert_eq!(stopped["value"], "unknown");
    assert!(failure(&["solve", "--order", "random"]).contains("random"));
    let text = String::from_utf8(golomb(&["solve", "--board", "4x4"]).stdout).unwrap();
    assert!(text.contains("value:        loss"), "{text}");
}

#[test]
fn tile_counts_and_draws_pentomino_tilings() {
    let holed = ["tile", "--board", "8x8", "--blocked", "d4,e4,d5,e5", "--count", "--json"];
    let one = json(&[&holed[..], &["--threads", "1"]].concat());
    let two = json(&[&holed[..], &["--threads", "2"]].concat());
    for c in [&one, &two] {
        assert_eq!((c["solutions"].as_u64(), c["solutions_up_to_symmetry"].as_u64()), (Some(520), Some(65)));
        assert!(c["seconds"].as_f64().is_some());
    }
    let strip = json(&["tile", "--board", "20x3", "--count", "--json"]);
    assert_eq!((strip["solutions"].as_u64(), strip["solutions_up_to_symmetry"].as_u64()), (Some(8), Some(2)));
    let text = String::from_utf8(golomb(&["tile", "--board", "3x20", "--limit", "1"]).stdout).unwrap();
    let rows: Vec<&str> = text.lines().take_while(|l| !l.is_empty()).collect();
    assert_eq!(rows.len(), 20, "{text}");
    assert!(rows.iter().all(|r| r.len() == 3 && r.chars().all(|c| "FILNPTUVWXYZ".contains(c))), "{text}");
    assert!(text.contains("1 tiling shown, stopped at the limit"), "{text}");
    let drawn = json(&["tile", "--board", "3x20", "--json"]);
    assert_eq!(drawn["shown"], 8);
    assert_eq!(drawn["tilings"][0].as_array().unwrap().len(), 20);
    let subsets = json(&["tile", "--board", "5x4", "--each", "at-most", "--count", "--json"]);
    assert!(subsets["solutions"].as_u64().unwrap() > 0);
}

#[test]
fn tile_rejects_impossible_requests() {
    let message = failure(&["tile", "--board", "8x8", "--count"]);
    assert!(message.contains("64 free cells") && message.contains("60"), "{message}");
    assert!(failure(&["tile", "--board", "6x10", "--each", "twice"]).contains("twice"));
    assert!(failure(&["tile", "--board", "6x10", "--blocked", "z9"]).contains("z9"));
}

#[test]
fn stars_solves_puzzle_files() {
    let dir = std::env::temp_dir().join(format!("golomb-stars-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_string()
    };
    let unique =
        write("unique.txt", "HHHEECCC\nHEEEECCC\nAAEEEDDD\nAAAEEDDD\nAAAFEDDD\nFFFFDDGG\nFFFFDDGG\nFFFFFBBG\n");
    let solved = json(&["stars", &unique, "--json"]);
    assert_eq!(solved["count"], 1);
    assert_eq!(solved["solutions"][0][0], ".*......");
    let text = String::from_utf8(golomb(&["stars", &unique]).stdout).unwrap();
    assert!(text.starts_with(".*......\n.....*..\n") && text.contains("1 solution"), "{text}");
    let two = write("two.txt", "CCCDDAAA\nCCCDDAAA\nCCCDDBBB\nFFCBBBBB\nFFHHGGBB\nFFHHHGGB\nFEEHHGGB\nFEEEEGGG\n");
    assert_eq!(json(&["stars", &two, "--stars", "2", "--json"])["count"], 1);
    let none = write("none.txt", "AAABB\nCCCCC\nDDDDD\nEEEEE\nEEEEE\n");
    let text = String::from_utf8(golomb(&["stars", &none]).stdout).unwrap();
    assert_eq!(text.trim(), "no solution");
    let ragged = write("ragged.txt", "ABC\nABC\nAB\n");
    let message = failure(&["stars", &ragged]);
    assert!(message.contains("line 3") && message.contains("ragged.txt"), "{message}");
    assert!(failure(&["stars", &unique, "--stars", "9"]).contains("9 stars"));
    assert!(failure(&["stars", dir.join("missing.txt").to_str().unwrap()]).contains("cannot read"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn run_classifies_on_one_machine_and_resumes_from_its_file() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("run.db");
    let db = db.to_str().unwrap();
    let args = ["run", "--board", "5x5", "--goal", "classify", "--db", db, "--tt-mb", "8", "--threads", "1", "--json"];
    let first = golomb(&args);
    assert!(first.status.success(), "{}", String::from_utf8_lossy(&first.stderr));
    let first: serde_json::Value = serde_json::from_slice(&first.stdout).unwrap();
    assert_eq!(first["state"], "done");
    assert_eq!(first["value"], "win");
    assert_eq!(first["children"].as_array().unwrap().len(), 571);
    assert!(first["local_worker"]["units"].as_u64().unwrap() > 0);
    // Again with the same file: answered from it, nothing solved.
    let again = golomb(&args);
    assert!(String::from_utf8_lossy(&again.stderr).contains("resuming job 1"));
    let again: serde_json::Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!(again["local_worker"]["units"], 0);
    assert_eq!(again["children"], first["children"]);
}

#[test]
fn run_refuses_a_bad_job_before_starting() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("run.db");
    let out =
        golomb(&["run", "--board", "5x5", "--goal", "classify", "--split-depth", "0", "--db", db.to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("split depth 0 is out of range"), "{out:?}");
}

/// Issue 14, item 2: an output file that cannot be created fails the command
/// at once, before any search (the 8x8 board would take hours).
#[test]
fn output_files_are_checked_before_any_search() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-dir").join("proof.json");
    let missing = missing.to_str().unwrap();
    let start = std::time::Instant::now();
    let message = failure(&["solve", "--board", "8x8", "--max-seconds", "60", "--proof", missing]);
    assert!(message.contains("cannot create") && message.contains("no-such-dir"), "{message}");
    let db = dir.path().join("run.db");
    let message = failure(&["run", "--board", "8x8", "--db", db.to_str().unwrap(), "--proof", missing, "--quiet"]);
    assert!(message.contains("cannot create"), "{message}");
    assert!(!db.exists(), "nothing was started");
    let message = failure(&["results", "1", "--coordinator", "127.0.0.1:9", "--proof", missing]);
    assert!(message.contains("cannot create"), "before connecting: {message}");
    assert!(start.elapsed().as_secs() < 30, "refused only after searching");
    // A search stopped early writes no proof, and leaves no empty file behind.
    let proof = dir.path().join("stopped.json");
    let message = failure(&["solve", "--board", "8x8", "--max-positions", "1000", "--proof", proof.to_str().unwrap()]);
    assert!(message.contains("no proof"), "{message}");
    assert!(!proof.exists());
}

/// Issue 14, item 4: a table larger than the machine is refused up front, with the size it can hold.
#[test]
fn an_impossible_table_is_refused_up_front() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("run.db");
    for args in [
        vec!["solve", "--board", "5x5", "--tt-mb", "100000000"],
        vec!["run", "--board", "5x5", "--tt-mb", "100000000", "--db", db.to_str().unwrap()],
    ] {
        let message = failure(&args);
        assert!(message.contains("GiB available") && message.contains("use at most --tt-mb"), "{message}");
    }
    // The default fits the board: a 5x5 table is small.
    let solved = json(&["solve", "--board", "5x5", "--json"]);
    assert_eq!(solved["tt_mb"], 16, "{solved}");
}

/// Issue 14, item 10: each cause is printed once.
#[test]
fn errors_name_each_cause_once() {
    let dir = tempfile::tempdir().unwrap();
    let bad_db = dir.path().join("bad.db");
    std::fs::write(&bad_db, "not a database, not even close; long enough to have a header of sorts").unwrap();
    let cases: [&[&str]; 4] = [
        &["status", "--coordinator", "127.0.0.1:9"],
        &["verify", "/no/such/proof.json"],
        &["run", "--board", "5x5", "--goal", "classfy"],
        &["run", "--board", "5x5", "--db", bad_db.to_str().unwrap()],
    ];
    for args in cases {
        let message = failure(args);
        let message = message.trim().trim_start_matches("error: ");
        let parts: Vec<&str> = message.split(": ").collect();
        for (i, part) in parts.iter().enumerate() {
            assert!(!parts[i + 1..].contains(part), "{args:?}: `{part}` twice in {message}");
        }
    }
}

/// Issue 14, item 12: cells in any case; a bad blocked cell blames `--blocked`.
#[test]
fn cells_in_any_case_and_the_right_option_blamed() {
    let upper = json(&["moves", "--moves", "N:C4,D4,E4,E5,F5", "--count", "--json"]);
    let lower = json(&["moves", "--moves", "N:c4,d4,e4,e5,f5", "--count", "--json"]);
    assert_eq!(upper["count"], lower["count"]);
    assert!(failure(&["info", "--blocked", "zz"]).contains("bad --blocked"));
    assert!(failure(&["info", "--board", "9by9"]).contains("bad --board"));
}

/// Issue 14, items 8, 11 and 12: `verify` says what it is doing while it
/// works; tilings are drawn up to a default limit; plurals agree; the
/// classify table leads with the movers' wins; `serve --json`.
#[test]
fn small_things_a_new_user_meets() {
    let tiles = String::from_utf8(golomb(&["tile", "--board", "6x10"]).stdout).unwrap();
    assert!(
        tiles.contains("100 tilings shown, stopped at the limit") && tiles.contains("--all"),
        "{}",
        &tiles[tiles.len().saturating_sub(300)..]
    );
    // A reader that stops early (`| head`) ends the command quietly, in text and in JSON
    // (whose writer wraps the closed pipe in its own error: the fresh-clone walk saw it).
    for format in [None, Some("--json")] {
        let mut all = std::process::Command::new(golomb_tests::binary("golomb"))
            .args(["tile", "--board", "6x10", "--all"])
            .args(format)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut head = [0u8; 16];
        std::io::Read::read_exact(all.stdout.as_mut().unwrap(), &mut head).unwrap();
        drop(all.stdout.take());
        let ended = all.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&ended.stderr);
        assert!(ended.status.success() && ended.stderr.is_empty(), "{format:?}: {stderr}");
    }
    let one = String::from_utf8(golomb(&["tile", "--board", "6x10", "--limit", "1"]).stdout).unwrap();
    assert!(one.contains("1 tiling shown"), "{one}");
    let dir = tempfile::tempdir().unwrap();
    let proof = dir.path().join("4x4.json");
    json(&["solve", "--board", "4x4", "--proof", proof.to_str().unwrap(), "--json"]);
    let verified = String::from_utf8(golomb(&["verify", proof.to_str().unwrap()]).stdout).unwrap();
    assert!(verified.starts_with("verified: loss for the side to move"), "{verified}");
    let db = dir.path().join("run.db");
    let out = golomb(&["run", "--board", "5x5", "--goal", "classify", "--db", db.to_str().unwrap(), "--quiet"]);
    let table = String::from_utf8(out.stdout).unwrap();
    let again = json(&["run", "--board", "5x5", "--goal", "classify", "--db", db.to_str().unwrap(), "--json"]);
    let children = again["children"].as_array().unwrap();
    assert!(children.iter().any(|c| c["same_as"].is_string()), "5x5 has merged rows");
    for c in children.iter().filter(|c| c["same_as"].is_string()) {
        assert_eq!((c["positions"].as_u64(), c["seconds"].as_f64()), (Some(0), Some(0.0)), "counted once: {c}");
    }
    let summed: u64 = children.iter().map(|c| c["positions"].as_u64().unwrap()).sum();
    assert!(summed <= again["positions"].as_u64().unwrap(), "rows add up to at most the job: {summed}");
    let first_row = table.lines().skip_while(|l| !l.starts_with("#")).nth(1).unwrap();
    assert!(first_row.split_whitespace().nth(2) == Some("win"), "winning moves first: {first_row}");
    assert!(table.contains("win for the player who makes them"), "{table}");
    let mut serve = std::process::Command::new(golomb_tests::binary("golomb"))
        .args(["serve", "--listen", "127.0.0.1:0", "--json", "--db", dir.path().join("s.db").to_str().unwrap()])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(&mut std::io::BufReader::new(serve.stdout.take().unwrap()), &mut line).unwrap();
    serve.kill().unwrap();
    serve.wait().unwrap();
    let listening: serde_json::Value = serde_json::from_str(&line).unwrap();
    assert!(listening["coordinator"].as_str().unwrap().starts_with("http://127.0.0.1:"), "{line}");
}

#[test]
fn the_solver_suite_runs_a_case_and_checks_its_value() {
    let report = json(&["bench", "--suite", "--only", "8x5", "--tt-mb", "16", "--json"]);
    let rows = report["rows"].as_array().expect("rows");
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["name"], "8x5");
    assert_eq!(rows[0]["value"], "loss");
    assert_eq!(rows[0]["correct"], true);
    assert!(rows[0]["positions"].as_u64().unwrap() > 0);
}

#[test]
fn draw_games_draws_every_committed_table_and_its_winning_moves_are_legal() {
    let results = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../results");
    let dir = tempfile::tempdir().unwrap();
    for pieces in ["tetrominoes", "pentominoes", "hexominoes"] {
        let table = results.join(format!("{pieces}-games.csv"));
        let svg = dir.path().join(format!("{pieces}.svg"));
        let drawn = json(&[
            "draw-games",
            table.to_str().unwrap(),
            "--pieces",
            pieces,
            "--svg",
            svg.to_str().unwrap(),
            "--json",
        ]);
        let picture = std::fs::read_to_string(&svg).unwrap();
        let rows = std::fs::read_to_string(&table).unwrap();
        let valued = |value: &str| rows.lines().filter(|l| l.split(',').nth(1) == Some(value)).count();
        let unsolved: Vec<&str> = rows
            .lines()
            .filter(|l| l.split(',').nth(1).is_some_and(|v| v.starts_with("unsolved")))
            .map(|l| l.split(',').next().unwrap())
            .collect();
        assert_eq!(picture.matches(": first wins").count(), valued("win"), "{pieces}: one board a first-player win");
        assert_eq!(picture.matches(": second wins").count(), valued("loss"), "{pieces}: one board a second-player win");
        assert_eq!(drawn["first_player_wins"].as_u64(), Some(valued("win") as u64), "{pieces}: {drawn}");
        assert_eq!(drawn["not_solved"], serde_json::json!(unsolved), "{pieces}");
        assert!(valued("win") > 30, "{pieces}: the table has its rows");
        let committed = std::fs::read_to_string(results.join(format!("{pieces}-games.svg"))).unwrap();
        assert!(committed == picture, "results/{pieces}-games.svg is not what draw-games draws from its table now");
    }
    // A winning move that is not a legal first move is refused, naming the line and the field,
    // and the output path is left as it was.
    let bad = dir.path().join("bad.csv");
    std::fs::write(&bad, "board,value,winning_move\n5x5,win,\"I:a1,b1,c1,d1,e2\"\n").unwrap();
    let kept = dir.path().join("kept.svg");
    std::fs::write(&kept, "kept").unwrap();
    let err =
        failure(&["draw-games", bad.to_str().unwrap(), "--pieces", "pentominoes", "--svg", kept.to_str().unwrap()]);
    assert!(err.contains("line 2") && err.contains("winning_move"), "{err}");
    assert_eq!(std::fs::read_to_string(&kept).unwrap(), "kept");
}
