//! A hands game's setup: which pieces each player holds, and the neutral
//! piece placed before play.
//!
//! Hands are listed (`F,I,L,N,P,T/U,V,W,X,Y,Z`: the first player's hand,
//! a slash, the second player's) or dealt from a seed. A deal shuffles the
//! pieces with [`SplitMix64`] (our own code, so a seed gives the same deal on
//! every machine) and gives the first player the first half, rounded down,
//! and the second player the rest: with an odd count the second player, who
//! moves second, holds the extra piece. Pieces in neither hand are out of
//! play.
//!
//! The neutral piece (the Delphi program's setup for the 35 hexominoes on
//! 15x15) belongs to nobody and is placed before the first move, with no cell
//! on the board's edge; it never counts in a score. `--neutral` alone draws
//! it from the deal's seed: first the piece, among those with a placement
//! away from the edge, then one of those placements, then the deal of the
//! remaining pieces.

use crate::game::bitboard::Bits;
use crate::game::notation::NotationError;
use crate::game::pieces::PieceSet;
use crate::game::position::Player;
use crate::game::{Game, PlacementId};

use super::rng::SplitMix64;

/// The pieces each player holds, as sets of piece ids (bit `i` for piece `i`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Hands {
    first: u64,
    second: u64,
}

/// A hands list, deal or neutral piece that does not make a setup.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SetupError {
    /// No slash between the two hands, or more than one.
    #[error(
        "`{0}` is not a pair of hands: expected the first player's pieces, a slash, the second's, like F,I,L/N,P,T"
    )]
    Syntax(String),
    /// A name in a hand that is not a piece of the set.
    #[error("unknown piece `{name}` in the {hand} player's hand: the pieces are {known}")]
    UnknownPiece {
        /// The name as written.
        name: String,
        /// The hand it is in.
        hand: HandName,
        /// The set's piece names.
        known: String,
    },
    /// An empty name (two commas in a row).
    #[error("the {hand} player's hand has an empty piece name (two commas in a row, or a comma at an end)")]
    EmptyName {
        /// The hand.
        hand: HandName,
    },
    /// A piece listed twice.
    #[error(
        "piece {piece} is listed twice (in the {first} player's hand and in the {second}'s): each piece at most once"
    )]
    Repeated {
        /// The piece's name.
        piece: String,
        /// Where it is listed first.
        first: HandName,
        /// Where it is listed again.
        second: HandName,
    },
    /// Hands naming piece ids the game does not have.
    #[error("the hands name piece ids beyond the {0} pieces of the set")]
    OutOfSet(usize),
    /// The neutral piece's placement does not parse.
    #[error("bad neutral piece: {0}")]
    NeutralNotation(#[from] NotationError),
    /// The neutral piece is also in a hand.
    #[error("the neutral piece {piece} is also in the {hand} player's hand: it belongs to nobody")]
    NeutralInHand {
        /// The piece's name.
        piece: String,
        /// The hand holding it.
        hand: HandName,
    },
    /// The neutral piece touches the edge.
    #[error("the neutral piece must stay away from the edge, but it covers the edge cell {cell}")]
    NeutralOnEdge {
        /// The first edge cell it covers.
        cell: String,
    },
    /// No piece has a placement away from the edge.
    #[error("no piece of the set fits on this board away from the edge: no neutral piece can be placed")]
    NoInteriorPlacement,
    /// A random neutral piece without a seed to draw it from.
    #[error(
        "a random neutral piece is drawn from the deal's seed: give --deal SEED, or place it with --neutral PIECE:CELLS"
    )]
    NeutralNeedsSeed,
}

/// Which hand, for messages.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum HandName {
    /// The first player's.
    First,
    /// The second player's.
    Second,
}

impl std::fmt::Display for HandName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            HandName::First => "first",
            HandName::Second => "second",
        })
    }
}

impl From<Player> for HandName {
    fn from(player: Player) -> HandName {
        match player {
            Player::First => HandName::First,
            Player::Second => HandName::Second,
        }
    }
}

impl Hands {
    /// Hands from two disjoint piece sets; `None` if they share a piece.
    pub fn new(first: u64, second: u64) -> Option<Hands> {
        (first & second == 0).then_some(Hands { first, second })
    }

    /// The pieces `player` holds.
    #[inline]
    pub fn of(&self, player: Player) -> u64 {
        match player {
            Player::First => self.first,
            Player::Second => self.second,
        }
    }

