//! Judging one task's code: the suite laid out the way its tests expect, and the verdicts of
//! a finished suite (outcome, per-test-class counts, exceptions, per-method buckets).

use std::time::Duration;

use crate::exec::{Limits, SuiteSpec};
use crate::metrics::fingerprint::{self, EnvContext, Thresholds};
use crate::metrics::functional::{self, SampleCounts};
use crate::model::{SuiteResult, Task, TestLayout};
use crate::session::TaskSummary;

/// The suite for one task's code, laid out the way its tests expect. `budget` is the time
/// each test class gets (ClassEval's evaluator: 5 s); the suite's own CPU and wall limits grow
/// with the number of classes so that a slow class cannot starve the others. The code runs
/// as [`crate::pipeline::prepare::runnable`] makes it — the one preparation `eval`, `run`
/// and `validate` share.
pub fn suite_for(task: &Task, code: &str, budget: Duration, hash_seed: Option<u32>) -> SuiteSpec {
    let code = &crate::pipeline::prepare::runnable(task, code);
    // Real-world classes import heavy libraries: allow for that before the first test.
    let (spec, units, import_allowance) = match &task.test_layout {
        TestLayout::Concatenated => (
            SuiteSpec::unittest_one_module(code, &task.test_module),
            task.test_classes.len().max(1),
            Duration::from_secs(5),
        ),
        TestLayout::Module {
            code_module,
            test_file,
        } => {
            let spec = SuiteSpec::pytest_snippet(code_module, code, test_file, &task.test_module);
            let tests = spec.expected.len().max(1);
            (spec, tests, Duration::from_secs(20))
        }
    };
    let cpu = budget * units as u32 + import_allowance;
    let limits = Limits {
        class_timeout: matches!(task.test_layout, TestLayout::Concatenated).then_some(budget),
        test_timeout: matches!(task.test_layout, TestLayout::Module { .. }).then_some(budget),
        // Importing the code is not a test: a class importing a heavy library (streamlit
        // takes seconds on a loaded machine) gets the import allowance, not a test's budget.
        import_timeout: matches!(task.test_layout, TestLayout::Module { .. })
            .then_some(import_allowance),
        cpu,
        wall: cpu * 2,
        ..Limits::default()
    };
    SuiteSpec {
        hash_seed,
        ..spec.with_limits(limits)
    }
}

/// Per-test-class counts under ClassEval's rules; a pytest module counts as one test class
/// named after its file.
pub fn class_counts(task: &Task, result: &SuiteResult) -> SampleCounts {
    match &task.test_layout {
        TestLayout::Concatenated => functional::suite_class_counts(result, &task.test_classes),
        TestLayout::Module { test_file, .. } => {
            let name = test_file.trim_end_matches(".py").to_string();
            vec![(name, functional::module_counts(result))]
        }
    }
}

/// What the environment provides the task: the modules its reference, skeleton and tests
/// import, and which of them the evaluation interpreter lacks (see `envcheck::task_context`).
pub fn env_context(task: &Task) -> EnvContext {
    crate::pipeline::envcheck::task_context(task)
}

/// Verdicts of one finished suite, the environment's failures told by the interpreter the
/// last sandbox was set up for (prefer [`summarize_in`] with the suite's own context).
pub fn summarize(task: &Task, result: &SuiteResult, thresholds: &Thresholds) -> TaskSummary {
    summarize_in(task, result, thresholds, &env_context(task))
}

/// Verdicts of one finished suite; `ctx` is what the environment the suite ran in provides
/// the task (see `envcheck::context_in`).
pub fn summarize_in(
    task: &Task,
    result: &SuiteResult,
    thresholds: &Thresholds,
    ctx: &EnvContext,
) -> TaskSummary {
    let classified = fingerprint::classify_suite(result, ctx, thresholds);
    let ex = fingerprint::suite_exceptions(result, ctx);
    let methods: Vec<(String, String)> = task
        .methods
        .iter()
        .filter_map(|m| m.test_class.clone().map(|c| (m.name.clone(), c)))
        .collect();
    TaskSummary {
        outcome: classified.bucket,
        passed: classified.passed,
        judged: classified.judged,
        test_classes: class_counts(task, result),
        exceptions: ex.model,
        env_exceptions: ex.env,
        methods: fingerprint::classify_methods(result, &methods, ctx, thresholds)
            .into_iter()
            .map(|(m, c)| (m, c.bucket))
            .collect(),
        method_tests: methods,
    }
}
