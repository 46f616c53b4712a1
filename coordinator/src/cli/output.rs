//! The [`OutputFile`]s a command writes besides its report; and, re-exported
//! from [`crate::report::output`], the one way a command prints its report
//! ([`Report`], [`print()`]) and the number formats its text uses.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use flate2::Compression;
use flate2::write::GzEncoder;

pub use crate::report::output::{Report, duration, plural, positions, print, print_json_line, si};

/// A file a command will write after its work (a proof), created before the
/// work starts so that a bad path fails at once instead of after an hour of
/// search; removed again unless it is written. A path ending in `.gz` is
/// written compressed with gzip (every command that reads such a file
/// takes either: [`crate::cli::input::read_text`]).
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

    /// Writes gzipped `bytes` as the whole file and keeps it: as they are
    /// for a path ending in `.gz`, else uncompressed as they go.
    pub fn write_gzipped(&mut self, bytes: &[u8]) -> anyhow::Result<()> {
        if self.path.extension().is_some_and(|e| e == "gz") {
            let mut file = self.file.take().with_context(|| format!("{} was already written", self.path.display()))?;
            file.write_all(bytes).with_context(|| format!("cannot write {}", self.path.display()))?;
            self.kept = true;
            return Ok(());
        }
        self.write_with(|file| Ok(std::io::copy(&mut flate2::read::GzDecoder::new(bytes), file).map(drop)?))
    }

    /// Writes the file with `write` through a buffer and keeps it.
    pub fn write_with(&mut self, write: impl FnOnce(&mut dyn Write) -> anyhow::Result<()>) -> anyhow::Result<()> {
        let file = self.file.take().with_context(|| format!("{} was already written", self.path.display()))?;
        let writer = std::io::BufWriter::new(file);
        let written = if self.path.extension().is_some_and(|e| e == "gz") {
            let mut encoder = GzEncoder::new(writer, Compression::default());
            write(&mut encoder).and_then(|()| Ok(encoder.finish()?.flush()?))
        } else {
            let mut writer = writer;
            write(&mut writer).and_then(|()| Ok(writer.flush()?))
        };
        written.with_context(|| format!("cannot write {}", self.path.display()))?;
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