    /// Every piece in play (in either hand).
    #[inline]
    pub fn in_play(&self) -> u64 {
        self.first | self.second
    }

    /// Who holds `piece`, if anyone.
    pub fn owner(&self, piece: usize) -> Option<Player> {
        if self.first >> piece & 1 == 1 {
            Some(Player::First)
        } else if self.second >> piece & 1 == 1 {
            Some(Player::Second)
        } else {
            None
        }
    }

    /// The same hands held by the other players.
    #[must_use]
    pub fn swapped(&self) -> Hands {
        Hands { first: self.second, second: self.first }
    }

    /// Parses `F,I,L/N,P,T`: the first player's hand, a slash, the second's.
    /// Either hand may be empty; each piece at most once.
    pub fn parse(pieces: &PieceSet, text: &str) -> Result<Hands, SetupError> {
        let parts: Vec<&str> = text.split('/').collect();
        let [first, second] = parts[..] else {
            return Err(SetupError::Syntax(text.to_string()));
        };
        let mut hands = Hands::default();
        for (part, hand) in [(first, HandName::First), (second, HandName::Second)] {
            if part.trim().is_empty() {
                continue;
            }
            for name in part.split(',').map(str::trim) {
                if name.is_empty() {
                    return Err(SetupError::EmptyName { hand });
                }
                let id = pieces.find(name).ok_or_else(|| SetupError::UnknownPiece {
                    name: name.to_string(),
                    hand,
                    known: piece_names(pieces),
                })?;
                let bit = 1u64 << id;
                if hands.in_play() & bit != 0 {
                    let first = if hands.first & bit != 0 { HandName::First } else { HandName::Second };
                    return Err(SetupError::Repeated {
                        piece: pieces.piece(id).name().to_string(),
                        first,
                        second: hand,
                    });
                }
                match hand {
                    HandName::First => hands.first |= bit,
                    HandName::Second => hands.second |= bit,
                }
            }
        }
        Ok(hands)
    }

    /// Deals the pieces of `pool` from `seed`: shuffled, the first half
    /// (rounded down) to the first player, the rest to the second.
    pub fn deal(pool: u64, seed: u64) -> Hands {
        Hands::deal_with(pool, &mut SplitMix64::new(seed))
    }

    fn deal_with(pool: u64, rng: &mut SplitMix64) -> Hands {
        let mut ids: Vec<u32> = (0..64).filter(|&i| pool >> i & 1 == 1).collect();
        rng.shuffle(&mut ids);
        let half = ids.len() / 2;
        let set = |ids: &[u32]| ids.iter().fold(0u64, |s, &i| s | 1 << i);
        Hands { first: set(&ids[..half]), second: set(&ids[half..]) }
    }

    /// The hands as text, `F,I,L/N,P,T` (pieces in set order), as [`Hands::parse`] reads them.
    pub fn name(&self, pieces: &PieceSet) -> String {
        format!("{}/{}", set_name(pieces, self.first), set_name(pieces, self.second))
    }
}

/// The names of the pieces in `set`, comma-separated, in set order.
pub fn set_name(pieces: &PieceSet, set: u64) -> String {
    (0..pieces.len()).filter(|&i| set >> i & 1 == 1).map(|i| pieces.piece(i).name()).collect::<Vec<_>>().join(",")
}

fn piece_names(pieces: &PieceSet) -> String {
    pieces.pieces().iter().map(|p| p.name()).collect::<Vec<_>>().join(", ")
}

/// A whole setup: the hands and the neutral piece's placement, if any.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Setup {
    /// The hands.
    pub hands: Hands,
    /// The neutral piece, placed before the first move.
    pub neutral: Option<PlacementId>,
}

/// Where the hands come from, as named on the command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HandsSource {
    /// Listed: `F,I,L/N,P,T`.
    Listed(String),
    /// Dealt from this seed.
    Dealt(u64),
}

/// The neutral piece, as named on the command line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum NeutralSpec {
    /// No neutral piece.
    #[default]
    None,
    /// Drawn from the deal's seed.
    Random,
    /// This placement, like `X:c2,b3,c3,d3,c4`.
    Placed(String),
}

impl NeutralSpec {
    /// `random` (or an empty text) for a drawn piece, else a placement.
    pub fn parse(text: &str) -> NeutralSpec {
        match text.trim() {
            "" | "random" => NeutralSpec::Random,
            placed => NeutralSpec::Placed(placed.to_string()),
        }
    }
}

