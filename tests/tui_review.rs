//! The review queue (curation): snapshots (ratatui TestBackend + insta, 80×24 and 160×48) of
//! the queue, a task with findings (the sample's Sample_5: I1, D4, T1) and an approval refused
//! by its gates; and `App::update` driving approve / reject / needs-work / note / override,
//! single and in bulk, with the store effects carried out for real in a temporary directory.
//!
//! Update with `INSTA_UPDATE=always cargo test --test tui_review`, then read the `.snap` files.

mod tui_fixtures;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use classlab::curate::targets::Target;
use classlab::curate::{Gate, Status, store};
use classlab::tui::action::{Action, Delivered};
use classlab::tui::app::{App, Effect, Level, ScreenId};
use classlab::tui::jobs::{EvalSetup, Jobs};
use classlab::tui::keymap::Context;
use classlab::tui::review::Bulk;
use tui_fixtures::*;

const SIZES: [(u16, u16); 2] = [(80, 24), (160, 48)];

/// The rigor store beside a test's curation store (in its temporary directory): never the
/// user's.
fn rigor_store(curation: &Path) -> PathBuf {
    curation.with_file_name("rigor.db")
}

/// Update the app and carry out its review effects at once (load and save in `dir`).
fn drive(app: &mut App, actions: impl IntoIterator<Item = Action>) -> Vec<Effect> {
    let mut seen = Vec::new();
    for action in actions {
        let mut queue = app.update(action);
        while let Some(effect) = queue.pop() {
            seen.push(effect.clone());
            let answer = match effect {
                Effect::LoadReview { req, path } => Action::ReviewLoaded {
                    req,
                    loaded: Delivered::new(classlab::tui::review::persist::load(
                        &path,
                        &app.sh.data.dataset,
                        &rigor_store(&path),
                    )),
                },
                Effect::SaveReview { path, ops, stamp } => {
                    match classlab::tui::review::persist::save(
                        &path,
                        &app.sh.data.dataset,
                        &ops,
                        &stamp,
                        &rigor_store(&path),
                    ) {
                        Ok(store) => Action::ReviewSaved {
                            store: Some(Delivered::new(store)),
                            error: None,
                        },
                        Err(e) => Action::ReviewSaved {
                            store: None,
                            error: Some(e),
                        },
                    }
                }
                _ => continue,
            };
            queue.extend(app.update(answer));
        }
    }
    seen
}

/// The editor of the scripted-editor test: a shell script that deletes the first line (the
/// unused `import math` of Sample_5's solution).
fn scripted_editor(dir: &Path) -> String {
    sed_editor(dir, "1d")
}

fn store_path(dir: &Path) -> PathBuf {
    dir.join("sample.curation.json")
}

/// The sample's review queue, its store in `dir`.
fn queue_app(size: (u16, u16), dir: &Path) -> App {
    let mut app = app(size);
    app.screens.review.store_path = Some(store_path(dir));
    let effects = drive(&mut app, [Action::ShowReview]);
    assert!(matches!(effects[0], Effect::LoadReview { .. }));
    assert_eq!(app.screen(), ScreenId::Review);
    app
}

fn select(app: &mut App, id: &str) {
    drive(app, [Action::Top]);
    for _ in 0..app.sh.data.dataset.tasks.len() {
        let idx = app.screens.review.selected_task().unwrap();
        if app.sh.data.dataset.tasks[idx].id == id {
            return;
        }
        drive(app, [Action::Down]);
    }
    panic!("{id} is not in the queue");
}

fn typed(text: &str) -> Vec<Action> {
    let mut out: Vec<Action> = text.chars().map(Action::Input).collect();
    out.push(Action::Submit);
    out
}

fn snap(name: &str, setup: impl Fn((u16, u16), &Path) -> App) {
    for size in SIZES {
        let dir = tempfile::tempdir().unwrap();
        let app = setup(size, dir.path());
        insta::assert_snapshot!(format!("review_{name}_{}x{}", size.0, size.1), screen(&app));
    }
}

#[test]
fn the_review_queue() {
    snap("queue", queue_app);
}

#[test]
fn a_task_with_findings() {
    snap("sample_5", |size, dir| {
        let mut app = queue_app(size, dir);
        select(&mut app, "Sample_5");
        app
    });
    let dir = tempfile::tempdir().unwrap();
    let mut app = queue_app((80, 24), dir.path());
    select(&mut app, "Sample_5");
    let idx = app.screens.review.selected_task().unwrap();
    let mut codes: Vec<&str> = app
        .screens
        .review
        .findings(idx)
        .iter()
        .map(|f| f.code)
        .collect();
    codes.sort();
    assert_eq!(codes, ["D4", "I1", "T1"]);
}

