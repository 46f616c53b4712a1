//! How big a transposition table may be: what the machine has
//! (`/proc/meminfo`), the check that refuses a `--tt-mb` it cannot hold
//! before any work is taken, and the default sized to the game.

use golomb_engine::AnyGame;

/// The machine's memory in bytes, from `/proc/meminfo`: (available, total).
/// `None` where it cannot be read (not Linux): then no size is refused.
pub fn machine_memory() -> Option<(u64, u64)> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    parse_meminfo(&text)
}

fn parse_meminfo(text: &str) -> Option<(u64, u64)> {
    let field = |name: &str| {
        text.lines().find_map(|line| {
            let rest = line.strip_prefix(name)?.strip_prefix(':')?;
            rest.trim().trim_end_matches("kB").trim().parse::<u64>().ok().map(|kb| kb * 1024)
        })
    };
    let total = field("MemTotal")?;
    Some((field("MemAvailable").unwrap_or(total), total))
}

/// The bytes a table of `mib` MiB really takes: the engine rounds the size down to a power of two.
pub fn table_bytes(mib: usize) -> u64 {
    let bytes = (mib as u64).saturating_mul(1 << 20).max(32);
    1 << (63 - bytes.leading_zeros())
}

/// Refuses a table that this machine cannot hold, with the size it can.
pub fn check_tt_mb(mib: usize) -> anyhow::Result<()> {
    let Some((available, total)) = machine_memory() else { return Ok(()) };
    let wanted = table_bytes(mib);
    let gib = |b: u64| b as f64 / (1u64 << 30) as f64;
    anyhow::ensure!(
        wanted <= available,
        "--tt-mb {mib} asks for a {:.1} GiB transposition table, but this machine has {:.1} GiB available \
         ({:.1} GiB in all): use at most --tt-mb {} (or leave it out: the default fits the game)",
        gib(wanted),
        gib(available),
        gib(total),
        available / 2 / (1 << 20)
    );
    Ok(())
}

/// The largest default table: what the 8x8 benchmarks were measured with.
pub const MAX_DEFAULT_TT_MB: usize = 1024;

/// The default table for `game`, in MiB: small boards need little (a 6x6
/// solve visits about 3 million positions), and the table is allocated up
/// front, so 1 GiB cost a 6x6 solve more than its search did.
/// Never more than half of the memory available.
pub fn default_tt_mb(game: &AnyGame) -> usize {
    let cells = golomb_engine::with_game!(game, g => golomb_engine::Bits::len(g.playable()) as usize);
    // Measured on 6x6 (36 cells, 3.3 M positions): 16 MiB finds as many
    // table hits as 64 or 1024 MiB, and zeroing 1 GiB took longer than the search.
    // On 7x7 (49 cells, 9.8 M positions with the local kernel) 16 MiB visits
    // 0.09% more positions than 128 MiB and takes 1.44 to 1.49 s of CPU
    // instead of 1.68 to 1.75 s (page faults of the larger table).
    let by_game = match cells {
        0..=50 => 16,
        _ => MAX_DEFAULT_TT_MB,
    };
    match machine_memory() {
        Some((available, _)) => by_game.min(((available / 2) >> 20) as usize).max(1),
        None => by_game,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meminfo_is_read_in_bytes() {
        let text = "MemTotal:       24683520 kB\nMemFree:        15749036 kB\nMemAvailable:   22633820 kB\n";
        assert_eq!(parse_meminfo(text), Some((22633820 * 1024, 24683520 * 1024)));
        assert_eq!(parse_meminfo("MemTotal: 1000 kB\n"), Some((1024000, 1024000)));
        assert_eq!(parse_meminfo("nothing"), None);
    }

    #[test]
    fn tables_round_down_to_a_power_of_two() {
        assert_eq!(table_bytes(100_000), 64 << 30);
        assert_eq!(table_bytes(1024), 1 << 30);
        assert_eq!(table_bytes(0), 32);
    }

    #[test]
    fn an_impossible_table_is_refused() {
        if machine_memory().is_some() {
            let err = check_tt_mb(usize::MAX >> 21).unwrap_err().to_string();
            assert!(err.contains("GiB available"), "{err}");
        }
        check_tt_mb(1).unwrap();
    }
}