/// A setup named by text: where the hands come from and the neutral piece.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetupSpec {
    /// The hands.
    pub hands: HandsSource,
    /// The neutral piece.
    pub neutral: NeutralSpec,
}

impl SetupSpec {
    /// Builds the setup for `game`, checking every piece name and the neutral placement.
    pub fn build<B: Bits>(&self, game: &Game<B>) -> Result<Setup, SetupError> {
        let all = game.all_pieces();
        let (mut rng, listed) = match &self.hands {
            HandsSource::Listed(text) => (None, Some(Hands::parse(game.pieces(), text)?)),
            HandsSource::Dealt(seed) => (Some(SplitMix64::new(*seed)), None),
        };
        let neutral = match (&self.neutral, rng.as_mut()) {
            (NeutralSpec::None, _) => None,
            (NeutralSpec::Random, None) => return Err(SetupError::NeutralNeedsSeed),
            (NeutralSpec::Random, Some(rng)) => Some(random_neutral(game, rng)?),
            (NeutralSpec::Placed(text), _) => Some(game.parse_move(text)?),
        };
        let neutral_piece = neutral.map_or(0, |id| 1u64 << game.placement(id).piece);
        let hands = match (listed, rng.as_mut()) {
            (Some(hands), _) => hands,
            (None, Some(rng)) => Hands::deal_with(all & !neutral_piece, rng),
            (None, None) => Hands::default(),
        };
        let setup = Setup { hands, neutral };
        setup.check(game)?;
        Ok(setup)
    }
}

impl Setup {
    /// Hands with no neutral piece.
    pub fn of_hands(hands: Hands) -> Setup {
        Setup { hands, neutral: None }
    }

    /// Checks that the setup fits `game`: pieces in the set, the neutral
    /// piece in no hand and away from the edge.
    pub fn check<B: Bits>(&self, game: &Game<B>) -> Result<(), SetupError> {
        if self.hands.in_play() & !game.all_pieces() != 0 {
            return Err(SetupError::OutOfSet(game.pieces().len()));
        }
        if let Some(id) = self.neutral {
            let placement = game.placement(id);
            if let Some(owner) = self.hands.owner(placement.piece as usize) {
                return Err(SetupError::NeutralInHand {
                    piece: game.pieces().piece(placement.piece as usize).name().to_string(),
                    hand: owner.into(),
                });
            }
            if let Some(cell) = placement.mask.cells().find(|&c| on_edge(game, c)) {
                return Err(SetupError::NeutralOnEdge { cell: game.board().cell_name(cell) });
            }
        }
        Ok(())
    }
}

/// Whether `cell` is on the board's outer edge.
fn on_edge<B: Bits>(game: &Game<B>, cell: usize) -> bool {
    let (x, y) = game.board().xy(cell);
    x == 0 || y == 0 || x as usize + 1 == game.board().width() || y as usize + 1 == game.board().height()
}