/// Sample_5 as `classlab forge` writes a task it kept below its gates (provenance `forge`).
fn forged_below_gate(size: (u16, u16), dir: &Path) -> App {
    let mut app = queue_app(size, dir);
    let task = app
        .sh
        .data
        .dataset
        .tasks
        .iter_mut()
        .find(|t| t.id == "Sample_5")
        .expect("Sample_5");
    task.provenance.extra.insert(
        "forge".into(),
        serde_json::json!({
            "generator": "classlab 0.1.0 forge test", "seed": 1,
            "evidence": {"tests": 8, "sequences": 9, "line": 96.7, "branch": 83.3,
                         "branches": [10, 12], "mutation": 0.707,
                         "mutants": {"score": 0.707, "mutants": 41, "killed": 29, "survived": [
                             {"op": "comparison", "line": 12, "before": "n < 0", "after": "n <= 0"},
                             {"op": "constant", "line": 14, "before": "'x'", "after": "'XXxXX'"},
                             {"op": "boolean", "line": 15, "before": "a or b", "after": "a and b"}]}},
            "gate": {"branch": 0.9, "mutation": 0.8, "passed": false,
                     "below": ["branch coverage 83.3% < 90%", "mutation score 70.7% < 80%"]}
        }),
    );
    select(&mut app, "Sample_5");
    app
}

#[test]
fn a_forged_task_shows_its_gates_and_evidence() {
    snap("forged_below_gate", forged_below_gate);
    let dir = tempfile::tempdir().unwrap();
    let text = screen(&forged_below_gate((160, 48), dir.path()));
    assert!(
        text.contains(
            "forge: below gate · branch coverage 83.3% < 90% · mutation score 70.7% < 80%"
        ),
        "{text}"
    );
    assert!(text.contains("mutation 70.7% (29 of 41 killed)"), "{text}");
    assert!(
        text.contains("survives l.12 comparison: n < 0 → n <= 0"),
        "{text}"
    );
    assert!(text.contains("… 1 more surviving mutants"), "{text}");
}

#[test]
fn approval_refused_while_a_gate_fails() {
    snap("approve_refused", |size, dir| {
        let mut app = queue_app(size, dir);
        select(&mut app, "Sample_5");
        let effects = drive(&mut app, [Action::ReviewApprove]);
        assert!(effects.is_empty(), "nothing to save: {effects:?}");
        app
    });
    let dir = tempfile::tempdir().unwrap();
    let mut app = queue_app((80, 24), dir.path());
    select(&mut app, "Sample_5");
    drive(&mut app, [Action::ReviewApprove]);
    let status = app.sh.status.clone().unwrap();
    assert_eq!(status.level, Level::Error);
    assert!(status.text.contains("cannot approve"), "{}", status.text);
    assert!(status.text.contains("validation"), "{}", status.text);
    assert!(!store_path(dir.path()).exists(), "a refusal writes nothing");
}

#[test]
fn approve_with_override_reject_note_and_needs_work_are_persisted() {
    let dir = tempfile::tempdir().unwrap();
    let path = store_path(dir.path());
    let mut app = queue_app((80, 24), dir.path());
    select(&mut app, "Sample_5");

    // Override the failing gates with a reason, then approve.
    drive(&mut app, [Action::ReviewOverride]);
    assert_eq!(app.contexts()[0], Context::ReviewInput);
    drive(&mut app, typed("checked by hand"));
    assert_eq!(app.contexts()[0], Context::Review);
    drive(&mut app, [Action::ReviewApprove]);
    assert_eq!(app.sh.status.as_ref().unwrap().text, "saved");
    let on_disk = store::load(&path).unwrap();
    let review = on_disk.review("Sample_5");
    assert_eq!(review.status, Status::Approved);
    assert_eq!(
        review.overrides[&Gate::Validation].reason,
        "checked by hand"
    );
    assert!(
        review
            .history
            .last()
            .unwrap()
            .what
            .contains("gates overridden")
    );

    // A note.
    drive(&mut app, [Action::ReviewNote]);
    drive(&mut app, typed("docstring example fixed upstream"));
    let review = store::load(&path).unwrap().review("Sample_5");
    assert_eq!(review.notes.len(), 1);
    assert_eq!(review.notes[0].text, "docstring example fixed upstream");

    // Reject asks a reason; an empty one is refused, Esc cancels.
    select(&mut app, "Sample_1");
    drive(&mut app, [Action::ReviewReject, Action::Submit]);
    assert_eq!(app.sh.status.as_ref().unwrap().level, Level::Error);
    drive(
        &mut app,
        [Action::ReviewReject, Action::Input('x'), Action::Back],
    );
    assert!(app.screens.review.input.is_none());
    drive(&mut app, [Action::ReviewReject]);
    drive(&mut app, typed("duplicate of Sample_2"));
    let review = store::load(&path).unwrap().review("Sample_1");
    assert_eq!(review.status, Status::Rejected);
    assert_eq!(review.reason.as_deref(), Some("duplicate of Sample_2"));

    // Needs work.
    select(&mut app, "Sample_2");
    drive(&mut app, [Action::ReviewNeedsWork]);
    let on_disk = store::load(&path).unwrap();
    assert_eq!(on_disk.review("Sample_2").status, Status::NeedsWork);
    assert_eq!(on_disk.review("Sample_5").status, Status::Approved);

    // The status filter sees them.
    drive(&mut app, [Action::CycleStatusFilter]); // unreviewed
    let ids: Vec<String> = app
        .screens
        .review
        .visible
        .iter()
        .map(|&i| app.sh.data.dataset.tasks[i].id.clone())
        .collect();
    assert!(
        !ids.iter()
            .any(|i| ["Sample_1", "Sample_2", "Sample_5"].contains(&i.as_str()))
    );
    drive(
        &mut app,
        [Action::CycleStatusFilter, Action::CycleStatusFilter],
    ); // approved
    assert_eq!(app.screens.review.visible.len(), 1);
}

