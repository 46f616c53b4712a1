//! The game loop of `golomb play`: draw, read a line, answer it; the
//! computer's turns in between (and the passes of the hands game); the end;
//! the record saved.

use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::time::Instant;

use golomb_engine::player::orientation::{orientation_of, pictures};
use golomb_engine::player::solver::{Budget, Rated, SolverBacked, decide, rate_moves, rate_these};
use golomb_engine::player::{Choice, Player, Rules, Side, State, Table, Verdict};
use golomb_engine::solve::tt::TtCheck;
use golomb_engine::{Game, GameSpec, PlacementId};

use super::draw::{self, Style};
use super::input::{self, Command};
use super::record::{self, Record};

/// The most moves a hint lists.
const HINT_MOVES: usize = 10;

/// Everything a game is set up with.
pub struct Setup {
    /// The game.
    pub spec: GameSpec,
    /// The rules.
    pub rules: Rules,
    /// The side the person plays.
    pub human: Side,
    /// The computer's budget per move (and a hint's in all).
    pub budget: Budget,
    /// The computer's seed.
    pub seed: u64,
    /// The solver's table size.
    pub tt_mb: usize,
    /// How to draw.
    pub style: Style,
    /// Where to save the record.
    pub save: Option<PathBuf>,
}

/// A game in progress.
struct Session<'a, B> {
    table: Table<'a, B>,
    setup: &'a Setup,
    /// The threads the solver runs on.
    pool: &'a rayon::ThreadPool,
    computer: SolverBacked,
    /// Every state, the start first.
    states: Vec<State<B>>,
    /// The moves, with who played each.
    moves: Vec<(PlacementId, Side)>,
}