/// Draws the neutral piece: a piece among those with a placement away from
/// the edge, then one of its placements away from the edge.
fn random_neutral<B: Bits>(game: &Game<B>, rng: &mut SplitMix64) -> Result<PlacementId, SetupError> {
    let interior = |piece: usize| -> Vec<PlacementId> {
        game.placements_of(piece).filter(|&id| !game.placement(id).mask.cells().any(|c| on_edge(game, c))).collect()
    };
    let candidates: Vec<usize> = (0..game.pieces().len()).filter(|&p| !interior(p).is_empty()).collect();
    if candidates.is_empty() {
        return Err(SetupError::NoInteriorPlacement);
    }
    let piece = candidates[rng.below(candidates.len())];
    let placements = interior(piece);
    Ok(placements[rng.below(placements.len())])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::GameSpec;
    use crate::game::bitboard::{Bitboard, WideBitboard};
    use crate::game::board::Board;

    fn pentominoes() -> Game<Bitboard> {
        Game::new(Board::new(8, 8).unwrap(), PieceSet::of_order(5)).unwrap()
    }

    #[test]
    fn hands_parse_and_print_back() {
        let game = pentominoes();
        let hands = Hands::parse(game.pieces(), "F,I,L,N,P,T/U,V,W,X,Y,Z").unwrap();
        assert_eq!(hands.of(Player::First).count_ones(), 6);
        assert_eq!(hands.in_play(), game.all_pieces());
        assert_eq!(hands.name(game.pieces()), "F,I,L,N,P,T/U,V,W,X,Y,Z");
        assert_eq!(Hands::parse(game.pieces(), " l , i /x").unwrap().name(game.pieces()), "I,L/X");
        assert_eq!(Hands::parse(game.pieces(), "/").unwrap(), Hands::default());
        assert_eq!(hands.owner(game.pieces().find("X").unwrap()), Some(Player::Second));
    }

    #[test]
    fn bad_hands_say_what_and_where() {
        let game = pentominoes();
        let err = |text: &str| Hands::parse(game.pieces(), text).unwrap_err().to_string();
        assert!(err("F,I,L").contains("not a pair of hands"));
        assert!(err("F/I/L").contains("not a pair of hands"));
        assert!(err("F,Q/I").contains("unknown piece `Q` in the first player's hand"));
        assert!(err("F/I,Q").contains("unknown piece `Q` in the second player's hand"));
        assert!(err("F,I/L,F").contains("piece F is listed twice (in the first player's hand and in the second's)"));
        assert!(err("F,F/").contains("piece F is listed twice (in the first player's hand and in the first's)"));
        assert!(err("F,,I/L").contains("empty piece name"));
    }

    #[test]
    fn deals_are_balanced_and_repeatable() {
        let all = (1u64 << 12) - 1;
        let deal = Hands::deal(all, 42);
        assert_eq!(deal, Hands::deal(all, 42));
        assert_eq!((deal.of(Player::First).count_ones(), deal.of(Player::Second).count_ones()), (6, 6));
        assert_eq!(deal.in_play(), all);
        assert_ne!(deal, Hands::deal(all, 43));
        let odd = Hands::deal((1 << 5) - 1, 1);
        assert_eq!((odd.of(Player::First).count_ones(), odd.of(Player::Second).count_ones()), (2, 3));
        // The same seed gives the same deal on every machine: pinned (the README's deal 1).
        let game = pentominoes();
        assert_eq!(Hands::deal(all, 1).name(game.pieces()), "F,I,L,P,V,Z/N,T,U,W,X,Y");
    }

    #[test]
    fn the_delphi_hexomino_setup_places_a_neutral_piece_and_deals_seventeen_each() {
        let AnyGameWide(game) = hexominoes();
        let spec = SetupSpec { hands: HandsSource::Dealt(2026), neutral: NeutralSpec::Random };
        let setup = spec.build(&game).unwrap();
        assert_eq!(setup, spec.build(&game).unwrap());
        let neutral = setup.neutral.unwrap();
        assert!(!game.placement(neutral).mask.cells().any(|c| on_edge(&game, c)));
        assert_eq!(setup.hands.of(Player::First).count_ones(), 17);
        assert_eq!(setup.hands.of(Player::Second).count_ones(), 17);
        assert_eq!(setup.hands.owner(game.placement(neutral).piece as usize), None);
    }

    struct AnyGameWide(Game<WideBitboard>);

    fn hexominoes() -> AnyGameWide {
        let spec = GameSpec::new("15x15", "", "hexominoes");
        AnyGameWide(Game::new(spec.build_board().unwrap(), spec.build_pieces().unwrap()).unwrap())
    }

    #[test]
    fn bad_neutral_pieces_are_refused() {
        let game = pentominoes();
        let build = |hands: &str, neutral: NeutralSpec| {
            SetupSpec { hands: HandsSource::Listed(hands.into()), neutral }.build(&game).map_err(|e| e.to_string())
        };
        let placed = |text: &str| NeutralSpec::Placed(text.into());
        assert!(build("F/I", placed("X:c2,b3,c3,d3,c4")).is_ok());
        assert!(build("F/X", placed("X:c2,b3,c3,d3,c4")).unwrap_err().contains("also in the second player's hand"));
        assert!(build("F/I", placed("X:b1,a2,b2,c2,b3")).unwrap_err().contains("covers the edge cell b1"));
        assert!(build("F/I", placed("X:b1,a2")).unwrap_err().contains("bad neutral piece"));
        assert!(build("F/I", NeutralSpec::Random).unwrap_err().contains("give --deal SEED"));
        let tiny = Game::<Bitboard>::new(Board::new(4, 4).unwrap(), PieceSet::of_order(5)).unwrap();
        let random = SetupSpec { hands: HandsSource::Dealt(1), neutral: NeutralSpec::Random };
        assert_eq!(random.build(&tiny), Err(SetupError::NoInteriorPlacement));
    }
}