#[test]
fn bulk_decisions_ask_first_and_act_on_the_filtered_set() {
    let dir = tempfile::tempdir().unwrap();
    let path = store_path(dir.path());
    let mut app = queue_app((80, 24), dir.path());
    // Only tasks with an error finding.
    drive(&mut app, [Action::CycleSeverityFilter]);
    let filtered: Vec<String> = app
        .screens
        .review
        .visible
        .iter()
        .map(|&i| app.sh.data.dataset.tasks[i].id.clone())
        .collect();
    assert!(!filtered.is_empty());
    assert!(filtered.len() < app.sh.data.dataset.tasks.len());

    // `n` answers no.
    drive(&mut app, [Action::ReviewBulk(Bulk::NeedsWork)]);
    assert_eq!(app.contexts()[0], Context::ReviewConfirm);
    drive(&mut app, [Action::Back]);
    assert!(!path.exists());

    drive(
        &mut app,
        [Action::ReviewBulk(Bulk::NeedsWork), Action::Submit],
    );
    let on_disk = store::load(&path).unwrap();
    for t in &app.sh.data.dataset.tasks {
        let want = if filtered.contains(&t.id) {
            Status::NeedsWork
        } else {
            Status::Unreviewed
        };
        assert_eq!(on_disk.review(&t.id).status, want, "{}", t.id);
    }

    // Bulk approval is refused task by task while gates fail; nothing changes.
    drive(
        &mut app,
        [Action::ReviewBulk(Bulk::Approve), Action::Submit],
    );
    assert_eq!(app.sh.status.as_ref().unwrap().level, Level::Error);
    assert_eq!(store::load(&path).unwrap(), on_disk);

    // The rule filter.
    drive(
        &mut app,
        [Action::CycleSeverityFilter, Action::CycleSeverityFilter],
    );
    drive(&mut app, [Action::CycleSeverityFilter]); // back to any
    drive(&mut app, [Action::StartFilter]);
    drive(&mut app, typed("t1"));
    assert_eq!(app.screens.review.rule_filter, "T1");
    let ids: Vec<&str> = app
        .screens
        .review
        .visible
        .iter()
        .map(|&i| app.sh.data.dataset.tasks[i].id.as_str())
        .collect();
    assert!(ids.contains(&"Sample_5"), "{ids:?}");
}

#[test]
fn v_opens_the_queue_and_the_help_lists_its_keys() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = app((80, 24));
    app.screens.review.store_path = Some(store_path(dir.path()));
    let event = crossterm::event::Event::Key(crossterm::event::KeyEvent::new(
        crossterm::event::KeyCode::Char('V'),
        crossterm::event::KeyModifiers::SHIFT,
    ));
    let action = classlab::tui::action_for(&app, &event).unwrap();
    assert_eq!(action, Action::ShowReview);
    drive(&mut app, [action]);
    assert_eq!(app.screen(), ScreenId::Review);
    let keys = app.sh.keymap.describe(Context::Review);
    for want in [
        "a", "r", "w", "n", "o", "A", "s", "f", "/", "v", "p", "P", "]", "[", "e", "d",
    ] {
        assert!(
            keys.iter().any(|(k, _)| k.iter().any(|k| k == want)),
            "{want}: {keys:?}"
        );
    }
}

