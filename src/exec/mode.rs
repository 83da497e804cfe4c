//! The harness as a choice of the user's (`--harness split|inproc`): the default, its names,
//! and what each says about the verdicts it gives.

use std::fmt;
use std::str::FromStr;

use super::Harness;

/// The harness every command that judges code uses unless told otherwise, for every dataset:
/// split, whose verdicts the code cannot reach. Its agreement with the official evaluators
/// (issue 22's fidelity targets) is measured in this mode: README, "Fidelity of the split
/// harness".
pub const DEFAULT_HARNESS: Harness = Harness::Split;

/// `validate`'s default: it runs a dataset's own reference solutions (trusted: nothing to
/// forge) and instruments them (the calls each test makes, the files it leaves, coverage),
/// which needs them in the tests' process.
pub const VALIDATE_HARNESS: Harness = Harness::Inproc;

/// What an in-process session's reports say about its verdicts.
pub use crate::model::INPROC_CAVEAT;

impl Harness {
    /// The name the flag, the session's configuration and reports use.
    pub fn name(self) -> &'static str {
        match self {
            Harness::Inproc => "inproc",
            Harness::Split => "split",
        }
    }

    /// What reports must say about verdicts this harness gave (`None`: nothing to add).
    pub fn caveat(self) -> Option<&'static str> {
        match self {
            Harness::Inproc => Some(INPROC_CAVEAT),
            Harness::Split => None,
        }
    }

    /// The harness a session recorded in its configuration (`harness`), absent in sessions
    /// from before the split harness: those ran in-process.
    pub fn recorded(config: &serde_json::Value) -> Result<Harness, String> {
        match config.get("harness").and_then(serde_json::Value::as_str) {
            None => Ok(Harness::Inproc),
            Some(name) => name.parse(),
        }
    }
}

impl FromStr for Harness {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "inproc" => Ok(Harness::Inproc),
            "split" => Ok(Harness::Split),
            other => Err(format!(
                "unknown harness `{other}` (expected `split` or `inproc`)"
            )),
        }
    }
}

impl fmt::Display for Harness {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_old_sessions_are_in_process() {
        for h in [Harness::Inproc, Harness::Split] {
            assert_eq!(h.name().parse::<Harness>(), Ok(h));
            assert_eq!(h.to_string(), h.name());
        }
        assert!("both".parse::<Harness>().unwrap_err().contains("split"));
        assert_eq!(
            Harness::recorded(&serde_json::json!({"budget_s": 5.0})),
            Ok(Harness::Inproc)
        );
        assert_eq!(
            Harness::recorded(&serde_json::json!({"harness": "split"})),
            Ok(Harness::Split)
        );
        assert!(Harness::recorded(&serde_json::json!({"harness": "x"})).is_err());
        assert!(Harness::Inproc.caveat().unwrap().contains("forge"));
        assert_eq!(Harness::Split.caveat(), None);
    }
}
