//! The step-through of a holistic run (issue 12 B13): a real `classlab run --strategy
//! holistic` over one task of the bundled sample against a scripted model (the reference
//! class with one method broken), reopened in the TUI. Each target method gets a row, and
//! its step-through shows where it stands in the generated class, its test class's results
//! and its outcome. Snapshot at 80×24.
//!
//! Update with `INSTA_UPDATE=always cargo test --test tui_step_holistic`, then read the `.snap`.

mod common;
mod tui_fixtures;

use classlab::analysis::parse::parse_module;
use classlab::metrics::fingerprint::Bucket;
use classlab::session::SessionLog;
use classlab::tui::action::Action;
use classlab::tui::app::ScreenId;
use common::mock_llm::{MockLlm, MockReply};
use tui_fixtures::*;

/// The sample task used, and the method the scripted model breaks.
const TASK: usize = 0;

/// The reference class of `task` with `method`'s body replaced by a `raise`.
fn broken_class(reference: &str, method: &str) -> String {
    let module = parse_module(reference);
    let def = module
        .classes
        .iter()
        .flat_map(|c| c.methods.iter())
        .find(|m| m.name == method)
        .expect("method in the reference");
    let indent: String = reference[..def.start_byte]
        .rsplit('\n')
        .next()
        .unwrap_or("")
        .to_string();
    format!(
        "{}def {method}(self, *args, **kwargs):\n{indent}    raise RuntimeError('scripted failure'){}",
        &reference[..def.start_byte],
        &reference[def.end_byte..]
    )
}

#[test]
fn a_holistic_run_steps_through_every_method_in_the_class() {
    let dataset = classlab::dataset::sample();
    let task = &dataset.tasks[TASK];
    // A plain method (no decorator) to break: the second target method that has none.
    let reference = parse_module(&task.solution);
    let plain: Vec<&str> = task
        .methods
        .iter()
        .map(|m| m.name.as_str())
        .filter(|n| {
            reference
                .classes
                .iter()
                .flat_map(|c| c.methods.iter())
                .any(|d| d.name == *n && d.decorators.is_empty())
        })
        .collect();
    let broken = plain[1];
    let code = broken_class(&task.solution, broken);
    let mock = MockLlm::scripted(vec![MockReply::text(format!("```python\n{code}\n```"))]);
    let sessions = tempfile::tempdir().unwrap();
    let out = assert_cmd::Command::cargo_bin("classlab")
        .unwrap()
        .args([
            "run",
            "--json",
            "--strategy",
            "holistic",
            "--provider",
            "openai",
        ])
        .args(["--base-url", &mock.base_url(), "--model", "scripted"])
        .args(["--tasks", &task.id])
        .arg("--sessions")
        .arg(sessions.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "run failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dir = common::reference_model::only_session(sessions.path());
    let log = SessionLog::open(&dir).unwrap();

    // The fold: one entry per target method, each with its region, tests and outcome.
    let trace = classlab::session::EvalState::from_events(&log.events).trace;
    let t = trace.task(&task.id, 0).expect("task traced");
    assert!(t.whole_class);
    let names: Vec<&str> = t.methods.iter().map(|m| m.name.as_str()).collect();
    let targets: Vec<&str> = task.methods.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, targets);
    for m in &task.methods {
        let c = t.in_class(&m.name).expect("in class");
        assert!(c.lines.is_some(), "{} has a region", m.name);
        assert_eq!(c.test_class, m.test_class, "{}", m.name);
        assert!(!c.tests.tests.is_empty(), "{} has tests", m.name);
        assert!(c.outcome.is_some(), "{} judged", m.name);
    }
    let perfect = |n: &str| t.in_class(n).unwrap().outcome == Some(Bucket::Perfect);
    // The broken method fails its tests (its callers may too); the first one is untouched.
    assert!(!perfect(broken));
    let outcomes: Vec<_> = t.in_class.iter().map(|c| (&c.name, c.outcome)).collect();
    assert!(targets.iter().any(|n| perfect(n)), "{outcomes:?}");

    // The TUI: the run opens, its methods list, the step-through of the broken method.
    let size = (80, 24);
    let mut app = app(size);
    let mut fake = Fake::new();
    fake.logs.insert(0, log);
    fake.run(&mut app, [Action::ShowSessions]);
    open_row(&mut app, &mut fake, 0);
    assert_eq!(app.screen(), ScreenId::Run);
    fake.run(&mut app, [Action::Open]);
    let run = screen(&app);
    for name in &targets {
        assert!(run.contains(name), "run screen lists {name}:\n{run}");
    }
    fake.run(&mut app, [Action::Open]);
    assert_eq!(app.screen(), ScreenId::Step);
    let position = targets.iter().position(|n| *n == broken).unwrap();
    fake.run(&mut app, std::iter::repeat_n(Action::NextMethod, position));
    let shown = screen(&app);
    assert!(shown.contains(&format!("› {broken}")), "{shown}");
    assert!(
        shown.contains("In the class") || shown.contains("Outcome"),
        "{shown}"
    );
    insta::assert_snapshot!("holistic_step_broken_method_80x24", shown);

    // A method the break left alone: judged perfect on its own tests.
    let fine = targets.iter().position(|n| perfect(n)).unwrap();
    fake.run(&mut app, [Action::Top]);
    fake.run(&mut app, std::iter::repeat_n(Action::PrevMethod, position));
    fake.run(&mut app, std::iter::repeat_n(Action::NextMethod, fine));
    let other = screen(&app);
    assert!(other.contains(&format!("› {}", targets[fine])), "{other}");
    assert!(other.contains(Bucket::Perfect.as_str()), "{other}");
    assert!(other.contains("passed"), "{other}");
}