#[test]
fn editing_in_a_scripted_editor_stores_the_edit_and_lints_again() {
    let dir = tempfile::tempdir().unwrap();
    let editor = scripted_editor(dir.path());
    let mut app = queue_app((80, 24), dir.path());
    select(&mut app, "Sample_5");
    drive(&mut app, [Action::NextTab]); // the solution
    let mut effects = app.update(Action::ReviewEdit);
    let Some(Effect::EditPart {
        task_id,
        target,
        text,
    }) = effects.pop()
    else {
        panic!("no edit effect");
    };
    assert_eq!((task_id.as_str(), &target), ("Sample_5", &Target::Solution));
    assert!(text.starts_with("import math"), "{text}");
    let result = classlab::tui::review::editor::edit_with(&editor, &text, &task_id);
    assert!(!result.as_ref().unwrap().contains("import math"));
    let effects = drive(
        &mut app,
        [Action::ReviewEdited {
            task_id,
            target,
            result,
        }],
    );
    // Saved, then read and linted again.
    assert!(
        effects
            .iter()
            .any(|e| matches!(e, Effect::SaveReview { .. }))
    );
    assert!(
        effects
            .iter()
            .any(|e| matches!(e, Effect::LoadReview { .. }))
    );
    // And validated again in the background.
    assert!(
        effects
            .iter()
            .any(|e| matches!(e, Effect::ValidateTask { task_id, .. } if task_id == "Sample_5")),
        "{effects:?}"
    );
    assert!(app.screens.review.validating.contains_key("Sample_5"));
    let on_disk = store::load(&store_path(dir.path())).unwrap();
    let review = on_disk.review("Sample_5");
    assert!(
        review
            .history
            .last()
            .unwrap()
            .what
            .contains("edited solution_code")
    );
    let idx = app.screens.review.selected_task().unwrap();
    let task = &app.sh.data.dataset.tasks[idx];
    let relinted =
        classlab::analysis::lint::lint_task(&classlab::curate::edited_task(&on_disk, task));
    assert_eq!(
        app.screens.review.findings(idx),
        relinted.as_slice(),
        "linted as edited"
    );
    let (shown, edited) = app
        .screens
        .review
        .review_source(&app.sh, idx, &Target::Solution);
    assert!(edited && !shown.contains("import math"));
    // On return the pane shows the diff against the original; `d` the edited text.
    assert!(app.screens.review.diff);
    insta::assert_snapshot!("review_edit_diff_80x24", screen(&app));
    drive(&mut app, [Action::ReviewDiff]);
    insta::assert_snapshot!("review_after_edit_80x24", screen(&app));

    // A failing editor changes nothing.
    let failed = classlab::tui::review::editor::edit_with("false", "x", "Sample_5");
    assert!(failed.is_err());
    drive(
        &mut app,
        [Action::ReviewEdited {
            task_id: "Sample_5".into(),
            target: Target::Solution,
            result: failed,
        }],
    );
    assert_eq!(app.sh.status.as_ref().unwrap().level, Level::Error);
    assert_eq!(store::load(&store_path(dir.path())).unwrap(), on_disk);
}

/// A store where Sample_5's reference failed validation (with counts, coverage and findings)
/// and Sample_1 passed; Sample_2 passed before an edit made its record stale.
fn store_with_validations(dir: &Path) {
    use classlab::curate::{ReviewAction, TaskEdits, TestCount, ValidationRecord};
    let sample = classlab::dataset::sample();
    let task = |id: &str| sample.tasks.iter().find(|t| t.id == id).unwrap();
    let mut locked = store::lock(&store_path(dir)).unwrap();
    let s5 = task("Sample_5");
    let failed = ValidationRecord {
        when: "2026-11-21T12:00:00Z".into(),
        passed: false,
        summary: Some("private 11/12, public 4/4 passed in both runs; runs agree (I2)".into()),
        private: Some(TestCount {
            passed: 11,
            total: 12,
        }),
        public: Some(TestCount {
            passed: 4,
            total: 4,
        }),
        class_coverage: Some(91.7),
        method_coverage: s5
            .methods
            .iter()
            .enumerate()
            .map(|(i, m)| (m.name.clone(), (i > 0).then_some(100.0 - i as f64)))
            .collect(),
        findings: vec!["I2".into(), format!("T9:{}", s5.methods[1].name)],
        ..ValidationRecord::default()
    };
    classlab::curate::record_validated(&mut locked.store, s5, failed);
    let passed = ValidationRecord {
        passed: true,
        private: Some(TestCount {
            passed: 6,
            total: 6,
        }),
        public: Some(TestCount {
            passed: 3,
            total: 3,
        }),
        class_coverage: Some(100.0),
        ..ValidationRecord::default()
    };
    for id in ["Sample_1", "Sample_2"] {
        classlab::curate::record_validated(&mut locked.store, task(id), passed.clone());
    }
    let s2 = task("Sample_2");
    let mut edits = TaskEdits::default();
    edits
        .set(s2, "skeleton", format!("{}\n# edited\n", s2.skeleton))
        .unwrap();
    let stamp = classlab::curate::Stamp {
        who: "ada".into(),
        when: "2026-11-21T12:00:00Z".into(),
    };
    classlab::curate::act(
        &mut locked.store,
        s2,
        ReviewAction::Edit { edits },
        &stamp,
        &[],
    )
    .unwrap();
    locked.save().unwrap();
}

