//! System tests of `golomb play` and `golomb selfplay` (issue 15): the real
//! binary, its stdin scripted line by line as a person would type, reading
//! its prompts; the saved record handed to `golomb solve` and replayed.

use std::io::{Read, Write};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use golomb_tests::{golomb_command, output_within};

const PROMPT: &str = "your move> ";
const WAIT: Duration = Duration::from_secs(120);

/// A running `golomb play`, driven through its stdin and stdout.
struct Play {
    child: Child,
    stdin: Option<ChildStdin>,
    output: Receiver<Vec<u8>>,
    pending: String,
}

impl Play {
    fn start(args: &[&str]) -> Play {
        let mut child = golomb_command()
            .arg("play")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("golomb play starts");
        let mut stdout = child.stdout.take().expect("piped stdout");
        let (send, output) = channel();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = stdout.read(&mut buf) {
                if n == 0 || send.send(buf[..n].to_vec()).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        Play { child, stdin, output, pending: String::new() }
    }

    /// The output up to the next prompt (or to the end of the output), the prompt included.
    fn next_turn(&mut self) -> String {
        let deadline = Instant::now() + WAIT;
        loop {
            if let Some(end) = self.pending.find(PROMPT) {
                let turn: String = self.pending.drain(..end + PROMPT.len()).collect();
                return turn;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            assert!(!left.is_zero(), "no prompt within {WAIT:?}; output so far:\n{}", self.pending);
            match self.output.recv_timeout(left) {
                Ok(bytes) => self.pending.push_str(&String::from_utf8_lossy(&bytes)),
                Err(_) => return std::mem::take(&mut self.pending),
            }
        }
    }

    /// Types `line` and returns the answer, up to the next prompt.
    fn say(&mut self, line: &str) -> String {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{line}").expect("golomb play reads its input");
        stdin.flush().expect("flushed");
        self.next_turn()
    }

    /// Waits for the process to end; its exit status.
    fn finish(mut self) -> std::process::ExitStatus {
        drop(self.stdin.take());
        let deadline = Instant::now() + WAIT;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return status;
            }
            assert!(Instant::now() < deadline, "golomb play did not exit");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Play {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The first move `moves` lists, in the notation.
fn first_listed_move(listing: &str) -> String {
    listing
        .lines()
        .find_map(|l| l.split_whitespace().next().filter(|w| w.contains(':')))
        .unwrap_or_else(|| panic!("no move listed:\n{listing}"))
        .to_string()
}

/// The pieces the legend says the computer placed.
fn computer_pieces(turn: &str) -> Vec<String> {
    let line = turn.lines().rev().find(|l| l.starts_with("computer")).unwrap_or("");
    let list = line.split_once(": ").map_or("", |(_, l)| l);
    if list == "nothing yet" { Vec::new() } else { list.split_whitespace().map(String::from).collect() }
}

/// A whole game on 5x5 with tetrominoes: mistakes refused with their reasons
/// and the game going on, `show`, `hint`, `undo`, then moves to the end; the
/// record saved, solved by `golomb solve` and replayed.
#[test]
fn a_game_to_the_end_with_mistakes_hint_undo_save_solve_and_replay() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("game.txt");
    let record_arg = record.to_str().unwrap();
    let mut play =
        Play::start(&["--pieces", "4", "--board", "5x5", "--think", "1", "--seed", "3", "--save", record_arg]);
    let opening = play.next_turn();
    assert!(opening.contains("tetrominoes on 5x5"), "{opening}");
    assert!(opening.contains("  a b c d e"), "cell names on the edges: {opening}");
    assert!(!opening.contains('\x1b'), "no colours when stdout is not a terminal: {opening}");

    // Mistakes, each refused with its reason; the game goes on.
    let answer = play.say("O:a1,a2");
    assert!(answer.contains("the 2 cells do not form piece O"), "{answer}");
    let answer = play.say("Q 1 a1");
    assert!(answer.contains("unknown piece `Q`: the pieces are"), "{answer}");
    let answer = play.say("I 1 a9");
    assert!(answer.contains("in `I 1 a9`:"), "{answer}");
    let answer = play.say("L:a1,a2,a3;b1");
    assert!(answer.contains("Not understood"), "{answer}");
    let answer = play.say("show L");
    assert!(answer.contains("@ marks the anchor") && answer.matches('@').count() >= 8, "{answer}");

    // A legal move; the computer answers.
    let answer = play.say("O:a1,b1,a2,b2");
    assert!(answer.contains("The computer plays"), "{answer}");
    let theirs = computer_pieces(&answer);
    assert_eq!(theirs.len(), 1, "{answer}");
    let answer = play.say("O:c3,d3,c4,d4");
    assert!(answer.contains("Illegal move") && answer.contains("piece O is already on the board"), "{answer}");
    let free = ["I", "L", "S", "T"].into_iter().find(|p| !theirs.iter().any(|t| t == p)).unwrap();
    let answer = play.say(&format!("{free} 1 a1"));
    assert!(answer.contains("cell a1 is already covered"), "{answer}");

    // A hint: every move rated, the counts add up.
    let answer = play.say("hint");
    let counts: Vec<usize> = answer
        .split("of your ")
        .nth(1)
        .unwrap_or_else(|| panic!("{answer}"))
        .split(|c: char| !c.is_ascii_digit())
        .filter(|w| !w.is_empty())
        .take(4)
        .map(|w| w.parse().unwrap())
        .collect();
    assert_eq!(counts[0], counts[1] + counts[2] + counts[3], "{answer}");
    let listed = play.say("moves");
    assert!(listed.contains(&format!("{} legal moves.", counts[0])), "{listed}");

    // Undo takes back our move and the computer's reply.
    let answer = play.say("undo");
    assert!(answer.contains("Took back O:a1,b1,a2,b2 and "), "{answer}");
    assert!(answer.contains("you: nothing yet\ncomputer: nothing yet"), "{answer}");
    let answer = play.say("undo");
    assert!(answer.contains("Nothing to undo"), "{answer}");

    // Play the first listed move until the game ends.
    let mut last = String::new();
    for _ in 0..12 {
        let listing = play.say("moves");
        last = play.say(&first_listed_move(&listing));
        if last.contains("Game over") {
            break;
        }
    }
    assert!(last.contains("Game over."), "{last}");
    assert!(last.contains("You win") || last.contains("The computer wins"), "{last}");
    assert!(last.contains(&format!("Saved the game to {record_arg}")), "{last}");
    assert!(play.finish().success());

    // The record: its move line is what `golomb solve --moves` takes.
    let text = std::fs::read_to_string(&record).unwrap();
    let moves: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(moves.len(), 1, "{text}");
    let solved = golomb_command()
        .args(["solve", "--board", "5x5", "--pieces", "tetrominoes", "--json", "--moves", moves[0]])
        .output()
        .unwrap();
    assert!(solved.status.success(), "{}", String::from_utf8_lossy(&solved.stderr));
    let solved: serde_json::Value = serde_json::from_slice(&solved.stdout).unwrap();
    assert_eq!(solved["value"], "loss", "the side to move at the end has no move");
    let human_won = last.contains("You win");
    let plies = moves[0].split(';').count();
    // We moved first: we made the odd-numbered moves; the one who made the last move won.
    assert_eq!(human_won, plies % 2 == 1, "{last}\n{text}");

    // The replay draws every position and says how it ended.
    let replay = output_within(golomb_command().args(["play", "--replay", record_arg]), WAIT).unwrap();
    assert!(replay.status.success(), "{}", String::from_utf8_lossy(&replay.stderr));
    let replay = String::from_utf8_lossy(&replay.stdout);
    assert_eq!(replay.matches("\nmove ").count(), plies, "{replay}");
    assert!(replay.contains("cannot move:"), "{replay}");
    assert!(replay.contains(&format!("last move: {}", moves[0].rsplit(';').next().unwrap())), "{replay}");
}

/// The computer moving first; leaving at once; and input that ends.
#[test]
fn the_computer_moves_first_and_the_game_can_be_left() {
    let mut play = Play::start(&["--pieces", "5", "--board", "6x6", "--first", "computer", "--think", "1"]);
    let first = play.next_turn();
    assert!(first.contains("You play second"), "{first}");
    assert!(first.contains("The computer plays"), "{first}");
    let answer = play.say("quit");
    assert!(answer.contains("You left the game."), "{answer}");
    assert!(play.finish().success());
    // Input closed without quit: the game is left, and the exit is clean.
    let play = Play::start(&["--pieces", "4", "--board", "5x5"]);
    assert!(play.finish().success());
}

/// A bad option is refused before any game starts.
#[test]
fn bad_play_options_are_refused() {
    let out = output_within(golomb_command().args(["play", "--board", "5y5"]), WAIT).unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad --board"), "{}", String::from_utf8_lossy(&out.stderr));
    let out = output_within(golomb_command().args(["play", "--replay", "/nonexistent/game.txt"]), WAIT).unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read /nonexistent/game.txt"));
    // A budget too long for the clock is refused up front, not a panic mid-game.
    let out = output_within(golomb_command().args(["play", "--think", "1e20"]), WAIT).unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && stderr.contains("--think must be") && !stderr.contains("panicked"), "{stderr}");
}

/// Input that is not text ends the game like closed input, and the record is still saved.
#[test]
fn input_that_is_not_text_ends_the_game_and_keeps_the_record() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("game.txt");
    let mut child = golomb_command()
        .args(["play", "--pieces", "4", "--board", "5x5", "--no-color", "--save"])
        .arg(&record)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"\xff\xfe not text\n").unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout} {}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("could not be read") && stdout.contains("Saved the game"), "{stdout}");
    assert!(record.exists());
}

