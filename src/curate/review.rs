//! The review workflow as a pure state machine: a task's review state and an action in, the
//! next state and the effects to run out (or a refusal saying why not). No clock, no user
//! lookup, no I/O: the caller passes who and when ([`Stamp`]) and what the gates say
//! ([`Gates`]), and executes the [`Effect`]s. The TUI and the headless commands share it.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use super::edits::TaskEdits;

/// Where a task stands in review.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    #[default]
    Unreviewed,
    NeedsWork,
    Approved,
    Rejected,
}

impl Status {
    pub const ALL: [Status; 4] = [
        Status::Unreviewed,
        Status::NeedsWork,
        Status::Approved,
        Status::Rejected,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Status::Unreviewed => "unreviewed",
            Status::NeedsWork => "needs-work",
            Status::Approved => "approved",
            Status::Rejected => "rejected",
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The approval gates of domain.md §6.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Gate {
    /// The reference passes all public and private tests twice, fresh directory, other seed.
    Validation,
    /// Every method has public tests.
    PublicTests,
    /// No error-severity finding remains unexplained.
    Findings,
}

impl Gate {
    pub const ALL: [Gate; 3] = [Gate::Validation, Gate::PublicTests, Gate::Findings];

    pub fn as_str(self) -> &'static str {
        match self {
            Gate::Validation => "validation",
            Gate::PublicTests => "public-tests",
            Gate::Findings => "findings",
        }
    }

    pub fn parse(s: &str) -> Option<Gate> {
        Gate::ALL
            .into_iter()
            .find(|g| g.as_str().eq_ignore_ascii_case(s.trim()))
    }
}

impl fmt::Display for Gate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What validation says about the task as it now stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Validation {
    Passed,
    Failed(String),
    /// Validated, but the task was edited since.
    Stale,
    /// Never validated.
    Unknown,
}

/// The gates' inputs, computed by the caller (validation record, the edited task, the linter).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Gates {
    pub validation: Validation,
    /// Target methods of the (edited) task without public tests.
    pub methods_without_public_tests: Vec<String>,
    /// Keys (`CODE` or `CODE:method`) of the task's error-severity findings.
    pub error_findings: Vec<String>,
}

impl Gates {
    /// Gates that all pass (useful for tests and for datasets already clean).
    pub fn passing() -> Self {
        Gates {
            validation: Validation::Passed,
            methods_without_public_tests: Vec::new(),
            error_findings: Vec::new(),
        }
    }
}

/// Who acted and when (RFC 3339): an input, so the machine stays pure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stamp {
    pub who: String,
    pub when: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HistoryEntry {
    pub who: String,
    pub when: String,
    pub what: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Note {
    pub who: String,
    pub when: String,
    pub text: String,
}

/// A gate the reviewer let pass, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Override {
    pub reason: String,
    pub who: String,
    pub when: String,
    /// For the findings gate: the error findings this explanation covers (a finding that
    /// appears later, after an edit, is not covered).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub covers: Vec<String>,
}

/// One task's review: its decisions, notes, edits and history.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskReview {
    #[serde(default)]
    pub status: Status,
    /// Why the task has its status (reject reason, needs-work reason, approval comment).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<Note>,
    #[serde(default, skip_serializing_if = "TaskEdits::is_empty")]
    pub edits: TaskEdits,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub overrides: BTreeMap<Gate, Override>,
    /// Append-only: every accepted action adds one entry.
    #[serde(default)]
    pub history: Vec<HistoryEntry>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReviewAction {
    Approve {
        comment: Option<String>,
    },
    Reject {
        reason: String,
    },
    NeedsWork {
        reason: Option<String>,
    },
    Note {
        text: String,
    },
    Override {
        gate: Gate,
        reason: String,
    },
    /// The task's edits as they should now be (already pruned against the original).
    Edit {
        edits: TaskEdits,
    },
}

/// What the caller must do after an accepted action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// Write the store.
    Persist,
    /// The task changed: lint and validate it again.
    Revalidate,
}

/// A gate that fails and is not overridden.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GateFailure {
    pub gate: Gate,
    pub message: String,
}

impl fmt::Display for GateFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.gate, self.message)
    }
}

/// Why an action was not taken.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("cannot approve: {}", list(.0))]
    GatesFail(Vec<GateFailure>),
    #[error("{0} needs a reason (--reason TEXT)")]
    ReasonRequired(&'static str),
    #[error("a note needs some text")]
    EmptyNote,
    #[error("gate {0} passes: there is nothing to override")]
    GateNotFailing(Gate),
    #[error("the edit changes nothing")]
    NoChange,
}

