//! A failing forged test names its counterexample — the calls up to the first where the class
//! under test and the reference differ, expected and actual — under both harnesses, and the
//! TUI's test detail shows it. The suite is written by `forge::write` from sequences given
//! here (no exploration) and run for real in the sandbox on a wrong BankAccount (ClassEval_8).
//! Needs Linux and the project's `.python/classeval`.

mod common;
mod tui_fixtures;

use std::collections::BTreeMap;
use std::sync::OnceLock;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use classlab::dataset;
use classlab::exec::{Harness, Sandbox, SandboxOptions};
use classlab::forge::counterexample::{self, Counterexample};
use classlab::forge::explored::Explored;
use classlab::forge::write::write;
use classlab::model::{Outcome, SuiteResult, Task, TestResult};
use classlab::pipeline::eval::suite_for;

fn sandbox() -> &'static Sandbox {
    static SB: OnceLock<Sandbox> = OnceLock::new();
    SB.get_or_init(|| {
        Sandbox::with_options(SandboxOptions {
            python: Some(common::project_python("classeval")),
            warm: false,
            ..Default::default()
        })
        .expect("sandbox available")
    })
}

/// ClassEval_8 with a suite of three sequences as the forge writes them.
fn forged_bank_account() -> Task {
    let ds = dataset::load(Some(&common::classeval_json())).expect("ClassEval loads");
    let mut task = ds
        .tasks
        .into_iter()
        .find(|t| t.id == "ClassEval_8")
        .expect("ClassEval_8");
    let tests: Vec<Explored> = [
        r#"{"seq": {"init": [{"lit": "10"}], "calls": [{"method": "deposit", "args": [{"lit": "5"}]}]},
            "trace": [], "assertions": [
              {"kind": "field", "step": 0, "inst": 0, "field": "balance", "src": "10"},
              {"kind": "returns", "step": 1, "src": "15", "norm": ""},
              {"kind": "field", "step": 1, "inst": 0, "field": "balance", "src": "15"}]}"#,
        r#"{"seq": {"init": [{"lit": "10"}], "calls": [{"method": "withdraw", "args": [{"lit": "20"}]}]},
            "trace": [], "assertions": [
              {"kind": "field", "step": 0, "inst": 0, "field": "balance", "src": "10"},
              {"kind": "raises", "step": 1, "exc": "ValueError"}]}"#,
        r#"{"seq": {"init": [{"lit": "3"}], "calls": [{"method": "view_balance", "args": []}]},
            "trace": [], "assertions": [{"kind": "returns", "step": 1, "src": "3", "norm": ""}]}"#,
    ]
    .iter()
    .map(|j| serde_json::from_str(j).expect("explored"))
    .collect();
    let methods: Vec<String> = ["deposit", "withdraw", "view_balance", "transfer"]
        .map(String::from)
        .to_vec();
    let suite = write("BankAccount", &methods, &BTreeMap::new(), &tests);
    task.test_module = suite.module;
    task.test_classes = suite.classes.iter().map(|c| c.0.clone()).collect();
    task
}

/// Off by one in `deposit`, no refusal in `withdraw`, a crash in `view_balance`.
const WRONG: &str = "class BankAccount:
    def __init__(self, balance=0):
        self.balance = balance

    def deposit(self, amount):
        self.balance += amount + 1
        return self.balance

    def withdraw(self, amount):
        self.balance -= amount
        return self.balance

    def view_balance(self):
        return self.balance + None

    def transfer(self, other_account, amount):
        self.withdraw(amount)
        other_account.deposit(amount)
";

fn run(task: &Task, code: &str, harness: Harness) -> SuiteResult {
    let spec = suite_for(task, code, Duration::from_secs(5), Some(1)).with_harness(harness);
    sandbox().run_cancellable(&spec, &AtomicBool::new(false))
}

fn test<'a>(r: &'a SuiteResult, id: &str) -> &'a TestResult {
    r.tests
        .iter()
        .find(|t| t.id == id)
        .unwrap_or_else(|| panic!("{id} in {r:?}"))
}

fn cx(calls: &[&str], expected: &str, actual: &str) -> Counterexample {
    Counterexample {
        headline: format!(
            "call {} of {} is the first that differs from the reference",
            calls.len(),
            calls.len()
        ),
        calls: calls.iter().map(|c| c.to_string()).collect(),
        expected: expected.into(),
        actual: actual.into(),
    }
}

#[test]
fn the_reference_passes_and_a_wrong_class_gets_its_counterexamples_in_both_harnesses() {
    let task = forged_bank_account();
    for harness in [Harness::Inproc, Harness::Split] {
        let ok = run(&task, &task.solution, harness);
        assert!(
            ok.failure.is_none() && ok.tests.iter().all(|t| t.outcome == Outcome::Pass),
            "{harness}: {ok:?}"
        );
        assert_eq!(ok.tests.len(), 3, "{harness}");

        let r = run(&task, WRONG, harness);
        let deposit = test(&r, "BankAccountTestDeposit.test_deposit_1");
        assert_eq!(deposit.outcome, Outcome::Fail, "{harness}: {deposit:?}");
        assert_eq!(
            counterexample::of_test(deposit),
            Some(cx(
                &["obj = BankAccount(10)", "r1 = obj.deposit(5)"],
                "r1 == 15",
                "r1 == 16"
            )),
            "{harness}: {deposit:?}"
        );
        // The message still opens with unittest's own words.
        assert!(
            deposit
                .message
                .as_deref()
                .is_some_and(|m| m.starts_with("16 != 15\n")),
            "{deposit:?}"
        );
        let withdraw = test(&r, "BankAccountTestWithdraw.test_withdraw_1");
        assert_eq!(
            counterexample::of_test(withdraw),
            Some(cx(
                &["obj = BankAccount(10)", "obj.withdraw(20)"],
                "raises ValueError",
                "returns normally"
            )),
            "{harness}: {withdraw:?}"
        );
        // A crash stays an error of the class's own type and message.
        let view = test(&r, "BankAccountTestViewBalance.test_view_balance_1");
        assert_eq!(view.outcome, Outcome::Error, "{harness}: {view:?}");
        assert_eq!(view.exc_type.as_deref(), Some("TypeError"), "{view:?}");
        // The note rides on the exception's traceback: in process on Python's own; split,
        // after the host's traceback of the code's exception (the note is the test's).
        let c = counterexample::of_test(view).expect("a counterexample");
        assert_eq!(
            c.calls,
            ["obj = BankAccount(3)", "r1 = obj.view_balance()"],
            "{harness}: {c:?}"
        );
        assert_eq!(c.expected, "r1 == 3", "{harness}");
        assert!(
            c.actual
                .starts_with("raises TypeError: unsupported operand"),
            "{harness}: {c:?}"
        );
    }
}