/// A few self-play games: every pairing plays them all, alternating the
/// first player, and a seed fixes the results.
#[test]
fn selfplay_counts_every_game_and_a_seed_fixes_it() {
    let run = || {
        let out = output_within(
            golomb_command()
                .args(["selfplay", "--games", "4", "--pieces", "4", "--board", "5x5", "--seed", "7", "--json"]),
            WAIT,
        )
        .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    let report = run();
    let rows = report["pairings"].as_array().unwrap();
    assert!(rows.len() >= 5, "{report}");
    let names: Vec<String> = rows.iter().map(|r| format!("{}/{}", r["a"], r["b"]).replace('"', "")).collect();
    for wanted in ["heuristic/heuristic", "heuristic/solver", "heuristic/random", "heuristic/heuristic-no-sanctuaries"]
    {
        assert!(names.iter().any(|n| n == wanted), "{names:?}");
    }
    for r in rows {
        assert_eq!(r["games"], 4);
        assert_eq!(r["a_first"], 2);
        let total = r["a_wins"].as_u64().unwrap() + r["b_wins"].as_u64().unwrap() + r["draws"].as_u64().unwrap();
        assert_eq!(total, 4, "{r}");
    }
    let strip = |v: &serde_json::Value| {
        v["pairings"].as_array().unwrap().iter().map(|r| (r["a_wins"].clone(), r["moves"].clone())).collect::<Vec<_>>()
    };
    assert_eq!(strip(&report), strip(&run()), "the same seed gives the same games");
    let bad = output_within(golomb_command().args(["selfplay", "--pairs", "nobody/else"]), WAIT).unwrap();
    assert!(String::from_utf8_lossy(&bad.stderr).contains("bad --pairs: `nobody/else` is not A/B"));
    // Any pairing by name: the hands game, dealt.
    let out = output_within(
        golomb_command().args([
            "selfplay",
            "--games",
            "2",
            "--pieces",
            "4",
            "--board",
            "5x5",
            "--deal",
            "3",
            "--json",
            "--pairs",
            "heuristic-no-sanctuaries-depth1/random",
        ]),
        WAIT,
    )
    .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["pairings"][0]["a"], "heuristic-no-sanctuaries-depth1");
    assert_eq!(report["pairings"][0]["games"], 2);
}