#[test]
fn validation_results_and_coverage_beside_the_task() {
    snap("validation", |size, dir| {
        store_with_validations(dir);
        let mut app = queue_app(size, dir);
        select(&mut app, "Sample_5");
        drive(&mut app, [Action::NextMethod]);
        app
    });
    let dir = tempfile::tempdir().unwrap();
    store_with_validations(dir.path());
    let mut app = queue_app((80, 24), dir.path());
    select(&mut app, "Sample_5");
    let methods: Vec<String> = app
        .screens
        .review
        .review_methods(&app.sh)
        .iter()
        .map(|m| m.to_string())
        .collect();
    assert_eq!(
        app.screens.review.review_method(&app.sh),
        Some(methods[0].as_str())
    );
    drive(&mut app, [Action::PrevMethod]);
    assert_eq!(
        app.screens.review.review_method(&app.sh),
        methods.last().map(String::as_str)
    );
    drive(&mut app, [Action::NextMethod, Action::NextMethod]);
    assert_eq!(
        app.screens.review.review_method(&app.sh),
        Some(methods[1].as_str())
    );
    // Another task starts at its first method again.
    drive(&mut app, [Action::Up]);
    assert_eq!(app.screens.review.method, 0);
    let marks = screen(&app);
    for want in ["✗", "✓", "~"] {
        assert!(marks.contains(want), "{want}:\n{marks}");
    }
}

/// Carry out `effects` with the real jobs (threads, the sandbox) and wait for the answer of
/// a background validation.
fn validated_for_real(app: &App, jobs: &mut Jobs, effects: Vec<Effect>) -> Action {
    for e in effects {
        jobs.execute(e, &app.sh.data.dataset);
    }
    let deadline = Instant::now() + Duration::from_secs(300);
    loop {
        match jobs.try_recv() {
            Some(a @ Action::ReviewValidated { .. }) => return a,
            Some(_) => {}
            None => {
                assert!(Instant::now() < deadline, "no validation answer");
                std::thread::sleep(Duration::from_millis(50));
            }
        }
    }
}

/// `v` runs the real sandbox (python3; coverage.py as `.ci/run` installs it) on a thread,
/// records the outcome in the store and shows it.
#[test]
fn v_validates_the_task_in_the_background_and_records_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = store_path(dir.path());
    let mut app = queue_app((80, 24), dir.path());
    select(&mut app, "Sample_1");
    let effects = app.update(Action::ReviewValidate);
    assert!(
        matches!(effects.as_slice(), [Effect::ValidateTask { task_id, .. }] if task_id == "Sample_1"),
        "{effects:?}"
    );
    let shown = screen(&app);
    assert!(shown.contains("running in the background"), "{shown}");
    assert!(shown.contains("Sample_1 unreviewed …"), "{shown}");
    let mut jobs = Jobs::new(
        EvalSetup::new(dir.path().join("sessions"), None)
            .with_rigor_store(dir.path().join("rigor.db")),
    );
    let answer = validated_for_real(&app, &mut jobs, effects);
    // The answer carries the store as recorded: the queue shows it without a reload.
    let effects = drive(&mut app, [answer]);
    assert!(
        !effects
            .iter()
            .any(|e| matches!(e, Effect::LoadReview { .. })),
        "no reload and relint of the dataset: {effects:?}"
    );
    assert!(app.screens.review.validating.is_empty());
    let record = store::load(&path).unwrap().tasks["Sample_1"]
        .validation
        .clone()
        .expect("recorded");
    assert!(record.passed, "{record:?}");
    let private = record.private.unwrap();
    assert!(
        private.total > 0 && private.passed == private.total,
        "{record:?}"
    );
    assert!(record.class_coverage.is_some(), "coverage.py: {record:?}");
    let status = app.sh.status.clone().unwrap();
    assert!(status.text.contains("validation passed"), "{}", status.text);
    let shown = screen(&app);
    assert!(shown.contains("validation passed"), "{shown}");
    assert!(shown.contains("Sample_1 unreviewed ✓"), "{shown}");
    assert!(shown.contains("coverage: class"), "{shown}");
}

