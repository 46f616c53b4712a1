//! Puzzles, solved rather than played: the tiler ([`tiling`]), a generic
//! exact-cover solver ([`exact_cover`]) and star puzzles ([`stars`]), which
//! are solved as exact covers (the tiler states its problem as one too, as
//! an independent check).
//!
//! The crate root re-exports each module under its old name
//! (`golomb_engine::tiling`, ...).

pub mod exact_cover;
pub mod stars;
pub mod tiling;
