//! The one way a report is printed: a `#[derive(Serialize)]` struct written
//! as pretty JSON (`--json`), as one JSON line (streams), or as text by its
//! [`Report::write_text`]; and the number formats the text uses (the web
//! page uses them too).

use std::io::Write;

use serde::Serialize;

/// A command's result: serializable for `--json`, drawable as text.
pub trait Report: Serialize {
    /// Writes the report for people.
    fn write_text(&self, out: &mut dyn Write) -> anyhow::Result<()>;
}

/// Prints `report` as pretty JSON when `json` is set, as text otherwise.
pub fn print(out: &mut dyn Write, report: &impl Report, json: bool) -> anyhow::Result<()> {
    if json {
        serde_json::to_writer_pretty(&mut *out, report)?;
        writeln!(out)?;
        Ok(())
    } else {
        report.write_text(out)
    }
}

/// Prints `report` as one line of compact JSON (for streams of reports).
pub fn print_json_line(out: &mut dyn Write, report: &impl Serialize) -> anyhow::Result<()> {
    serde_json::to_writer(&mut *out, report)?;
    writeln!(out)?;
    Ok(())
}

/// `1234567` as `1.23 M`.
pub fn si(x: f64) -> String {
    match x {
        x if x >= 1e12 => format!("{:.2} T", x / 1e12),
        x if x >= 1e9 => format!("{:.2} G", x / 1e9),
        x if x >= 1e6 => format!("{:.2} M", x / 1e6),
        x if x >= 1e3 => format!("{:.1} k", x / 1e3),
        x => format!("{x:.0}"),
    }
}

/// Seconds as `1h02m`, `3m05s` or `4.2 s`.
pub fn duration(seconds: f64) -> String {
    let s = seconds.max(0.0);
    if s >= 3600.0 {
        format!("{}h{:02}m", (s / 3600.0) as u64, ((s % 3600.0) / 60.0) as u64)
    } else if s >= 60.0 {
        format!("{}m{:02}s", (s / 60.0) as u64, (s % 60.0) as u64)
    } else {
        format!("{s:.1} s")
    }
}

/// `s` after a count other than one.
pub fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// A count of positions as the reports write it: `1 position`, `0 positions`, `1.23 M positions`.
pub fn positions(n: u64) -> String {
    format!("{} position{}", si(n as f64), if n == 1 { "" } else { "s" })
}

#[cfg(test)]
mod tests {
    #[test]
    fn one_position_is_singular() {
        assert_eq!(super::positions(1), "1 position");
        assert_eq!(super::positions(0), "0 positions");
        assert_eq!(super::positions(1_234_567), "1.23 M positions");
    }
}
