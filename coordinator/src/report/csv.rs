//! A job's results as CSV (`golomb results --csv`, the page's CSV link):
//! one row per move at the root, in the order the text and the page show
//! them (winners for the mover first), with columns named for whose value
//! they hold, so that a row cannot be read backwards.

use std::io::Write;

use golomb_proto::{Kind, pb};

/// The columns, first to last. `move_number` is the move's number in the
/// job's list of moves at its root (the `#` of the text and the page: moves
/// equal up to symmetry are numbered side by side); `value_for_mover` is
/// the move's value for the player who makes it; `opponent_winning_answer`
/// the reply that beats a losing move; `same_as` the move whose unit answered
/// for a move merged with it by symmetry.
pub const CSV_HEADER: [&str; 9] = [
    "move_number",
    "move",
    "value_for_mover",
    "opponent_winning_answer",
    "same_as",
    "replies",
    "positions",
    "seconds",
    "job",
];

/// Writes the children of `r` as CSV, in the order `r` holds them (the
/// coordinator sends winners first). A merged row's work is counted on its
/// twin (0 here), so the columns add up to the job's. A hands game's table
/// has a last column, `score_for_mover`: the final score difference for the
/// player who made the move (its value column is `unknown`).
pub fn write_results_csv(out: &mut dyn Write, r: &pb::JobResults) -> anyhow::Result<()> {
    let job = r.status.as_ref().map_or(0, |s| s.job_id).to_string();
    let hands = r.status.as_ref().and_then(|s| s.spec.as_ref()).and_then(pb::JobSpec::kind) == Some(Kind::HandsScore);
    let mut csv = csv::Writer::from_writer(out);
    let header: Vec<&str> = CSV_HEADER.iter().copied().chain(hands.then_some("score_for_mover")).collect();
    csv.write_record(&header)?;
    for c in &r.children {
        // The wire's value is the child's, for the side to move after the move: the mover's is its opposite.
        let for_mover = match golomb_proto::convert::value_name(c.value) {
            Some("loss") => "win",
            Some("win") => "loss",
            _ => "unknown",
        };
        let merged = !c.same_as.is_empty();
        let positions = if merged { 0 } else { c.positions };
        let seconds = if merged { 0.0 } else { c.seconds };
        let number = (c.index + 1).to_string();
        let (replies, positions, seconds) = (c.replies.to_string(), positions.to_string(), format!("{seconds:.3}"));
        let score = c.score.map_or_else(String::new, |s| s.to_string());
        let mut record = vec![
            number.as_str(),
            c.r#move.as_str(),
            for_mover,
            &c.winning_move,
            &c.same_as,
            &replies,
            &positions,
            &seconds,
            &job,
        ];
        if hands {
            record.push(&score);
        }
        csv.write_record(&record)?;
    }
    csv.flush()?;
    Ok(())
}
