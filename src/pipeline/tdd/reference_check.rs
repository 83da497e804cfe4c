//! The public tests checked against the reference solution before a method is written: a
//! test the reference does not pass is left out of the loop, with its reason.

use std::collections::{BTreeMap, BTreeSet};

use super::{describe_failure, method_and_helpers, public_suite, splice_all};
use crate::analysis::splice;
use crate::metrics::fingerprint::{
    EnvContext, ReferenceEvidence, trusted_import_cause, trusted_test_cause,
};
use crate::model::{Outcome, SuiteResult, Task};
use crate::pipeline::public_tests::PublicTests;
use crate::pipeline::run::RunError;
use crate::pipeline::task_io::TaskIo;
use crate::session::event::{EventBody, LeftOutTest, Scope};

/// Run the method's public tests against the reference solution, twice, and leave out each
/// test the reference does not pass both times (a wrong example, or a nondeterministic
/// test): correct code must never be "repaired" toward it. Recorded as
/// `public_tests_checked`. `None`: cancelled.
pub(super) fn check_against_reference(
    io: &mut TaskIo<'_, '_>,
    method: &str,
    tests: Option<PublicTests>,
    reference_so_far: Option<&str>,
) -> Result<Option<Checked>, RunError> {
    let Some(tests) = tests else {
        return Ok(Some(Checked::default()));
    };
    if io.task.solution.trim().is_empty() {
        // Nothing to check against: used as given.
        return Ok(Some(Checked {
            tests: Some(tests),
            reference: None,
        }));
    }
    let reference = crate::pipeline::prepare::runnable(io.task, &io.task.solution);
    let spec = public_suite(&reference, &tests);
    let mut runs = Vec::new();
    for round in 0..2 {
        // Two hash seeds: an outcome that hangs on set or dict order shows.
        let mut spec = spec.clone();
        spec.hash_seed = Some(round + 1);
        match io.run_suite(&spec, Scope::Reference, Some(method), Some(round))? {
            Some(result) => runs.push(result),
            None => return Ok(None),
        }
    }
    let mut left_out = left_out_tests(&tests.ids(), &runs);
    // A test the reference fails for the environment (a module the task needs is missing)
    // is no wrong test: it stays, and the loop ends the method as the environment's.
    let ctx = io.env_context();
    let env_failed: BTreeSet<String> = runs
        .iter()
        .flat_map(|r| reference_env_failed(&ctx, r))
        .collect();
    // What the candidates' failures may rest on: the tests the reference fails here for the
    // environment (the others are left out).
    let mut reference = ReferenceEvidence::of(&runs[0]);
    reference.failing.retain(|id, _| env_failed.contains(id));
    if runs[0]
        .failure
        .as_ref()
        .is_none_or(|f| trusted_import_cause(f, &ctx).is_none())
    {
        reference.import = None;
    }
    left_out.retain(|l| !env_failed.contains(&l.test));
    // A test the whole reference passes but the reference written up to this method fails
    // needs a method scheduled later: it cannot pass at this point of the loop.
    if let Some(so_far) = reference_so_far {
        let failing: BTreeSet<&str> = left_out.iter().map(|l| l.test.as_str()).collect();
        let passing: Vec<String> = tests
            .ids()
            .into_iter()
            .filter(|id| !failing.contains(id.as_str()))
            .collect();
        if !passing.is_empty() {
            let spec = public_suite(&crate::pipeline::prepare::runnable(io.task, so_far), &tests);
            let Some(result) = io.run_suite(&spec, Scope::Reference, Some(method), Some(2))? else {
                return Ok(None);
            };
            let env_failed = reference_env_failed(&io.env_context(), &result);
            for l in left_out_tests(&passing, std::slice::from_ref(&result))
                .into_iter()
                .filter(|l| !env_failed.contains(&l.test))
            {
                left_out.push(LeftOutTest {
                    reason: format!(
                        "the reference written up to `{method}` in this schedule fails it ({}): it needs a \
                         method scheduled later (or the skeleton is at fault)",
                        l.reason
                            .strip_prefix("the reference fails it (")
                            .and_then(|r| r.strip_suffix(')'))
                            .unwrap_or(&l.reason)
                    ),
                    ..l
                });
            }
        }
    }
    let kept = if left_out.is_empty() {
        Some(tests.clone())
    } else {
        tests.without(&|id| left_out.iter().any(|l| l.test == id))
    };
    io.emit(EventBody::PublicTestsChecked {
        task_id: io.task.id.clone(),
        sample: io.sample,
        method: method.to_string(),
        source: tests.source.to_string(),
        used: kept.as_ref().map(PublicTests::ids).unwrap_or_default(),
        left_out,
    })?;
    Ok(Some(Checked {
        tests: kept,
        reference: Some(reference),
    }))
}

