//! The game loop of `golomb play`: draw, read a line, answer it; the
//! computer's turns in between; the end; the record saved.

use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::time::Instant;

use golomb_engine::player::orientation::{orientation_of, pictures};
use golomb_engine::player::solver::{Budget, SolverBacked, rate_moves};
use golomb_engine::player::{Player, Rules, Side, State, Table, Verdict};
use golomb_engine::solve::tt::TtCheck;
use golomb_engine::{Game, GameSpec, PlacementId};

use super::draw::{self, Style};
use super::input::{self, Command};
use super::record::{self, Record};

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

    fn draw(&self, out: &mut dyn Write) -> anyhow::Result<()> {
        writeln!(out)?;
        write!(out, "{}", draw::board(self.table.game, &self.moves, self.names(), self.setup.style))?;
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

    fn computer_moves(&mut self, out: &mut dyn Write) -> anyhow::Result<()> {
        let state = self.state();
        let start = Instant::now();
        let (computer, table) = (&mut self.computer, self.table);
        let choice = self.pool.install(|| computer.choose(table, &state));
        let seconds = start.elapsed().as_secs_f64();
        let said = match choice.verdict {
            Some(Verdict::Win) => "I win from here: the solver proved it, and this is its move.".to_string(),
            Some(Verdict::Loss) => {
                "You can win from here: the solver finds that every move of mine loses against best play.".to_string()
            }
            Some(Verdict::Draw) => "With best play this ends level.".to_string(),
            Some(Verdict::Unknown) | None => {
                "The solver did not decide this position in time: a heuristic move.".to_string()
            }
        };
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

    fn hint(&mut self, out: &mut dyn Write) -> anyhow::Result<()> {
        let start = Instant::now();
        let (state, budget, tt, table) = (self.state(), self.setup.budget, self.computer.table(), self.table);
        let rated = self.pool.install(|| rate_moves(table, &state, budget, tt));
        let seconds = start.elapsed().as_secs_f64();
        let of = |v: Verdict| rated.iter().filter(|&&(_, r)| r == v).map(|&(id, _)| id).collect::<Vec<_>>();
        let (wins, losses, unknown) = (of(Verdict::Win), of(Verdict::Loss), of(Verdict::Unknown));
        writeln!(
            out,
            "Hint (the solver, {seconds:.1} s): of your {} moves, {} win, {} lose, {} undecided within the budget.",
            rated.len(),
            wins.len(),
            losses.len(),
            unknown.len()
        )?;
        for &id in wins.iter().take(10) {
            writeln!(out, "  wins: {}", self.describe(id))?;
        }
        if wins.len() > 10 {
            writeln!(out, "  ... and {} more winning moves", wins.len() - 10)?;
        }
        if wins.is_empty() && unknown.is_empty() {
            writeln!(out, "  Every move loses against best play: the computer can win from here.")?;
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
        let pieces = format!("(pieces placed: {} {}, {} {})", names[0], result.placed[0], names[1], result.placed[1]);
        Some(match (result.winner, result.stuck) {
            (Some(w), Some(stuck)) if w == self.setup.human => {
                format!("You win: the {} has no legal move left {pieces}.", names[stuck.index()])
            }
            (Some(_), _) => format!("The computer wins: you have no legal move left {pieces}."),
            (None, _) => format!("A draw {pieces}."),
        })
    }

    fn record(&self) -> Record {
        let ids: Vec<PlacementId> = self.moves.iter().map(|&(id, _)| id).collect();
        Record {
            spec: self.setup.spec.clone(),
            first: if self.setup.human == Side::First { "human" } else { "computer" }.into(),
            moves: self.table.game.line_name(&ids),
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
    writeln!(
        out,
        "{} on {}: {}. You play {}. The player who cannot move loses. Type help for the commands.",
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
        if input.read_line(&mut line)? == 0 {
            writeln!(out, "\nInput closed: the game is left unfinished.")?;
            break;
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
