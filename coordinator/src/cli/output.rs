//! The one way a command prints its report: a `#[derive(Serialize)]` struct
//! written as pretty JSON (`--json`), as one JSON line (streams), or as text
//! by its [`Report::write_text`]; the number formats the text uses; and
//! the [`OutputFile`]s a command writes besides its report.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context as _;

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

/// A file a command will write after its work (a proof), created before the
/// work starts so that a bad path fails at once instead of after an hour of
/// search; removed again unless it is written.
pub struct OutputFile {
    path: PathBuf,
    file: Option<File>,
    kept: bool,
}

impl OutputFile {
    /// Creates (truncates) `path`, naming it in the error.
    pub fn create(path: &Path) -> anyhow::Result<OutputFile> {
        let file = File::create(path).with_context(|| format!("cannot create {}", path.display()))?;
        Ok(OutputFile { path: path.to_path_buf(), file: Some(file), kept: false })
    }

    /// Creates `path` if given.
    pub fn create_if(path: Option<&PathBuf>) -> anyhow::Result<Option<OutputFile>> {
        path.map(|p| OutputFile::create(p)).transpose()
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes `bytes` as the whole file and keeps it.
    pub fn write_all(&mut self, bytes: &[u8]) -> anyhow::Result<()> {
        self.write_with(|file| Ok(file.write_all(bytes)?))
    }

    /// Writes the file with `write` through a buffer and keeps it.
    pub fn write_with(&mut self, write: impl FnOnce(&mut dyn Write) -> anyhow::Result<()>) -> anyhow::Result<()> {
        let file = self.file.take().with_context(|| format!("{} was already written", self.path.display()))?;
        let mut writer = std::io::BufWriter::new(file);
        write(&mut writer)
            .and_then(|()| Ok(writer.flush()?))
            .with_context(|| format!("cannot write {}", self.path.display()))?;
        self.kept = true;
        Ok(())
    }
}

impl Drop for OutputFile {
    fn drop(&mut self) {
        if !self.kept {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}