/// Files the code writes in its working directory do not reach the next test, in either
/// harness (in the split one the code's directory is not the test's fresh one), and the tests'
/// own imports do not stand in for the code's.
#[test]
fn each_test_starts_clean_and_the_tests_imports_are_not_the_codes() {
    let mut task = forged_bank_account();
    task.class_name = "Log".into();
    let log = "import os\n\n\nclass Log:\n    def __init__(self):\n        self.n = 0\n\n    def add(self):\n        with open('log.txt', 'a') as f:\n            f.write('x')\n        return os.path.getsize('log.txt')\n";
    let once: Explored = serde_json::from_str(
        r#"{"seq": {"init": [], "calls": [{"method": "add", "args": []}]}, "trace": [],
            "assertions": [{"kind": "returns", "step": 1, "src": "1", "norm": ""}]}"#,
    )
    .unwrap();
    let suite = write(
        "Log",
        &["add".to_string()],
        &BTreeMap::new(),
        &[once.clone(), once],
    );
    task.test_module = suite.module;
    task.test_classes = suite.classes.iter().map(|c| c.0.clone()).collect();
    task.solution = log.into();
    task.imports = Vec::new();
    for harness in [Harness::Inproc, Harness::Split] {
        let r = run(&task, log, harness);
        assert!(
            r.tests.len() == 2 && r.tests.iter().all(|t| t.outcome == Outcome::Pass),
            "{harness}: {r:?}"
        );
        // The same class without its `import os`: the helpers' own imports are private.
        let bare = log.replace("import os\n", "");
        let r = run(&task, &bare, harness);
        assert!(
            r.tests
                .iter()
                .all(|t| t.exc_type.as_deref() == Some("NameError")),
            "{harness}: {r:?}"
        );
    }
}

mod tui {
    use classlab::metrics::fingerprint::{Bucket, ExcKind};
    use classlab::model::Outcome;
    use classlab::tui::action::Action;
    use classlab::tui::app::ScreenId;

    use super::tui_fixtures::*;

    const MESSAGE: &str = "16 != 15\n- 16\n+ 15\n\ncounterexample: call 2 of 2 is the first that differs from the reference\n   1  obj = BankAccount(10)\n>  2  r1 = obj.deposit(5)\n      expected: r1 == 15\n      actual:   r1 == 16";

    #[test]
    fn the_test_detail_shows_a_forged_tests_counterexample() {
        for size in [(80, 24), (160, 48)] {
            let mut app = app(size);
            let mut fake = Fake::new();
            let task = TaskFixture {
                id: "ClassEval_8".into(),
                code: super::WRONG.into(),
                suite: suite(
                    vec![
                        failing(
                            "BankAccountTestDeposit.test_deposit_1",
                            "AssertionError",
                            MESSAGE,
                            None,
                        ),
                        test("BankAccountTestWithdraw.test_withdraw_1", Outcome::Pass),
                    ],
                    None,
                ),
                summary: summary(
                    Some(Bucket::Weak),
                    1,
                    2,
                    &[(ExcKind::AssertionError, 1)],
                    &[],
                ),
            };
            fake.logs = vec![log(
                meta(
                    "20261128-090000-eval-GPT-4-Turbo-f0a1",
                    Some("GPT-4-Turbo"),
                    Some("holistic"),
                    "2026-11-28T09:00:00Z",
                ),
                events(std::slice::from_ref(&task), 1, Some(false)),
                Vec::new(),
            )];
            fake.run(&mut app, [Action::ShowSessions]);
            open_row(&mut app, &mut fake, 0);
            fake.run(&mut app, [Action::Top, Action::Open]);
            assert_eq!(app.screen(), ScreenId::TestDetail);
            let text = screen(&app);
            insta::assert_snapshot!(format!("forge_counterexample_{}x{}", size.0, size.1), text);
            assert!(text.contains("Counterexample: call 2 of 2"), "{text}");
            if size.1 < 48 {
                continue; // the pane scrolls to the rest
            }
            assert!(text.contains(">  2  r1 = obj.deposit(5)"), "{text}");
            assert!(text.contains("expected: r1 == 15"), "{text}");
            // The block is shown once, not again in the message, and the message's diff
            // only in the traceback (which ends with the whole message).
            assert_eq!(text.matches("expected: r1 == 15").count(), 1, "{text}");
            assert_eq!(text.matches("- 16").count(), 1, "{text}");
        }
    }
}