fn list(failures: &[GateFailure]) -> String {
    failures
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

/// How `gate` fails on these inputs, overrides aside; `None` when it passes.
pub fn gate_failure(gate: Gate, gates: &Gates) -> Option<GateFailure> {
    let message = match gate {
        Gate::Validation => match &gates.validation {
            Validation::Passed => return None,
            Validation::Failed(why) => format!("the reference failed validation: {why}"),
            Validation::Stale => {
                "the task was edited since it was validated; validate it again (v in the review queue, or `classlab validate`)".into()
            }
            Validation::Unknown => {
                "not validated yet (v in the review queue, or `classlab validate`: the reference must pass every test twice)".into()
            }
        },
        Gate::PublicTests if gates.methods_without_public_tests.is_empty() => return None,
        Gate::PublicTests => format!(
            "methods without public tests: {}",
            gates.methods_without_public_tests.join(", ")
        ),
        Gate::Findings if gates.error_findings.is_empty() => return None,
        Gate::Findings => format!(
            "unexplained error findings: {}",
            gates.error_findings.join(", ")
        ),
    };
    Some(GateFailure { gate, message })
}

/// The gates that block approval: failing and not overridden. A findings override covers only
/// the findings it was given for.
pub fn blocking(state: &TaskReview, gates: &Gates) -> Vec<GateFailure> {
    Gate::ALL
        .into_iter()
        .filter_map(|gate| match (gate, state.overrides.get(&gate)) {
            (_, None) => gate_failure(gate, gates),
            (Gate::Findings, Some(o)) => {
                let rest: Vec<String> = gates
                    .error_findings
                    .iter()
                    .filter(|f| !o.covers.contains(f))
                    .cloned()
                    .collect();
                let left = Gates {
                    error_findings: rest,
                    ..gates.clone()
                };
                gate_failure(gate, &left)
            }
            (_, Some(_)) => None,
        })
        .collect()
}

/// Text with something in it, trimmed.
fn given(text: Option<&str>) -> Option<String> {
    text.map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_string)
}

/// The review workflow: take `action` on `state` or say why not.
pub fn decide(
    state: &TaskReview,
    action: ReviewAction,
    gates: &Gates,
    stamp: &Stamp,
) -> Result<(TaskReview, Vec<Effect>), Refusal> {
    let mut next = state.clone();
    let mut effects = vec![Effect::Persist];
    let what = match action {
        ReviewAction::Approve { comment } => {
            let failures = blocking(state, gates);
            if !failures.is_empty() {
                return Err(Refusal::GatesFail(failures));
            }
            next.status = Status::Approved;
            next.reason = given(comment.as_deref());
            let overridden: Vec<&str> = state.overrides.keys().map(|g| g.as_str()).collect();
            let mut what = with_reason("approved", next.reason.as_deref());
            if !overridden.is_empty() {
                what.push_str(&format!(" (gates overridden: {})", overridden.join(", ")));
            }
            what
        }
        ReviewAction::Reject { reason } => {
            let reason = given(Some(&reason)).ok_or(Refusal::ReasonRequired("reject"))?;
            next.status = Status::Rejected;
            next.reason = Some(reason);
            with_reason("rejected", next.reason.as_deref())
        }
        ReviewAction::NeedsWork { reason } => {
            next.status = Status::NeedsWork;
            next.reason = given(reason.as_deref());
            with_reason("needs work", next.reason.as_deref())
        }
        ReviewAction::Note { text } => {
            let text = given(Some(&text)).ok_or(Refusal::EmptyNote)?;
            next.notes.push(Note {
                who: stamp.who.clone(),
                when: stamp.when.clone(),
                text: text.clone(),
            });
            format!("note: {text}")
        }
        ReviewAction::Override { gate, reason } => {
            let reason = given(Some(&reason)).ok_or(Refusal::ReasonRequired("an override"))?;
            if gate_failure(gate, gates).is_none() {
                return Err(Refusal::GateNotFailing(gate));
            }
            let covers = match gate {
                Gate::Findings => gates.error_findings.clone(),
                _ => Vec::new(),
            };
            next.overrides.insert(
                gate,
                Override {
                    reason: reason.clone(),
                    who: stamp.who.clone(),
                    when: stamp.when.clone(),
                    covers,
                },
            );
            format!("override {gate}: {reason}")
        }
        ReviewAction::Edit { edits } => {
            let changed = state.edits.changed_paths(&edits);
            if changed.is_empty() {
                return Err(Refusal::NoChange);
            }
            next.edits = edits;
            effects.push(Effect::Revalidate);
            let mut what = format!("edited {}", changed.join(", "));
            // An approval was for the task as it was; the new text needs a new look.
            if state.status == Status::Approved {
                next.status = Status::Unreviewed;
                next.reason = None;
                what.push_str("; approval withdrawn");
            }
            what
        }
    };
    next.history.push(HistoryEntry {
        who: stamp.who.clone(),
        when: stamp.when.clone(),
        what,
    });
    Ok((next, effects))
}

fn with_reason(what: &str, reason: Option<&str>) -> String {
    match reason {
        Some(r) => format!("{what}: {r}"),
        None => what.to_string(),
    }
}

#[cfg(test)]
mod tests;