impl<B: TtCheck> Session<'_, B> {
    fn state(&self) -> State<B> {
        self.states[self.states.len() - 1]
    }

    fn names(&self) -> [&'static str; 2] {
        if self.setup.human == Side::First { ["you", "computer"] } else { ["computer", "you"] }
    }

    fn hands(&self) -> bool {
        matches!(self.setup.rules, Rules::Hands(_))
    }

    fn draw(&self, out: &mut dyn Write) -> anyhow::Result<()> {
        let neutral = self.setup.rules.neutral().map(|id| (id, None));
        let moves: Vec<(PlacementId, Option<Side>)> =
            neutral.into_iter().chain(self.moves.iter().map(|&(id, side)| (id, Some(side)))).collect();
        writeln!(out)?;
        write!(out, "{}", draw::board(self.table.game, &moves, self.names(), self.setup.style))?;
        if self.hands() {
            let (game, pos) = (self.table.game, self.state().pos);
            for side in [self.setup.human, self.setup.human.other()] {
                let left = self.setup.rules.pieces_of(game, side, &pos);
                let names: Vec<&str> = (0..game.pieces().len())
                    .filter(|&p| left >> p & 1 == 1)
                    .map(|p| game.pieces().piece(p).name())
                    .collect();
                let whose = if side == self.setup.human { "your hand" } else { "the computer's hand" };
                writeln!(out, "{whose}: {}", if names.is_empty() { "empty".to_string() } else { names.join(" ") })?;
            }
            let placed = self.setup.rules.placed(&pos);
            let names = self.names();
            writeln!(out, "score: {} {}, {} {}", names[0], placed[0], names[1], placed[1])?;
        }
        Ok(())
    }

    fn push(&mut self, id: PlacementId, state: State<B>) {
        let mover = self.state().to_move;
        self.moves.push((id, mover));
        self.states.push(state);
    }

    /// A move's name in both forms: `L:a1,a2,a3,a4,b1 (L 3 a1)`.
    fn describe(&self, id: PlacementId) -> String {
        let game = self.table.game;
        let (number, anchor) = orientation_of(game, id);
        let piece = game.pieces().piece(game.placement(id).piece as usize).name();
        format!("{} ({piece} {number} {})", game.move_name(id), game.board().cell_name(anchor))
    }

    /// What the computer says about the position it moved in.
    fn claim(&self, choice: &Choice) -> String {
        let by = |score: Option<i32>| match score {
            Some(s) if self.hands() => format!(" by {} piece{}", s.abs(), if s.abs() == 1 { "" } else { "s" }),
            _ => String::new(),
        };
        match choice.verdict {
            Some(Verdict::Win) => {
                format!("I win from here{}: the solver proved it, and this is its move.", by(choice.score))
            }
            Some(Verdict::Loss) if self.hands() => format!(
                "You can win from here{}: the solver finds that I lose against best play; this is my best try.",
                by(choice.score)
            ),
            Some(Verdict::Loss) => {
                "You can win from here: the solver finds that every move of mine loses against best play.".to_string()
            }
            Some(Verdict::Draw) => "With best play this ends level: the solver's move.".to_string(),
            Some(Verdict::Unknown) | None => {
                "The solver did not decide this position in time: a heuristic move.".to_string()
            }
        }
    }

    fn computer_moves(&mut self, out: &mut dyn Write) -> anyhow::Result<()> {
        let state = self.state();
        if self.moves.last().is_some_and(|&(_, side)| side != self.setup.human) {
            writeln!(out, "\nYou cannot place any of your pieces: you pass.")?;
        }
        let start = Instant::now();
        let (computer, table) = (&mut self.computer, self.table);
        let choice = self.pool.install(|| computer.choose(table, &state));
        let seconds = start.elapsed().as_secs_f64();
        let said = self.claim(&choice);
        writeln!(out, "\nThe computer plays {} after {seconds:.1} s. {said}", self.describe(choice.placement))?;
        let next = self.table.rules.play(self.table.game, &state, choice.placement)?;
        self.push(choice.placement, next);
        Ok(())
    }

    /// Answers one line; `Ok(false)` to leave the game.
    fn answer(&mut self, line: &str, out: &mut dyn Write) -> anyhow::Result<bool> {
        let game = self.table.game;
        let command = match input::parse(game, line) {
            Ok(command) => command,
            Err(err) => {
                writeln!(out, "Not understood: {err}")?;
                return Ok(true);
            }
        };
        match command {
            Command::Move(id) => match self.table.rules.play(game, &self.state(), id) {
                Ok(next) => {
                    self.push(id, next);
                    self.draw(out)?;
                    if next.to_move == self.setup.human && self.table.rules.result(game, &next).is_none() {
                        writeln!(out, "\nThe computer cannot place any of its pieces: it passes.")?;
                    }
                }
                Err(err) => writeln!(out, "Illegal move {}: {err}. Your turn again.", game.move_name(id))?,
            },
            Command::Show(piece) => {
                let name = game.pieces().piece(piece).name();
                writeln!(
                    out,
                    "{name}: its orientations, numbered; @ marks the anchor (lowest square, leftmost in its row)."
                )?;
                writeln!(out, "Type for example `{name} 1 c3` to put orientation 1 with its anchor on c3.")?;
                write!(out, "{}", pictures(game, piece, 72))?;
                if self.state().pos.is_used(piece) {
                    writeln!(out, "({name} is already on the board.)")?;
                }
            }
            Command::Hint => self.hint(out)?,
            Command::Undo => self.undo(out)?,
            Command::Moves => {
                let moves = self.table.rules.moves(game, &self.state());
                const SHOWN: usize = 60;
                for &id in moves.iter().take(SHOWN) {
                    writeln!(out, "  {}", self.describe(id))?;
                }
                if moves.len() > SHOWN {
                    writeln!(out, "  ... and {} more", moves.len() - SHOWN)?;
                }
                writeln!(out, "{} legal moves.", moves.len())?;
            }
            Command::Board => self.draw(out)?,
            Command::Help => write!(out, "{}", input::HELP)?,
            Command::Quit => {
                writeln!(out, "You left the game.")?;
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The solver's view of the person's moves. The exact solver first
    /// takes the position itself, with half the budget: one it decides (the
    /// empty 6x6 board, in under a second) gives its value and a winning
    /// move, proves every move lost when it is lost, and leaves a table
    /// that answers many of the moves' positions at once when each move is
    /// then rated with the rest of the budget.
    fn hint(&mut self, out: &mut dyn Write) -> anyhow::Result<()> {
        let start = Instant::now();
        let (state, budget, tt, table) = (self.state(), self.setup.budget, self.computer.table(), self.table);
        let half = Budget { time: budget.time.map(|t| t / 2), positions: budget.positions.map(|p| p / 2) };
        let root = self.pool.install(|| decide(table, &state, half, tt));
        let hands = self.hands();
        let mut rated: Vec<Rated> = if root.verdict == Verdict::Loss && !hands {
            // Proved lost: every move loses, and there is nothing more to ask.
            table
                .rules
                .moves(table.game, &state)
                .into_iter()
                .map(|id| Rated { id, verdict: Verdict::Loss, score: None })
                .collect()
        } else {
            // Two passes over the rest: short looks at every move first (most losing moves are
            // refuted at once), then what is left for the moves still undecided.
            let left = |share: u32| Budget {
                time: budget.time.map(|t| t.saturating_sub(start.elapsed()) / share),
                positions: budget.positions.map(|p| (p - p / 2) / u64::from(share)),
            };
            let mut rated = self.pool.install(|| rate_moves(table, &state, left(3), tt));
            let undecided: Vec<PlacementId> =
                rated.iter().filter(|r| r.verdict == Verdict::Unknown).map(|r| r.id).collect();
            if !undecided.is_empty() {
                let again = self.pool.install(|| rate_these(table, &state, &undecided, left(1), tt));
                for r in again.into_iter().filter(|r| r.verdict != Verdict::Unknown) {
                    if let Some(slot) = rated.iter_mut().find(|s| s.id == r.id) {
                        *slot = r;
                    }
                }
            }
            rated
        };
        if let (Verdict::Win, Some(best), false) = (root.verdict, root.best, hands) {
            // The position's own solve found this move: it wins even if its share of the rest ran out.
            if let Some(r) = rated.iter_mut().find(|r| r.id == best && r.verdict == Verdict::Unknown) {
                r.verdict = Verdict::Win;
            }
        }
        let seconds = start.elapsed().as_secs_f64();
        let count = |v: Verdict| rated.iter().filter(|r| r.verdict == v).count();
        let (wins, losses, unknown) = (count(Verdict::Win), count(Verdict::Loss), count(Verdict::Unknown));
        let draws = if hands { format!(", {} draw", count(Verdict::Draw)) } else { String::new() };
        let position = match root.verdict {
            Verdict::Win if hands => "you come out ahead from here with best play",
            Verdict::Win => "you can win from here",
            Verdict::Loss if hands => "the computer comes out ahead from here with best play",
            Verdict::Loss => "the computer can win from here, whatever you play",
            Verdict::Draw => "best play from here is a draw",
            Verdict::Unknown => "the position itself is not decided within the budget",
        };
        writeln!(
            out,
            "Hint (the exact solver, {seconds:.1} s): {position}; of your {} moves, {wins} win, {losses} lose{draws}, \
             {unknown} undecided within the budget.",
            rated.len(),
        )?;
        // Best first: by score (hands), wins before draws before the rest.
        let rank = |r: &Rated| match r.verdict {
            Verdict::Win => 0,
            Verdict::Draw => 1,
            Verdict::Unknown => 2,
            Verdict::Loss => 3,
        };
        rated.sort_by_key(|r| (rank(r), -r.score.unwrap_or(0)));
        // Golomb's game lists its winning moves; the hands game every decided one, best first.
        let worth = |r: &&Rated| if hands { r.verdict != Verdict::Unknown } else { r.verdict == Verdict::Win };
        let listed: Vec<&Rated> = rated.iter().filter(worth).take(HINT_MOVES).collect();
        for r in &listed {
            let verdict = match r.verdict {
                Verdict::Win => "wins",
                Verdict::Draw => "draws",
                _ => "loses",
            };
            let score = r.score.map_or(String::new(), |s| format!(" (final score {s:+} for you)"));
            writeln!(out, "  {verdict}: {}{score}", self.describe(r.id))?;
        }
        if wins + losses == rated.len() && wins == 0 && !hands {
            writeln!(out, "  Every move loses against best play: the computer can win from here.")?;
        } else if listed.len() < rated.len() {
            let more = rated.iter().filter(worth).count() - listed.len();
            let kind = if hands { "decided" } else { "winning" };
            let rest =
                if hands { format!("{unknown} undecided") } else { format!("{losses} losing and {unknown} undecided") };
            writeln!(
                out,
                "  Not listed: {} of your {} moves ({more} more {kind}, {rest}); `moves` lists them all.",
                rated.len() - listed.len(),
                rated.len()
            )?;
        }
        Ok(())
    }

    fn undo(&mut self, out: &mut dyn Write) -> anyhow::Result<()> {
        let Some(last_human) = self.moves.iter().rposition(|&(_, side)| side == self.setup.human) else {
            writeln!(out, "Nothing to undo: you have not moved yet.")?;
            return Ok(());
        };
        let taken: Vec<String> =
            self.moves[last_human..].iter().map(|&(id, _)| self.table.game.move_name(id)).collect();
        self.moves.truncate(last_human);
        self.states.truncate(last_human + 1);
        writeln!(out, "Took back {}.", taken.join(" and "))?;
        self.draw(out)
    }

    /// The end of the game, said in words.
    fn ending(&self) -> Option<String> {
        let result = self.table.rules.result(self.table.game, &self.state())?;
        let names = self.names();
        let (human, computer) = (self.setup.human.index(), self.setup.human.other().index());
        let pieces = format!("(pieces placed: {} {}, {} {})", names[0], result.placed[0], names[1], result.placed[1]);
        let score = format!(
            "{} to {}",
            result.placed[human].max(result.placed[computer]),
            result.placed[human].min(result.placed[computer])
        );
        Some(match (result.winner, result.stuck) {
            (Some(w), Some(_)) if w == self.setup.human => {
                format!("You win: the computer has no legal move left {pieces}.")
            }
            (Some(_), Some(_)) => format!("The computer wins: you have no legal move left {pieces}."),
            (Some(w), None) if w == self.setup.human => {
                format!("You win {score}: neither side can place another piece.")
            }
            (Some(_), None) => format!("The computer wins {score}: neither side can place another piece."),
            (None, _) => format!("A draw, {score}: neither side can place another piece."),
        })
    }

    fn record(&self) -> Record {
        let ids: Vec<PlacementId> = self.moves.iter().map(|&(id, _)| id).collect();
        let game = self.table.game;
        let (hands, neutral) = match &self.setup.rules {
            Rules::CommonPile => (None, None),
            Rules::Hands(setup) => (Some(setup.hands.name(game.pieces())), setup.neutral.map(|id| game.move_name(id))),
        };
        Record {
            spec: self.setup.spec.clone(),
            first: if self.setup.human == Side::First { "human" } else { "computer" }.into(),
            hands,
            neutral,
            moves: game.line_name(&ids),
        }
    }
}

/// Plays a game against the person typing on `input`.
pub fn play<B: TtCheck>(
    game: &Game<B>,
    setup: &Setup,
    pool: &rayon::ThreadPool,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let table = Table { game, rules: &setup.rules };
    let mut session = Session {
        table,
        setup,
        pool,
        computer: SolverBacked::new(setup.budget, setup.tt_mb, setup.seed),
        states: vec![setup.rules.first_state(game)],
        moves: Vec::new(),
    };
    let pieces: Vec<&str> = game.pieces().pieces().iter().map(|p| p.name()).collect();
    let how = match &setup.rules {
        Rules::CommonPile => "the common pile: the player who cannot move loses",
        Rules::Hands(_) => {
            "hands: each places only pieces from their own hand, passes when none fits; the most pieces placed wins"
        }
    };
    writeln!(
        out,
        "{} on {}: {}. Rules: {how}. You play {}. Type help for the commands.",
        setup.spec.pieces,
        game.board().size_name(),
        pieces.join(" "),
        if setup.human == Side::First { "first" } else { "second" }
    )?;
    session.draw(out)?;
    let mut line = String::new();
    loop {
        if let Some(ending) = session.ending() {
            writeln!(out, "\nGame over. {ending}")?;
            break;
        }
        if session.state().to_move != setup.human {
            session.computer_moves(out)?;
            session.draw(out)?;
            continue;
        }
        write!(out, "your move> ")?;
        out.flush()?;
        line.clear();
        match input.read_line(&mut line) {
            Ok(0) => {
                writeln!(out, "\nInput closed: the game is left unfinished.")?;
                break;
            }
            Ok(_) => {}
            // Not text (say, bytes that are not UTF-8): end the game, and still save its record below.
            Err(err) => {
                writeln!(out, "\nInput could not be read ({err}): the game is left unfinished.")?;
                break;
            }
        }
        if !session.answer(&line, out)? {
            break;
        }
    }
    if let Some(path) = &setup.save {
        record::save(path, &session.record())?;
        writeln!(out, "Saved the game to {}.", path.display())?;
    }
    Ok(())
}
