//! Every transition and every refusal of the review machine, table-driven.

use super::*;

fn stamp() -> Stamp {
    Stamp {
        who: "ada".into(),
        when: "2026-11-21T12:00:00Z".into(),
    }
}

fn at(status: Status) -> TaskReview {
    TaskReview {
        status,
        history: vec![HistoryEntry {
            who: "bob".into(),
            when: "2026-11-20T09:00:00Z".into(),
            what: "earlier".into(),
        }],
        ..TaskReview::default()
    }
}

fn edits(skeleton: &str) -> TaskEdits {
    TaskEdits {
        skeleton: Some(skeleton.into()),
        ..TaskEdits::default()
    }
}

fn approve() -> ReviewAction {
    ReviewAction::Approve { comment: None }
}

fn failing(gate: Gate) -> Gates {
    let mut g = Gates::passing();
    match gate {
        Gate::Validation => g.validation = Validation::Unknown,
        Gate::PublicTests => g.methods_without_public_tests = vec!["pop".into()],
        Gate::Findings => g.error_findings = vec!["I2".into(), "S1:pop".into()],
    }
    g
}

fn all_failing() -> Gates {
    Gates {
        validation: Validation::Failed("test_pop failed".into()),
        methods_without_public_tests: vec!["pop".into()],
        error_findings: vec!["I2".into()],
    }
}

