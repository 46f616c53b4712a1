//! Reading a file a command takes (an export, a proof): plain
//! text, or the same compressed with gzip, told apart by the gzip magic
//! bytes and not by the file's name, so that `golomb import FILE.json.gz`
//! and a `.gz` renamed to `.json` both work.

use std::io::Read as _;
use std::path::Path;

use anyhow::Context as _;
use flate2::read::MultiGzDecoder;

/// The first two bytes of every gzip member (RFC 1952).
const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// The most text a compressed file may expand to: a tampered file cannot
/// make a command fill the machine's memory (the 8x8 opening table's export
/// is about 0.1 GB).
pub const MAX_TEXT_BYTES: u64 = 4 << 30;

/// The text in `path`, decompressed if it is gzip; errors name the file.
pub fn read_text(path: &Path) -> anyhow::Result<String> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let bytes = if bytes.starts_with(&GZIP_MAGIC) { gunzip(&bytes, path)? } else { bytes };
    String::from_utf8(bytes).map_err(|e| {
        anyhow::anyhow!("{} is not UTF-8 text (byte {} is not)", path.display(), e.utf8_error().valid_up_to())
    })
}

/// The SHA-256 of `text`, in hex: what a proof is known by in the opening
/// table and in `golomb verify --part`'s reports (of the text, so the same
/// whether the file is kept plain or compressed).
pub fn sha256_hex(text: &str) -> String {
    ring::digest::digest(&ring::digest::SHA256, text.as_bytes()).as_ref().iter().map(|b| format!("{b:02x}")).collect()
}

/// `bytes` (gzip, from `path`) decompressed, at most [`MAX_TEXT_BYTES`].
fn gunzip(bytes: &[u8], path: &Path) -> anyhow::Result<Vec<u8>> {
    let mut text = Vec::new();
    MultiGzDecoder::new(bytes)
        .take(MAX_TEXT_BYTES + 1)
        .read_to_end(&mut text)
        .with_context(|| format!("{} is not a whole gzip file", path.display()))?;
    anyhow::ensure!(
        text.len() as u64 <= MAX_TEXT_BYTES,
        "{} expands to more than {} GiB: refused",
        path.display(),
        MAX_TEXT_BYTES >> 30
    );
    Ok(text)
}

#[cfg(test)]
mod tests {
    use std::io::Write as _;

    use flate2::Compression;
    use flate2::write::GzEncoder;

    use super::*;

    fn gzip(text: &[u8]) -> Vec<u8> {
        let mut encoder = GzEncoder::new(Vec::new(), Compression::default());
        encoder.write_all(text).unwrap();
        encoder.finish().unwrap()
    }

    #[test]
    fn plain_and_gzip_files_read_the_same() {
        let dir = tempfile::tempdir().unwrap();
        let text = "{\"format\": \"golomb-export\"}\n";
        let plain = dir.path().join("a.json");
        let packed = dir.path().join("a.json.gz");
        std::fs::write(&plain, text).unwrap();
        std::fs::write(&packed, gzip(text.as_bytes())).unwrap();
        assert_eq!(read_text(&plain).unwrap(), text);
        assert_eq!(read_text(&packed).unwrap(), text);
    }

    #[test]
    fn a_cut_gzip_file_or_binary_is_refused_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let packed = gzip(&[b'x'; 10_000]);
        let cut = dir.path().join("cut.json.gz");
        std::fs::write(&cut, &packed[..packed.len() / 2]).unwrap();
        let error = format!("{:#}", read_text(&cut).unwrap_err());
        assert!(error.contains("cut.json.gz is not a whole gzip file"), "{error}");
        let binary = dir.path().join("binary.json");
        std::fs::write(&binary, [b'{', 0xff, 0xfe]).unwrap();
        let error = format!("{:#}", read_text(&binary).unwrap_err());
        assert!(error.contains("binary.json is not UTF-8 text (byte 1"), "{error}");
        let missing = dir.path().join("missing.json");
        assert!(format!("{:#}", read_text(&missing).unwrap_err()).contains("cannot read"));
    }
}
