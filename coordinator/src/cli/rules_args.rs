//! The options that choose the rules of a game: `--rules` and, for the
//! hands and draft rules, the hands (`--hands` or `--deal`), the neutral
//! piece (`--neutral`) and who picks first in a draft (`--first-pick`); with
//! the one conversion of them into an engine [`Setup`], whose errors name the
//! option at fault.

use clap::{Args, ValueEnum};
use golomb_engine::hands::{HandsSource, NeutralSpec, Setup, SetupError, SetupSpec};
use golomb_engine::{Bits, Game, Player};
use serde::Serialize;

/// Which rules a game is played by.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Rules {
    /// Golomb's game: a common pile, the player who cannot move loses.
    #[default]
    Golomb,
    /// The Delphi game: each player places pieces from their own hand; the score is the pieces placed.
    Hands,
    /// The hands game after a draft: the players pick their hands from the pile in turn.
    Draft,
}

/// Who picks first in a draft.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FirstPick {
    /// The first player (who also places first).
    #[default]
    First,
    /// The second player.
    Second,
}

impl From<FirstPick> for Player {
    fn from(pick: FirstPick) -> Player {
        match pick {
            FirstPick::First => Player::First,
            FirstPick::Second => Player::Second,
        }
    }
}

/// The rules of a game and, for the hands and draft rules, its setup.
#[derive(Debug, Clone, Default, Args)]
pub struct RulesArgs {
    /// The rules: golomb (common pile; whoever cannot move loses), hands (each player places pieces
    /// from their own hand; score = pieces placed) or draft (players pick their hands in turn, then hands).
    #[arg(long, value_enum, default_value_t = Rules::Golomb)]
    pub rules: Rules,
    /// For --rules hands: the hands, the first player's pieces, a slash, the second's, for example
    /// "F,I,L,N,P,T/U,V,W,X,Y,Z". Pieces in neither hand are out of play.
    #[arg(long, conflicts_with = "deal")]
    pub hands: Option<String>,
    /// For --rules hands: deal every piece at random from this seed, half to each player (the second
    /// gets the odd one). The same seed gives the same deal on every machine.
    #[arg(long)]
    pub deal: Option<u64>,
    /// A neutral piece placed before play, away from the edge, belonging to nobody (the Delphi
    /// 35-hexomino setup): PIECE:CELLS, or alone to draw it from the --deal seed.
    #[arg(long, num_args = 0..=1, default_missing_value = "random")]
    pub neutral: Option<String>,
    /// For --rules draft: who picks first (the first player always places first).
    #[arg(long, value_enum, default_value_t = FirstPick::First)]
    pub first_pick: FirstPick,
}

impl RulesArgs {
    /// Refuses hands options under the golomb rules, where they would be ignored.
    pub fn check_golomb(&self) -> anyhow::Result<()> {
        let given = [
            self.hands.as_ref().map(|_| "--hands"),
            self.deal.map(|_| "--deal"),
            self.neutral.as_ref().map(|_| "--neutral"),
        ];
        if let Some(option) = given.into_iter().flatten().next() {
            anyhow::bail!("{option} is for --rules hands or --rules draft (the rules are golomb)");
        }
        Ok(())
    }

    fn neutral_spec(&self) -> NeutralSpec {
        self.neutral.as_deref().map_or(NeutralSpec::None, NeutralSpec::parse)
    }

    /// The hands game's setup for `game` (`--rules hands`).
    pub fn hands_setup<B: Bits>(&self, game: &Game<B>) -> anyhow::Result<Setup> {
        let hands = match (&self.hands, self.deal) {
            (Some(text), _) => HandsSource::Listed(text.clone()),
            (None, Some(seed)) => HandsSource::Dealt(seed),
            (None, None) => {
                anyhow::bail!("--rules hands needs the hands: --hands \"F,I,L,N,P,T/U,V,W,X,Y,Z\" or --deal SEED")
            }
        };
        let spec = SetupSpec { hands, neutral: self.neutral_spec() };
        spec.build(game).map_err(|e| self.blame(e))
    }

    /// The draft's neutral piece for `game` (`--rules draft`): the hands are picked, not given.
    pub fn draft_neutral<B: Bits>(&self, game: &Game<B>) -> anyhow::Result<Setup> {
        anyhow::ensure!(self.hands.is_none(), "--hands is for --rules hands: in a draft the players pick their hands");
        let hands = match self.deal {
            Some(seed) => HandsSource::Dealt(seed),
            None => HandsSource::Listed("/".into()),
        };
        let spec = SetupSpec { hands, neutral: self.neutral_spec() };
        let setup = spec.build(game).map_err(|e| self.blame(e))?;
        Ok(Setup { hands: Default::default(), neutral: setup.neutral })
    }

    /// `err` with the option at fault named.
    fn blame(&self, err: SetupError) -> anyhow::Error {
        let option = match err {
            SetupError::NeutralNotation(_)
            | SetupError::NeutralInHand { .. }
            | SetupError::NeutralOnEdge { .. }
            | SetupError::NoInteriorPlacement
            | SetupError::NeutralNeedsSeed => "--neutral",
            _ => "--hands",
        };
        anyhow::Error::new(err).context(format!("bad {option}"))
    }
}