/// What a case expects: the status after and the effects, or the refusal's shape.
#[derive(Debug)]
enum Want {
    Ok(Status, &'static [Effect]),
    Refused(fn(&Refusal) -> bool),
}

const PERSIST: &[Effect] = &[Effect::Persist];
const EDITED: &[Effect] = &[Effect::Persist, Effect::Revalidate];

fn gates_fail(r: &Refusal) -> bool {
    matches!(r, Refusal::GatesFail(_))
}
fn reason_required(r: &Refusal) -> bool {
    matches!(r, Refusal::ReasonRequired(_))
}
fn empty_note(r: &Refusal) -> bool {
    matches!(r, Refusal::EmptyNote)
}
fn not_failing(r: &Refusal) -> bool {
    matches!(r, Refusal::GateNotFailing(_))
}
fn no_change(r: &Refusal) -> bool {
    matches!(r, Refusal::NoChange)
}

#[test]
fn every_action_from_every_status() {
    use Status::*;
    for from in Status::ALL {
        // An edit withdraws an approval and keeps any other status.
        let after_edit = if from == Approved { Unreviewed } else { from };
        let cases: Vec<(&str, ReviewAction, Gates, Want)> = vec![
            (
                "approve, gates pass",
                approve(),
                Gates::passing(),
                Want::Ok(Approved, PERSIST),
            ),
            (
                "approve with comment",
                ReviewAction::Approve {
                    comment: Some("clean".into()),
                },
                Gates::passing(),
                Want::Ok(Approved, PERSIST),
            ),
            (
                "approve, validation unknown",
                approve(),
                failing(Gate::Validation),
                Want::Refused(gates_fail),
            ),
            (
                "approve, public tests missing",
                approve(),
                failing(Gate::PublicTests),
                Want::Refused(gates_fail),
            ),
            (
                "approve, error findings",
                approve(),
                failing(Gate::Findings),
                Want::Refused(gates_fail),
            ),
            (
                "approve, all fail",
                approve(),
                all_failing(),
                Want::Refused(gates_fail),
            ),
            (
                "reject with reason",
                ReviewAction::Reject {
                    reason: "broken tests".into(),
                },
                all_failing(),
                Want::Ok(Rejected, PERSIST),
            ),
            (
                "reject without reason",
                ReviewAction::Reject { reason: "".into() },
                Gates::passing(),
                Want::Refused(reason_required),
            ),
            (
                "reject, blank reason",
                ReviewAction::Reject {
                    reason: " \n\t".into(),
                },
                Gates::passing(),
                Want::Refused(reason_required),
            ),
            (
                "needs work",
                ReviewAction::NeedsWork { reason: None },
                all_failing(),
                Want::Ok(NeedsWork, PERSIST),
            ),
            (
                "needs work with reason",
                ReviewAction::NeedsWork {
                    reason: Some("docstrings".into()),
                },
                Gates::passing(),
                Want::Ok(NeedsWork, PERSIST),
            ),
            (
                "note",
                ReviewAction::Note {
                    text: "looked at it".into(),
                },
                all_failing(),
                Want::Ok(from, PERSIST),
            ),
            (
                "empty note",
                ReviewAction::Note { text: "   ".into() },
                Gates::passing(),
                Want::Refused(empty_note),
            ),
            (
                "override a failing gate",
                ReviewAction::Override {
                    gate: Gate::Validation,
                    reason: "needs network".into(),
                },
                failing(Gate::Validation),
                Want::Ok(from, PERSIST),
            ),
            (
                "override without reason",
                ReviewAction::Override {
                    gate: Gate::Validation,
                    reason: " ".into(),
                },
                failing(Gate::Validation),
                Want::Refused(reason_required),
            ),
            (
                "override a passing gate",
                ReviewAction::Override {
                    gate: Gate::PublicTests,
                    reason: "why".into(),
                },
                failing(Gate::Validation),
                Want::Refused(not_failing),
            ),
            (
                "edit",
                ReviewAction::Edit {
                    edits: edits("class A: ..."),
                },
                Gates::passing(),
                Want::Ok(after_edit, EDITED),
            ),
            (
                "edit changing nothing",
                ReviewAction::Edit {
                    edits: TaskEdits::default(),
                },
                Gates::passing(),
                Want::Refused(no_change),
            ),
        ];
        for (name, action, gates, want) in cases {
            let state = at(from);
            let got = decide(&state, action, &gates, &stamp());
            match (want, got) {
                (Want::Ok(status, effects), Ok((next, got_effects))) => {
                    assert_eq!(next.status, status, "{from} / {name}");
                    assert_eq!(got_effects, effects, "{from} / {name}");
                    // Append-only: the old history is a prefix, one entry added, stamped.
                    assert_eq!(next.history.len(), 2, "{from} / {name}");
                    assert_eq!(next.history[0], state.history[0]);
                    assert_eq!(next.history[1].who, "ada");
                    assert_eq!(next.history[1].when, "2026-11-21T12:00:00Z");
                }
                (Want::Refused(check), Err(refusal)) => {
                    assert!(check(&refusal), "{from} / {name}: {refusal:?}")
                }
                (want, got) => panic!("{from} / {name}: wanted {want:?}, got {got:?}"),
            }
        }
    }
}

#[test]
fn approval_refusal_names_each_failing_gate() {
    let cases: Vec<(Gates, &[Gate], &str)> = vec![
        (
            failing(Gate::Validation),
            &[Gate::Validation],
            "classlab validate",
        ),
        (
            Gates {
                validation: Validation::Stale,
                ..Gates::passing()
            },
            &[Gate::Validation],
            "edited since",
        ),
        (
            Gates {
                validation: Validation::Failed("test_pop: AssertionError".into()),
                ..Gates::passing()
            },
            &[Gate::Validation],
            "test_pop: AssertionError",
        ),
        (failing(Gate::PublicTests), &[Gate::PublicTests], "pop"),
        (failing(Gate::Findings), &[Gate::Findings], "I2, S1:pop"),
        (
            all_failing(),
            &[Gate::Validation, Gate::PublicTests, Gate::Findings],
            "public tests",
        ),
    ];
    for (gates, want, text) in cases {
        let Err(Refusal::GatesFail(failures)) =
            decide(&at(Status::Unreviewed), approve(), &gates, &stamp())
        else {
            panic!("approval should be refused: {gates:?}");
        };
        let got: Vec<Gate> = failures.iter().map(|f| f.gate).collect();
        assert_eq!(got, want);
        let message = Refusal::GatesFail(failures).to_string();
        assert!(message.contains(text), "{message}");
    }
}

#[test]
fn overrides_let_approval_through_and_are_recorded() {
    for gate in Gate::ALL {
        let gates = failing(gate);
        let action = ReviewAction::Override {
            gate,
            reason: "  checked by hand  ".into(),
        };
        let (state, _) = decide(&at(Status::NeedsWork), action, &gates, &stamp()).unwrap();
        let o = &state.overrides[&gate];
        assert_eq!(
            (o.reason.as_str(), o.who.as_str()),
            ("checked by hand", "ada")
        );
        assert_eq!(
            state.history[1].what,
            format!("override {gate}: checked by hand")
        );
        let (state, _) = decide(&state, approve(), &gates, &stamp()).unwrap();
        assert_eq!(state.status, Status::Approved);
        assert!(
            state.history[2].what.contains(gate.as_str()),
            "{:?}",
            state.history
        );
    }
}

#[test]
fn a_findings_override_covers_only_the_findings_it_was_given_for() {
    let gates = failing(Gate::Findings);
    let action = ReviewAction::Override {
        gate: Gate::Findings,
        reason: "intended".into(),
    };
    let (state, _) = decide(&at(Status::Unreviewed), action, &gates, &stamp()).unwrap();
    assert_eq!(state.overrides[&Gate::Findings].covers, ["I2", "S1:pop"]);
    // An edit later brings a new error finding: it is not explained yet.
    let later = Gates {
        error_findings: vec!["I2".into(), "D4:push".into()],
        ..Gates::passing()
    };
    let Err(Refusal::GatesFail(f)) = decide(&state, approve(), &later, &stamp()) else {
        panic!("a new finding must block approval");
    };
    assert_eq!(f.len(), 1);
    assert!(
        f[0].message.contains("D4:push") && !f[0].message.contains("I2"),
        "{}",
        f[0]
    );
    // Findings that went away need nothing.
    let fewer = Gates {
        error_findings: vec!["I2".into()],
        ..Gates::passing()
    };
    assert!(decide(&state, approve(), &fewer, &stamp()).is_ok());
}

#[test]
fn actions_record_what_they_did() {
    let s = at(Status::Unreviewed);
    let g = Gates::passing();
    let what = |action| {
        decide(&s, action, &g, &stamp()).unwrap().0.history[1]
            .what
            .clone()
    };
    assert_eq!(what(approve()), "approved");
    assert_eq!(
        what(ReviewAction::Reject {
            reason: " flaky ".into()
        }),
        "rejected: flaky"
    );
    assert_eq!(
        what(ReviewAction::NeedsWork {
            reason: Some(" ".into())
        }),
        "needs work"
    );
    assert_eq!(what(ReviewAction::Note { text: "hm".into() }), "note: hm");
    assert_eq!(
        what(ReviewAction::Edit { edits: edits("x") }),
        "edited skeleton"
    );
    let approved = at(Status::Approved);
    let (next, _) = decide(
        &approved,
        ReviewAction::Edit { edits: edits("x") },
        &g,
        &stamp(),
    )
    .unwrap();
    assert!(next.history[1].what.ends_with("approval withdrawn"));
}

#[test]
fn decisions_keep_notes_edits_and_overrides() {
    let g = failing(Gate::Validation);
    let s = at(Status::Unreviewed);
    let (s, _) = decide(&s, ReviewAction::Note { text: "a".into() }, &g, &stamp()).unwrap();
    let (s, _) = decide(&s, ReviewAction::Edit { edits: edits("x") }, &g, &stamp()).unwrap();
    let o = ReviewAction::Override {
        gate: Gate::Validation,
        reason: "r".into(),
    };
    let (s, _) = decide(&s, o, &g, &stamp()).unwrap();
    let (s, _) = decide(
        &s,
        ReviewAction::Reject {
            reason: "no".into(),
        },
        &g,
        &stamp(),
    )
    .unwrap();
    assert_eq!(
        (s.notes.len(), &s.edits, s.overrides.len()),
        (1, &edits("x"), 1)
    );
    assert_eq!(
        (s.status, s.reason.as_deref()),
        (Status::Rejected, Some("no"))
    );
    assert_eq!(s.history.len(), 5);
    // The store's JSON round-trips it exactly.
    let back: TaskReview = serde_json::from_str(&serde_json::to_string(&s).unwrap()).unwrap();
    assert_eq!(back, s);
}

#[test]
fn names_parse_and_print() {
    for gate in Gate::ALL {
        assert_eq!(Gate::parse(gate.as_str()), Some(gate));
    }
    assert_eq!(Gate::parse(" Public-Tests "), Some(Gate::PublicTests));
    assert_eq!(Gate::parse("tests"), None);
    let json = serde_json::to_string(&Status::NeedsWork).unwrap();
    assert_eq!(json, "\"needs-work\"");
    for s in Status::ALL {
        assert_eq!(serde_json::to_value(s).unwrap(), s.as_str());
    }
}
