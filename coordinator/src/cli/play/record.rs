//! A played game's record: a few `#` lines naming the game (board, pieces,
//! who moved first, and for the hands game the hands and the neutral
//! piece), then the moves in the notation on one line, separated by `;`:
//! the move list `golomb solve --moves` accepts (`grep -v '^#' FILE` gives
//! it back). `golomb play --replay FILE` reads it and draws every position
//! in turn.

use std::io::Write;
use std::path::Path;

use anyhow::Context as _;
use golomb_engine::hands::{HandsSource, NeutralSpec, SetupSpec};
use golomb_engine::player::{Rules, Side};
use golomb_engine::{Bits, Game, GameSpec, PlacementId, with_game};

use super::draw::{self, Style};
use crate::cli::args::build_game;

/// What a record holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// The game.
    pub spec: GameSpec,
    /// Who moved first: `human` or `computer` (for the legend of a replay).
    pub first: String,
    /// The hands game's hands, `F,I,L/N,P,T`; `None` for the common pile.
    pub hands: Option<String>,
    /// The hands game's neutral piece, in the notation.
    pub neutral: Option<String>,
    /// The moves, `;`-separated.
    pub moves: String,
}

impl Record {
    /// The record as written to a file.
    pub fn text(&self) -> String {
        let s = &self.spec;
        let blocked = if s.blocked.is_empty() { String::new() } else { format!(" --blocked {}", s.blocked) };
        let mut text = format!(
            "# golomb play record\n# board {}\n# blocked {}\n# pieces {}\n# first {}\n",
            s.board, s.blocked, s.pieces, self.first
        );
        match &self.hands {
            Some(hands) => {
                text.push_str(&format!("# hands {hands}\n"));
                let mut neutral_arg = String::new();
                if let Some(neutral) = &self.neutral {
                    text.push_str(&format!("# neutral {neutral}\n"));
                    neutral_arg = format!(" --neutral {neutral}");
                }
                text.push_str(&format!(
                    "# solve a position with: golomb solve --rules hands --hands {hands}{neutral_arg} --board {}{blocked} --pieces {} --moves \"$(grep -v '^#' FILE)\"\n",
                    s.board, s.pieces
                ));
            }
            None => text.push_str(&format!(
                "# solve a position with: golomb solve --board {}{blocked} --pieces {} --moves \"$(grep -v '^#' FILE)\"\n",
                s.board, s.pieces
            )),
        }
        text.push_str(&self.moves);
        text.push('\n');
        text
    }

    /// Reads a record; `path` names the file in errors.
    pub fn parse(text: &str, path: &Path) -> anyhow::Result<Record> {
        let mut spec = GameSpec::new("", "", "");
        let mut first = "human".to_string();
        let (mut hands, mut neutral) = (None, None);
        let mut moves = Vec::new();
        for (number, line) in text.lines().enumerate() {
            let line = line.trim();
            if let Some(comment) = line.strip_prefix('#') {
                let (key, value) = comment.trim().split_once(' ').unwrap_or((comment.trim(), ""));
                match key {
                    "board" => spec.board = value.trim().to_string(),
                    "blocked" => spec.blocked = value.trim().to_string(),
                    "pieces" => spec.pieces = value.trim().to_string(),
                    "first" => first = value.trim().to_string(),
                    "hands" => hands = Some(value.trim().to_string()),
                    "neutral" => neutral = Some(value.trim().to_string()),
                    _ => {}
                }
            } else if !line.is_empty() {
                moves.push(line.trim_end_matches(';').to_string());
            }
            anyhow::ensure!(number < 10_000, "{}: too long for a game record", path.display());
        }
        anyhow::ensure!(!spec.board.is_empty(), "{}: no `# board` line: not a golomb play record", path.display());
        anyhow::ensure!(!spec.pieces.is_empty(), "{}: no `# pieces` line: not a golomb play record", path.display());
        anyhow::ensure!(
            first == "human" || first == "computer",
            "{}: `# first {first}`: expected human or computer",
            path.display()
        );
        Ok(Record { spec, first, hands, neutral, moves: moves.join(";") })
    }
}