/// Quitting stops a validation under way: the sandbox is killed, nothing is recorded, and an
/// answer to an older request is ignored.
#[test]
fn quitting_stops_a_validation_and_old_answers_are_ignored() {
    let dir = tempfile::tempdir().unwrap();
    let path = store_path(dir.path());
    let mut app = queue_app((80, 24), dir.path());
    select(&mut app, "Sample_1");
    let first = app.update(Action::ReviewValidate);
    let second = app.update(Action::ReviewValidate);
    let req = |e: &[Effect]| match e {
        [Effect::ValidateTask { req, .. }] => *req,
        other => panic!("{other:?}"),
    };
    let (old, new) = (req(&first), req(&second));
    assert!(new > old);
    let mut jobs = Jobs::new(
        EvalSetup::new(dir.path().join("sessions"), None)
            .with_rigor_store(dir.path().join("rigor.db")),
    );
    for e in second {
        jobs.execute(e, &app.sh.data.dataset);
    }
    assert!(jobs.validating());
    let t0 = Instant::now();
    jobs.shutdown();
    assert!(!jobs.validating());
    assert!(t0.elapsed() < Duration::from_secs(30), "{:?}", t0.elapsed());
    let recorded = store::load(&path)
        .map(|s| s.tasks.get("Sample_1").and_then(|r| r.validation.clone()))
        .unwrap();
    assert_eq!(recorded, None, "a stopped validation records nothing");
    // The older request's answer changes nothing; the newer one's ends the wait.
    let answer = |req| Action::ReviewValidated {
        req,
        task_id: "Sample_1".into(),
        result: Err("stopped".into()),
    };
    assert!(drive(&mut app, [answer(old)]).is_empty());
    assert!(app.screens.review.validating.contains_key("Sample_1"));
    drive(&mut app, [answer(new)]);
    assert!(app.screens.review.validating.is_empty());
    assert_eq!(app.sh.status.as_ref().unwrap().level, Level::Error);
}

/// A shell-script editor running `sed -i <expr>` on the file.
fn sed_editor(dir: &Path, expr: &str) -> String {
    use std::os::unix::fs::PermissionsExt;
    let script = dir.join("sed-editor.sh");
    std::fs::write(&script, format!("#!/bin/sh\nsed -i '{expr}' \"$1\"\n")).unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    script.display().to_string()
}

/// Run the editor an `EditPart` effect asks for (as the app loop does, temp file named from
/// the task id and the part) and hand the result back.
fn run_editor(app: &mut App, editor: &str, effects: Vec<Effect>) -> (String, Vec<Effect>) {
    let Some(Effect::EditPart {
        task_id,
        target,
        text,
    }) = effects
        .into_iter()
        .find(|e| matches!(e, Effect::EditPart { .. }))
    else {
        panic!("no edit effect");
    };
    let name = format!("{task_id}-{}", target.file_stem());
    let result = classlab::tui::review::editor::edit_with(editor, &text, &name);
    let seen = drive(
        app,
        [Action::ReviewEdited {
            task_id,
            target,
            result,
        }],
    );
    (text, seen)
}

#[test]
fn a_method_docstring_is_shown_and_edited_in_the_skeleton_and_the_description() {
    // Sample_5's first method, add_grade: Tab to its docstring (the fourth part).
    snap("docstring", |size, dir| {
        let mut app = queue_app(size, dir);
        select(&mut app, "Sample_5");
        drive(
            &mut app,
            [Action::NextTab, Action::NextTab, Action::NextTab],
        );
        app
    });
    let dir = tempfile::tempdir().unwrap();
    let mut app = queue_app((80, 24), dir.path());
    select(&mut app, "Sample_5");
    drive(
        &mut app,
        [Action::PrevTab, Action::PrevTab, Action::PrevTab],
    );
    assert_eq!(
        app.screens.review.review_target(&app.sh),
        Some(Target::Docstring("add_grade".into()))
    );
    let idx = app.screens.review.selected_task().unwrap();
    let before = app.screens.review.findings(idx).len();
    let editor = sed_editor(dir.path(), "s/:param grade:/:param score:/");
    let effects = app.update(Action::ReviewEdit);
    let (text, seen) = run_editor(&mut app, &editor, effects);
    assert!(text.contains(":param grade:"), "{text}");
    assert!(
        !text.contains("def add_grade"),
        "only the docstring: {text}"
    );
    assert!(
        seen.iter()
            .any(|e| matches!(e, Effect::ValidateTask { task_id, .. } if task_id == "Sample_5")),
        "validated again: {seen:?}"
    );
    // In the store: the skeleton and the method's description, both edited.
    let on_disk = store::load(&store_path(dir.path())).unwrap();
    let edits = on_disk.review("Sample_5").edits;
    assert!(edits.skeleton.as_deref().unwrap().contains(":param score:"));
    let desc = edits.methods["add_grade"].description.as_deref().unwrap();
    assert!(desc.contains(":param score:") && !desc.contains(":param grade:"));
    // Linted again: the D4 finding is gone.
    let codes: Vec<&str> = app
        .screens
        .review
        .findings(idx)
        .iter()
        .map(|f| f.code)
        .collect();
    assert!(!codes.contains(&"D4"), "{codes:?}");
    assert_eq!(app.screens.review.findings(idx).len(), before - 1);
    let (shown, edited) =
        app.screens
            .review
            .review_source(&app.sh, idx, &Target::Docstring("add_grade".into()));
    assert!(edited && shown.contains(":param score:"));
    assert!(app.screens.review.diff, "the diff is shown on return");
    insta::assert_snapshot!("review_docstring_diff_80x24", screen(&app));
}