/// A method's public tests after the check, and what the reference did on them here.
#[derive(Debug, Default)]
pub(super) struct Checked {
    /// The tests kept (`None`: none left).
    pub tests: Option<PublicTests>,
    /// The tests the reference fails here for the environment, the evidence a candidate's
    /// failure of them needs to be the environment's (`None`: no reference was run).
    pub reference: Option<ReferenceEvidence>,
}

/// `class` with the reference's `method` (and the helpers it calls that the class lacks)
/// spliced in; `None` when the reference has no such method or it does not splice.
pub(super) fn with_reference_method(task: &Task, class: &str, method: &str) -> Option<String> {
    let code = method_and_helpers(&task.solution, task, method).ok()?;
    let stub = splice::method_stub(task, method).unwrap_or_default();
    splice_all(class, &task.class_name, method, &stub, &code).ok()
}

/// The tests of `ids` the reference did not pass in every one of `runs`, with the reason.
pub(super) fn left_out_tests(ids: &[String], runs: &[SuiteResult]) -> Vec<LeftOutTest> {
    let ok = |o: Outcome| matches!(o, Outcome::Pass | Outcome::Skip | Outcome::Xfail);
    let by_id: Vec<BTreeMap<&str, &crate::model::TestResult>> = runs
        .iter()
        .map(|r| {
            // The first record of a test id, as a scan would find it.
            let mut m = BTreeMap::new();
            for t in &r.tests {
                m.entry(t.id.as_str()).or_insert(t);
            }
            m
        })
        .collect();
    ids.iter()
        .filter_map(|id| {
            let outcomes: Vec<Option<&crate::model::TestResult>> =
                by_id.iter().map(|r| r.get(id.as_str()).copied()).collect();
            let passes = outcomes
                .iter()
                .filter(|t| t.is_some_and(|t| ok(t.outcome)))
                .count();
            if passes == runs.len() {
                return None;
            }
            let reason = if passes > 0 {
                format!(
                    "nondeterministic: the reference passed it in {passes} of {} runs",
                    runs.len()
                )
            } else {
                let failure = runs.iter().find_map(|r| r.failure.as_ref());
                let test = outcomes.iter().flatten().next();
                let why = match (failure, test) {
                    (Some(f), _) => describe_failure(f),
                    (None, Some(t)) => {
                        let message = t.message.as_deref().unwrap_or("").trim();
                        let message: String = message.chars().take(200).collect();
                        match (&t.exc_type, message.is_empty()) {
                            (Some(e), false) => format!("{e}: {message}"),
                            (Some(e), true) => e.clone(),
                            (None, false) => message,
                            (None, true) => format!("{:?}", t.outcome).to_lowercase(),
                        }
                    }
                    (None, None) => "it did not run".into(),
                };
                format!("the reference fails it ({why})")
            };
            Some(LeftOutTest {
                test: id.clone(),
                reason,
            })
        })
        .collect()
}

/// The tests of the reference's `result` that failed for the environment (every test when it
/// could not even import for that reason). The reference is trusted code, so its exception
/// is read (`fingerprint::trusted_test_cause`); a candidate's never is.
fn reference_env_failed(ctx: &EnvContext, result: &SuiteResult) -> Vec<String> {
    if result
        .failure
        .as_ref()
        .is_some_and(|f| trusted_import_cause(f, ctx).is_some())
    {
        return result.tests.iter().map(|t| t.id.clone()).collect();
    }
    result
        .tests
        .iter()
        .filter(|t| t.outcome.is_failing() && trusted_test_cause(t, ctx).is_some())
        .map(|t| t.id.clone())
        .collect()
}