/// Writes `record` to `path`.
pub fn save(path: &Path, record: &Record) -> anyhow::Result<()> {
    std::fs::write(path, record.text()).with_context(|| format!("cannot write {}", path.display()))
}

/// Replays the record in `path`, drawing each position.
pub fn replay(path: &Path, style: Style, out: &mut dyn Write) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let record = Record::parse(&text, path)?;
    let game = build_game(&record.spec, ["# board", "# blocked"], "# pieces")
        .with_context(|| format!("{}: bad game", path.display()))?;
    with_game!(&game, g => replay_in(g, &record, path, style, out))
}

fn replay_in<B: Bits>(
    game: &Game<B>,
    record: &Record,
    path: &Path,
    style: Style,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let rules = match &record.hands {
        None => Rules::CommonPile,
        Some(hands) => {
            let neutral = record.neutral.as_deref().map_or(NeutralSpec::None, NeutralSpec::parse);
            let spec = SetupSpec { hands: HandsSource::Listed(hands.clone()), neutral };
            Rules::Hands(spec.build(game).with_context(|| format!("{}: bad `# hands` or `# neutral`", path.display()))?)
        }
    };
    let mut ids: Vec<PlacementId> = Vec::new();
    for (i, token) in record.moves.split(';').map(str::trim).filter(|t| !t.is_empty()).enumerate() {
        ids.push(game.parse_move(token).with_context(|| format!("{}: move {}", path.display(), i + 1))?);
    }
    let states = rules.replay(game, &ids).map_err(|(i, e)| anyhow::anyhow!("{}: move {i}: {e}", path.display()))?;
    let human = if record.first == "human" { Side::First } else { Side::Second };
    let names = if human == Side::First { ["you", "computer"] } else { ["computer", "you"] };
    writeln!(out, "{} on {} ({} moves)", record.spec.pieces, record.spec.board, ids.len())?;
    let mut played: Vec<_> = rules.neutral().map(|id| (id, None)).into_iter().collect();
    for (i, &id) in ids.iter().enumerate() {
        let side = states[i].to_move;
        played.push((id, Some(side)));
        writeln!(out, "\nmove {}: {} plays {}", i + 1, names[side.index()], game.move_name(id))?;
        write!(out, "{}", draw::board(game, &played, names, style))?;
    }
    let last = &states[states.len() - 1];
    match rules.result(game, last) {
        Some(result) => {
            let winner = result.winner.map_or("nobody", |w| names[w.index()]);
            match result.stuck {
                Some(stuck) => writeln!(out, "\n{} cannot move: {winner} won", names[stuck.index()])?,
                None => writeln!(
                    out,
                    "\nneither side can place a piece: {} {}, {} {}: {winner} won",
                    names[0], result.placed[0], names[1], result.placed[1]
                )?,
            }
        }
        None => writeln!(out, "\nthe game was left unfinished ({} to move)", names[last.to_move.index()])?,
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip_and_bad_ones_say_why() {
        let record = Record {
            spec: GameSpec::new("5x5", "c3", "tetrominoes"),
            first: "computer".into(),
            hands: None,
            neutral: None,
            moves: "I:a1,b1,c1,d1;O:a2,b2,a3,b3".into(),
        };
        let path = Path::new("game.txt");
        assert_eq!(Record::parse(&record.text(), path).unwrap(), record);
        let text = record.text();
        let moves: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
        assert_eq!(moves, ["I:a1,b1,c1,d1;O:a2,b2,a3,b3"]);
        let hands = Record { hands: Some("I,L/O,S,T".into()), neutral: Some("O:b2,c2,b3,c3".into()), ..record.clone() };
        assert_eq!(Record::parse(&hands.text(), path).unwrap(), hands);
        assert!(Record::parse("I:a1,b1,c1,d1\n", path).unwrap_err().to_string().contains("no `# board` line"));
        assert!(Record::parse("# board 5x5\n# pieces tetrominoes\n# first nobody\n", path).is_err());
    }
}