/// The hands game: a piece from the other hand refused, a game to the end
/// scored by the pieces placed, the record with its hands, replayed.
#[test]
fn a_hands_game_to_the_end_saved_and_replayed() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("hands.txt");
    let record_arg = record.to_str().unwrap();
    let args = ["--pieces", "4", "--board", "5x5", "--hands", "I,L,T/O,S", "--think", "1", "--save", record_arg];
    let mut play = Play::start(&args);
    let opening = play.next_turn();
    assert!(opening.contains("your hand: I T L\nthe computer's hand: O S"), "{opening}");
    let answer = play.say("O:a1,b1,a2,b2");
    assert!(answer.contains("piece O is not in your hand"), "{answer}");
    let answer = play.say("hint");
    assert!(answer.contains("Hint (the exact solver") && answer.contains("final score"), "{answer}");
    let mut last = String::new();
    for _ in 0..10 {
        let listing = play.say("moves");
        last = play.say(&first_listed_move(&listing));
        if last.contains("Game over") {
            break;
        }
    }
    assert!(last.contains("neither side can place another piece"), "{last}");
    assert!(play.finish().success());
    let text = std::fs::read_to_string(&record).unwrap();
    assert!(text.contains("# hands I,T,L/O,S\n"), "{text}");
    // The hands solver agrees that the game is over, with the score the game said.
    let moves: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
    let solved = golomb_command()
        .args(["solve", "--rules", "hands", "--hands", "I,T,L/O,S", "--pieces", "tetrominoes", "--board", "5x5"])
        .args(["--json", "--moves", moves[0]])
        .output()
        .unwrap();
    assert!(solved.status.success(), "{}", String::from_utf8_lossy(&solved.stderr));
    let solved: serde_json::Value = serde_json::from_slice(&solved.stdout).unwrap();
    let score = solved["score"].as_i64().unwrap_or_else(|| panic!("{solved}"));
    // "You win 3 to 2: ...", "The computer wins 3 to 2: ...", "A draw, 2 to 2: ...".
    let said: Vec<i64> = last
        .split("Game over.")
        .nth(1)
        .unwrap_or_else(|| panic!("{last}"))
        .split(|c: char| !c.is_ascii_digit())
        .filter(|w| !w.is_empty())
        .take(2)
        .map(|w| w.parse().unwrap())
        .collect();
    assert_eq!(score.abs(), (said[0] - said[1]).abs(), "{solved}\n{last}");
    let replay = output_within(golomb_command().args(["play", "--replay", record_arg, "--no-color"]), WAIT).unwrap();
    assert!(replay.status.success(), "{}", String::from_utf8_lossy(&replay.stderr));
    let replay = String::from_utf8_lossy(&replay.stdout);
    assert!(replay.contains("neither side can place a piece"), "{replay}");
    // A bad hand is refused before the game starts, naming the option.
    let bad = output_within(golomb_command().args(["play", "--pieces", "4", "--hands", "I,Q/O"]), WAIT).unwrap();
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("bad --hands"), "{}", String::from_utf8_lossy(&bad.stderr));
}