#[test]
fn public_tests_drafted_from_doctests_or_promoted_from_private_tests() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = queue_app((80, 24), dir.path());
    select(&mut app, "Sample_5");
    // p: a draft from add_grade's doctests, in the editor; kept as it is.
    let effects = app.update(Action::ReviewDraftPublic);
    let (draft, _) = run_editor(&mut app, "true", effects);
    assert!(
        draft.contains("class ") && draft.contains("add_grade"),
        "{draft}"
    );
    assert_eq!(
        app.screens.review.review_target(&app.sh),
        Some(Target::PublicTests("add_grade".into()))
    );
    let on_disk = store::load(&store_path(dir.path())).unwrap();
    let public = on_disk.review("Sample_5").edits.methods["add_grade"]
        .public_tests
        .clone()
        .unwrap();
    assert_eq!(public.trim_end(), draft.trim_end());

    // P: the checklist of the next method's private tests.
    drive(&mut app, [Action::NextMethod, Action::ReviewPromote]);
    assert_eq!(app.contexts()[0], Context::ReviewPromote);
    let promote = app.screens.review.promote.clone().unwrap();
    assert!(promote.tests.len() >= 2, "{promote:?}");
    // Enter with nothing chosen says so; space chooses.
    drive(&mut app, [Action::Submit]);
    assert!(app.screens.review.promote.is_some());
    drive(
        &mut app,
        [Action::ToggleMark, Action::Down, Action::ToggleMark],
    );
    drive(
        &mut app,
        [Action::ToggleMark, Action::Down, Action::ToggleMark],
    );
    insta::assert_snapshot!("review_promote_80x24", screen(&app));
    let chosen: Vec<String> = {
        let p = app.screens.review.promote.as_ref().unwrap();
        p.tests
            .iter()
            .zip(&p.chosen)
            .filter(|(_, c)| **c)
            .map(|(t, _)| t.clone())
            .collect()
    };
    assert_eq!(chosen.len(), 2, "{chosen:?}");
    let effects = app.update(Action::Submit);
    assert!(app.screens.review.promote.is_none());
    let (promoted, _) = run_editor(&mut app, "true", effects);
    for t in &chosen {
        assert!(promoted.contains(&format!("def {t}")), "{t}: {promoted}");
    }
    let method = promote.method.clone();
    let on_disk = store::load(&store_path(dir.path())).unwrap();
    let kept = on_disk.review("Sample_5").edits.methods[&method]
        .public_tests
        .clone()
        .unwrap();
    assert!(kept.contains(&format!("def {}", chosen[0])));

    // Esc cancels the checklist.
    drive(&mut app, [Action::ReviewPromote, Action::Back]);
    assert!(app.screens.review.promote.is_none());
    assert_eq!(app.contexts()[0], Context::Review);
}

/// B12: ClassEval's ids (up to `ClassEval_99`) are shown whole in the queue at 80 and 100
/// columns, not cut to `ClassEva`.
#[test]
fn the_queue_shows_classeval_ids_whole_at_80_and_100_columns() {
    use classlab::depcheck::GroundTruth;
    use classlab::tui::app::UiSetup;
    use classlab::tui::data::Data;
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/data/classeval/ClassEval_data.json"
    );
    let ds = classlab::dataset::load_path(Path::new(path)).expect("ClassEval");
    for size in [(80, 24), (100, 30), (160, 48)] {
        let dir = tempfile::tempdir().unwrap();
        let mut app = App::new(
            Data::new(ds.clone(), None, GroundTruth::Extracted),
            UiSetup {
                size,
                ..UiSetup::default()
            },
        );
        app.screens.review.store_path = Some(dir.path().join("classeval.curation.json"));
        drive(&mut app, [Action::ShowReview, Action::Bottom]);
        let text = screen(&app);
        assert!(text.contains("ClassEval_99 "), "{text}");
        assert!(!text.contains("ClassEva…"), "{text}");
        if size == (80, 24) {
            insta::assert_snapshot!("review_classeval_ids_80x24", text);
        }
    }
}

