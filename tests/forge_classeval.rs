//! Forging ClassEval tasks from their references alone, in the real sandbox: the written suite
//! passes on the reference every time, it is grouped like ClassEval's, the task keeps its id,
//! and the same inputs and seed give the same suite. Needs Linux and the project's
//! `.python/classeval`.

mod common;

mod forge_support;

use std::sync::atomic::AtomicBool;

use classlab::forge::task::forge_task;
use forge_support::{quick, sandbox, task};

#[test]
fn bank_account_gets_a_passing_classeval_shaped_suite() {
    let t = task("ClassEval_8");
    let f = forge_task(sandbox(), &t, &quick(), &AtomicBool::new(false));
    assert_eq!(f.dropped, None, "{:?}", f.evidence);
    let forged = f.task.expect("forged");
    assert_eq!(forged.id, "ClassEval_8");
    assert!(
        forged
            .test_module
            .contains("class BankAccountTestWithdraw(_FreshDir):")
    );
    assert!(
        forged
            .test_module
            .contains("with self.assertRaises(ValueError):")
    );
    assert!(
        !forged.test_module.contains(&t.test_module[..200]),
        "not the official tests"
    );
    assert!(
        f.evidence.tests >= 3 && f.evidence.dropped_tests.is_empty(),
        "{:?}",
        f.evidence
    );
    let forge = &forged.provenance.extra["forge"];
    assert_eq!(forge["seed"], 1);
    assert!(forge["traces"].as_object().unwrap().len() == f.evidence.tests);
    // Deterministic: the same inputs and seed give the same suite.
    let again = forge_task(sandbox(), &t, &quick(), &AtomicBool::new(false));
    assert_eq!(again.task.unwrap().test_module, forged.test_module);
}

#[test]
fn a_reference_that_does_not_import_is_dropped_with_its_reason() {
    let mut t = task("ClassEval_8");
    t.solution = format!("import no_such_module_anywhere\n{}", t.solution);
    let f = forge_task(sandbox(), &t, &quick(), &AtomicBool::new(false));
    let (code, why) = f.dropped.expect("dropped");
    assert_eq!(code, "import");
    assert!(why.contains("no_such_module_anywhere"), "{why}");
}

#[test]
fn a_skeleton_that_does_not_parse_keeps_its_docstrings_and_examples_give_shapes() {
    // ClassEval_22's skeleton leaves a docstring open; its `student` is shown only by a
    // doctest's variable (`student1 = {"name": …, "major": …}`): students are such dicts.
    let f = forge_task(
        sandbox(),
        &task("ClassEval_22"),
        &quick(),
        &AtomicBool::new(false),
    );
    assert!(
        f.evidence
            .plan_note
            .as_deref()
            .is_some_and(|n| n.contains("the skeleton's docstrings")),
        "{:?}",
        f.evidence
    );
    let module = f.task.expect("forged").test_module;
    let calls: Vec<&str> = module
        .lines()
        .filter(|l| l.contains(".register_student("))
        .collect();
    assert!(!calls.is_empty(), "{module}");
    for c in calls {
        let arg = c.split(".register_student(").nth(1).unwrap_or_default();
        assert!(
            arg.starts_with('{') && (arg.contains("name\": ") || arg.contains("name': ")),
            "{c}"
        );
        assert_eq!(arg.matches(": ").count(), 2, "exactly name and major: {c}");
    }
}

#[test]
fn a_parameter_read_as_the_class_itself_gets_an_instance() {
    // ClassEval_33's static promotions take "object, the order" and read `order.cart`,
    // `order.total()`: they are called with an instance of the class.
    let f = forge_task(
        sandbox(),
        &task("ClassEval_33"),
        &quick(),
        &AtomicBool::new(false),
    );
    let module = f.task.expect("forged").test_module;
    assert!(
        module.contains("Promo(other"),
        "a promotion applied to an order:\n{module}"
    );
}
