//! What a leaf held by a worker counts as while it is out ([`InFlight`]):
//! the policies the manager chooses leaves by, the coordinator's default
//! among them, and what a node keeps for the policies that prefer some
//! leaves ([`Preferred`], filled in `preferred.rs`).

/// What a leaf held by a worker counts as while it is out (Wu's policies,
/// and two between them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InFlight {
    /// It keeps its numbers but cannot be chosen again, nor can a node all
    /// of whose needed children are held ("flagging").
    Flag,
    /// It counts as a win for the side to move at the root until it returns.
    VirtualWin,
    /// It counts as a loss for the side to move at the root until it returns.
    VirtualLoss,
    /// Flagging, but in a classify job a leaf is first sought among at most
    /// this many children held at once below any node whose side to move
    /// looks closer to a win (φ ≤ δ); only when no such leaf is left does it
    /// flag (no worker idles). A solve flags. The coordinator's policy is `Cap(4)`.
    Cap(u8),
    /// [`InFlight::Cap`] in a solve too (for measuring it: the scaling bench's `cap-all-K`).
    CapAll(u8),
    /// A virtual win below a root (a classify job's openings) that looks like
    /// a win (φ ≤ δ), a virtual loss below one that looks like a loss; when
    /// that leaves nothing to hand out, flagging.
    ByRoot,
}

impl Default for InFlight {
    fn default() -> InFlight {
        InFlight::Cap(4)
    }
}

/// What a leaf waiting for a worker starts with (its numbers before anything is known of it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LeafNumbers {
    /// φ = 1 and δ = its number of moves (mobility): the coordinator's.
    #[default]
    Mobility,
    /// φ = δ = 1 (plain proof-number search): expanding an OR leaf leaves its
    /// φ at 1, so a parent's Σ φ does not jump by a grandchild's move count
    /// when a leaf below it is split.
    Plain,
}

impl LeafNumbers {
    /// A waiting leaf's (φ, δ), for a position with `replies` legal moves.
    pub(super) fn of(self, replies: u32) -> (u64, u64) {
        match self {
            LeafNumbers::Mobility => (1, u64::from(replies.max(1))),
            LeafNumbers::Plain => (1, 1),
        }
    }
}

/// A node's numbers under one virtual policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Numbers {
    pub(super) phi: u64,
    pub(super) delta: u64,
    pub(super) saturated: bool,
}

impl Default for Numbers {
    fn default() -> Numbers {
        Numbers { phi: 1, delta: 1, saturated: false }
    }
}

/// What a node keeps for the preferred descent.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Preferred {
    /// It is undecided and some leaf at or below it is in flight.
    pub(super) held: bool,
    /// The capped descent finds a leaf at or below it ([`InFlight::Cap`]).
    pub(super) open: bool,
    /// Its numbers with leaves in flight counted as wins, then as losses,
    /// for the side to move at its root ([`InFlight::ByRoot`]).
    pub(super) virtual_numbers: [Numbers; 2],
}