/// The first number after `label` in `text`.
fn number_after(text: &str, label: &str) -> usize {
    let rest = text.split(label).nth(1).unwrap_or_else(|| panic!("no {label:?} in {text}"));
    rest.split(|c: char| !c.is_ascii_digit()).find(|w| !w.is_empty()).unwrap().parse().unwrap()
}

/// A hint asks the exact solver about the position first: on the empty
/// 6x6 board (which a release build of `golomb solve` decides in under a
/// second; the tests' dev build gets 8 s of thinking) it says the
/// position is won and finds a winning move, and it says how many moves it
/// did not list; after the computer's winning first move, it proves that
/// every move loses.
#[test]
fn a_hint_asks_the_exact_solver_first_and_counts_what_it_did_not_list() {
    // Time enough for the exact solver on a slow machine (the binary is a dev build).
    let mut play = Play::start(&["--board", "6x6", "--think", "8"]);
    play.next_turn();
    let hint = play.say("hint");
    assert!(hint.contains("Hint (the exact solver") && hint.contains("you can win from here"), "{hint}");
    let (moves, wins) = (number_after(&hint, "of your "), number_after(&hint, "moves, "));
    assert_eq!(moves, 1024, "{hint}");
    assert!(wins >= 1, "the position's own solve gives a winning move: {hint}");
    assert_eq!(hint.matches("  wins: ").count(), wins.min(10), "{hint}");
    assert!(hint.contains("Not listed: ") && hint.contains("`moves` lists them all"), "{hint}");
    assert_eq!(number_after(&hint, "Not listed: "), 1024 - wins.min(10), "{hint}");
    play.say("quit");

    let mut play = Play::start(&["--board", "6x6", "--think", "8", "--first", "computer"]);
    let turn = play.next_turn();
    assert!(turn.contains("The computer plays"), "{turn}");
    let hint = play.say("hint");
    assert!(hint.contains("the computer can win from here, whatever you play"), "{hint}");
    assert!(hint.contains(", 0 win, ") && hint.contains(" 0 undecided"), "every move proved lost: {hint}");
    assert!(hint.contains("Every move loses against best play"), "{hint}");
}
