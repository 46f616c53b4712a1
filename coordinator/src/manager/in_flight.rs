//! What a leaf held by a worker counts as while it is out ([`InFlight`]):
//! the policies the manager chooses leaves by, the coordinator's default
//! among them, and what a node keeps for the policies that prefer some
//! leaves ([`Preferred`], filled in `preferred.rs`); and how a node adds up
//! the numbers of children that must all be shown ([`Counting`]).
//!
//! The coordinator uses one policy and one way of counting, the defaults.
//! The others are experiments that the `policies` and `scaling` benches
//! measure them against; they exist only with the `bench-policies` feature
//! (`virtual_values.rs` holds the virtual ones' numbers).

use super::INFINITE;
#[cfg(feature = "bench-policies")]
use super::virtual_values::Numbers;

/// What a leaf held by a worker counts as while it is out (Wu's policies,
/// and two between them; all but [`InFlight::Cap`] with the `bench-policies`
/// feature only).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InFlight {
    /// It keeps its numbers but cannot be chosen again, nor can a node all
    /// of whose needed children are held ("flagging").
    #[cfg(feature = "bench-policies")]
    Flag,
    /// It counts as a win for the side to move at the root until it returns.
    #[cfg(feature = "bench-policies")]
    VirtualWin,
    /// It counts as a loss for the side to move at the root until it returns.
    #[cfg(feature = "bench-policies")]
    VirtualLoss,
    /// Flagging, but in a classify job a leaf is first sought among at most
    /// this many children held at once below any node whose side to move
    /// looks closer to a win (φ ≤ δ); only when no such leaf is left does it
    /// flag (no worker idles). A solve flags. The coordinator's policy is
    /// `Cap(4)`, chosen with summed numbers; with weak ones ([`Counting::Weak`],
    /// whose δ is never larger, so fewer nodes look closer to a win) the 7x7
    /// classify keeps 63% to 84% of its efficiency figures (`docs/manager.md`).
    Cap(u8),
    /// [`InFlight::Cap`] in a solve too (for measuring it: the scaling bench's `cap-all-K`).
    #[cfg(feature = "bench-policies")]
    CapAll(u8),
    /// A virtual win below a root (a classify job's openings) that looks like
    /// a win (φ ≤ δ), a virtual loss below one that looks like a loss; when
    /// that leaves nothing to hand out, flagging.
    #[cfg(feature = "bench-policies")]
    ByRoot,
}

impl Default for InFlight {
    fn default() -> InFlight {
        InFlight::Cap(4)
    }
}

/// What a node keeps for the preferred descent: what its tree's policy reads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) enum Preferred {
    /// Nothing: the policy flags.
    #[default]
    None,
    /// For a capped descent ([`InFlight::Cap`]).
    Capped {
        /// It is undecided and some leaf at or below it is in flight.
        held: bool,
        /// The capped descent finds a leaf at or below it.
        open: bool,
    },
    /// Its numbers with leaves in flight counted as wins, then as losses,
    /// for the side to move at its root ([`InFlight::ByRoot`]).
    #[cfg(feature = "bench-policies")]
    Virtual([Numbers; 2]),
}

impl Preferred {
    /// Whether the node is undecided and some leaf at or below it is in flight (for a capped descent).
    pub(super) fn held(&self) -> bool {
        matches!(self, Preferred::Capped { held: true, .. })
    }

    /// Whether the capped descent finds a leaf at or below the node.
    pub(super) fn open(&self) -> bool {
        matches!(self, Preferred::Capped { open: true, .. })
    }
}

/// How a node adds up its children's proof numbers into its disproof number
/// (every child must be shown to win for its side to move; the sum with the
/// `bench-policies` feature only).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Counting {
    /// Σ φ(child), as proof-number search was published (Allis 1994).
    #[cfg(feature = "bench-policies")]
    Sum,
    /// max φ(child) + (children still to show − 1), 0 when every child is
    /// shown: Ueda, Hashimoto, Hashimoto and Iida's weak proof numbers
    /// (Computers and Games 2008).
    /// A child that was split and came back with a large φ counts once, not
    /// once per such child, so a node whose children are being decided one
    /// by one keeps looking closer than a sibling not yet started. The
    /// coordinator's: on the whole 8x8 game, simulated, 256 workers answer
    /// in 6.2 s where the sum had no answer by 28 s (`docs/manager.md`).
    #[default]
    Weak,
}

/// The running total of children's proof numbers under a [`Counting`].
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Total {
    #[cfg(feature = "bench-policies")]
    sum: u64,
    max: u64,
    open: u64,
}

impl Total {
    /// Adds `count` children of proof number `phi` (0, a child won for its side to move, adds nothing).
    pub(super) fn add_many(&mut self, phi: u64, count: u32) {
        if phi > 0 && count > 0 {
            #[cfg(feature = "bench-policies")]
            {
                self.sum = self.sum.saturating_add(phi.saturating_mul(u64::from(count)));
            }
            self.max = self.max.max(phi);
            self.open += u64::from(count);
        }
    }

    /// The disproof number the children give.
    pub(super) fn delta(self, counting: Counting) -> u64 {
        match counting {
            #[cfg(feature = "bench-policies")]
            Counting::Sum => self.sum,
            // (`saturating_add` would give ∞ too: said here, not left to it.)
            Counting::Weak if self.max == INFINITE => INFINITE,
            Counting::Weak => self.max.saturating_add(self.open.saturating_sub(1)),
        }
    }
}