/// B11: `V` validates every task of the filtered queue in the background (asking first), two
/// at a time: each answer starts the next waiting task, and every validation is recorded in
/// the queue's store.
#[test]
fn v_validates_the_whole_filtered_queue_two_at_a_time() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = queue_app((80, 24), dir.path());
    let asked = drive(&mut app, [Action::ReviewBulk(Bulk::Validate)]);
    assert!(asked.is_empty(), "asks first: {asked:?}");
    assert!(app.sh.status.as_ref().unwrap().text.contains("validate"));
    let effects = app.update(Action::Submit);
    let started: Vec<(u64, String, PathBuf)> = effects
        .iter()
        .filter_map(|e| match e {
            Effect::ValidateTask { req, task_id, path } => {
                Some((*req, task_id.clone(), path.clone()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(started.len(), 2, "{effects:?}");
    assert!(started.iter().all(|(_, _, p)| *p == store_path(dir.path())));
    assert_eq!(app.screens.review.validate_queue.len(), 6);
    assert!(
        screen(&app).contains("2 running, 6 waiting"),
        "{}",
        screen(&app)
    );
    // One ends: the next waiting task starts (and the store is read again).
    let (req, id, _) = started[0].clone();
    let effects = app.update(Action::ReviewValidated {
        req,
        task_id: id,
        result: Err("stopped".into()),
    });
    let next = effects
        .iter()
        .filter(|e| matches!(e, Effect::ValidateTask { .. }))
        .count();
    assert_eq!(next, 1, "{effects:?}");
    assert!(
        effects
            .iter()
            .any(|e| matches!(e, Effect::LoadReview { .. }))
    );
    assert_eq!(app.screens.review.validate_queue.len(), 5);
    assert_eq!(app.screens.review.validating.len(), 2);
}

/// `m` drafts a test for a surviving mutant: the task's rigor is asked for first (computed in
/// the background), then the test module with the drafted class opens in `$EDITOR` and the
/// edit is stored. The rigor delivered here has mutants generated for real from the
/// reference; their outcomes are given (the runs themselves are tests/rigor_cli.rs's).
#[test]
fn m_drafts_a_test_for_a_surviving_mutant() {
    use classlab::rigor::{Analysis, Outcome, Status, TaskRigor};
    use classlab::tui::rigor::RigorNews;
    let dir = tempfile::tempdir().unwrap();
    let mut app = queue_app((80, 24), dir.path());
    select(&mut app, "Sample_5");
    let idx = app.screens.review.selected_task().unwrap();
    let effects = drive(&mut app, [Action::ReviewDraftKill]);
    assert!(
        effects
            .iter()
            .any(|e| matches!(e, Effect::Rigor { tasks } if tasks == &vec![idx])),
        "{effects:?}"
    );
    assert!(!effects.iter().any(|e| matches!(e, Effect::EditPart { .. })));

    let task = app.sh.data.dataset.tasks[idx].clone();
    let mutants = classlab::rigor::mutants(&task.solution, &task.class_name).unwrap();
    let outcome = |status| Outcome {
        status,
        by: None,
        how: None,
        tests_run: 1,
        seconds: 0.0,
    };
    // The last mutant survives, every other one is killed.
    let mut outcomes: Vec<Outcome> = mutants.iter().map(|_| outcome(Status::Killed)).collect();
    *outcomes.last_mut().unwrap() = outcome(Status::Survived);
    let survivor = mutants.last().unwrap().diff(&task.solution);
    let r = TaskRigor::new(
        &task.id,
        &task.solution,
        mutants,
        Analysis {
            outcomes,
            ..Analysis::default()
        },
    );
    drive(
        &mut app,
        [Action::Rigor(Delivered::new(RigorNews::Result {
            task: idx,
            result: std::sync::Arc::new(r),
        }))],
    );
    let effects = app.update(Action::ReviewDraftKill);
    let (draft, _) = run_editor(&mut app, "true", effects);
    assert!(draft.starts_with(task.test_module.trim_end()), "{draft}");
    assert!(
        draft.contains(&format!("line {} of the reference", survivor.line)),
        "{draft}"
    );
    assert!(draft.contains(&format!("`{}`", survivor.after)), "{draft}");
    assert!(draft.contains("self.fail("), "{draft}");
    let on_disk = store::load(&store_path(dir.path())).unwrap();
    let stored = on_disk.review("Sample_5").edits.test.clone().unwrap();
    assert_eq!(stored.trim_end(), draft.trim_end());
}
