//! Class-level TDD (domain.md §2): the model predicts the method dependencies and an order;
//! the schedule is chosen from it; each method is written against its public tests and,
//! while they fail, repaired by reflection (analysis, region, plan, patch) at most
//! `max_repairs` times. Each method is spliced into the partial class by tree-sitter.

use std::time::Duration;

use super::prompts::{DependencyContext, MethodContext, RepairContext};
use super::public_tests::{self, PublicTests};
use super::reply;
use super::run::RunError;
use super::schedule;
use super::strategy::{Written, answer_text, ask};
use super::task_io::TaskIo;
use crate::analysis::parse::parse_module;
use crate::analysis::{self, extract, splice};
use crate::exec::{Limits, SuiteSpec};
use crate::llm::Purpose;
use crate::metrics::fingerprint;
use crate::model::{DepMap, Outcome, SuiteFailure, SuiteResult, Task};
use crate::session::event::{EventBody, MethodStatus, Scope};

mod reference_check;
use reference_check::{check_against_reference, with_reference_method};

/// Write the class method by method; `None` when cancelled meanwhile.
pub fn write_class(io: &mut TaskIo<'_, '_>) -> Result<Written, RunError> {
    let analysis = analysis::analyze_task(io.task);
    let methods = analysis.graph.nodes.clone();
    let truth = analysis.graph.deps.clone();
    let Some((graph, predicted_order)) = predict(io, &methods, &truth)? else {
        return Ok(None);
    };
    let order = schedule::order(io.req.schedule, &methods, &graph, &predicted_order, &truth);
    io.emit(EventBody::Schedule {
        task_id: io.task.id.clone(),
        sample: io.sample,
        mode: io.req.schedule.to_string(),
        violations: schedule::violations(&methods, &truth, &order),
        order: order.clone(),
    })?;

    let mut notes = Vec::new();
    let skeleton = parse_module(&io.task.skeleton);
    let reference = io.req.provider.kind() == "reference"
        && parse_module(&analysis.generated_skeleton).parses()
        && !analysis.generated_skeleton.is_empty();
    let mut partial = if reference {
        // The reference writes the whole class: its constructor and imports are its own, not
        // the skeleton's (ClassEval_69's skeleton builds its readers with an API PyPDF2 3
        // removed; ClassEval_48's imports a module the reference never uses). A self-check
        // must judge the reference's code, exactly as `eval` of the reference does.
        notes.push(
            "the reference's own constructor and imports (the reference provider writes the whole class)"
                .to_string(),
        );
        analysis.generated_skeleton.clone()
    } else if skeleton.class(&io.task.class_name).is_none() {
        notes.push(format!(
            "the task's skeleton defines no class `{}`: started from the skeleton generated from the reference",
            io.task.class_name
        ));
        analysis.generated_skeleton.clone()
    } else if !skeleton.parses() && parse_module(&analysis.generated_skeleton).parses() {
        // A skeleton that does not compile (ClassEval has docstrings in curly quotes) would
        // fail every public run whatever the method: no code could pass.
        notes.push(format!(
            "the task's skeleton does not parse (line {}): started from the skeleton generated from the reference",
            skeleton.error_lines.first().copied().unwrap_or(0)
        ));
        analysis.generated_skeleton.clone()
    } else {
        io.task.skeleton.clone()
    };
    let mut reference_so_far = Some(partial.clone());
    for (index, method) in order.iter().enumerate() {
        io.emit(EventBody::MethodStarted {
            task_id: io.task.id.clone(),
            sample: io.sample,
            method: method.clone(),
            index,
        })?;
        // The class the reference would have written by now: what this method's public tests
        // are checked against besides the whole reference.
        reference_so_far =
            reference_so_far.and_then(|r| with_reference_method(io.task, &r, method));
        match write_method(io, &partial, method, reference_so_far.as_deref())? {
            None => return Ok(None),
            Some(Some(next)) => partial = next,
            Some(None) => notes.push(format!("{method}: no usable code; the stub stays")),
        }
    }
    // ClassEval's harness prepends the task's imports; a generated method may need them.
    Ok(Some((
        splice::merge_imports(&partial, &io.task.imports),
        notes,
    )))
}

/// Step 1: the predicted graph and order (empty when the reply gave none; recorded).
fn predict(
    io: &mut TaskIo<'_, '_>,
    methods: &[String],
    truth: &DepMap,
) -> Result<Option<(DepMap, Vec<String>)>, RunError> {
    let names: Vec<&str> = methods.iter().map(String::as_str).collect();
    let messages = io.req.prompts.dependency_analysis(&DependencyContext {
        class_name: &io.task.class_name,
        skeleton: &io.task.skeleton,
        methods: &names,
    })?;
    let answer = ask(io, Purpose::DependencyAnalysis, messages)?;
    let Some(reply) = answer_text(answer) else {
        return Ok(None);
    };
    let (raw, parsed) = match reply {
        Ok(text) => {
            let parsed = reply::parse_dependency_reply(&text, &names);
            (text, parsed)
        }
        Err(note) => (String::new(), Err(note)),
    };
    let (graph, order, problems, ok) = match parsed {
        Ok(d) => (d.graph, d.order, d.problems, true),
        Err(e) => (DepMap::new(), Vec::new(), vec![e], false),
    };
    io.emit(EventBody::DependencyPrediction {
        task_id: io.task.id.clone(),
        sample: io.sample,
        raw,
        methods: methods.to_vec(),
        graph: graph.clone(),
        order: order.clone(),
        problems,
        parsed: ok,
        truth: truth.clone(),
    })?;
    Ok(Some((graph, order)))
}

/// Steps 2–3 for one method. `None`: cancelled; `Some(None)`: no usable code (the stub
/// stays); `Some(Some(class))`: the partial class with this method in.
fn write_method(
    io: &mut TaskIo<'_, '_>,
    partial: &str,
    method: &str,
    reference_so_far: Option<&str>,
) -> Result<Option<Option<String>>, RunError> {
    let tests = public_tests::public_tests(io.task, method, io.req.public_tests);
    let Some(checked) = check_against_reference(io, method, tests, reference_so_far)? else {
        return Ok(None);
    };
    let tests = checked.tests;
    let mut env = io.env_context();
    if let Some(reference) = checked.reference {
        env = env.with_reference(reference);
    }
    let stub = splice::method_stub(io.task, method).unwrap_or_default();
    let messages = io.req.prompts.method(&MethodContext {
        class_name: &io.task.class_name,
        partial_class: partial,
        method_name: method,
        signature_and_docstring: &stub,
        public_tests: tests.as_ref().map(|t| t.code.as_str()),
    })?;
    let answer = ask(
        io,
        Purpose::Method {
            method: method.to_string(),
        },
        messages,
    )?;
    let Some(reply) = answer_text(answer) else {
        return Ok(None);
    };
    let mut code = reply.and_then(|text| method_and_helpers(&text, io.task, method));
    let mut round = 0;
    let mut last_good: Option<String> = None;
    let mut last_code = String::new();
    loop {
        if let Ok(c) = &code {
            last_code = c.clone();
        }
        let candidate = code
            .as_ref()
            .map_err(String::clone)
            .and_then(|c| splice_all(partial, &io.task.class_name, method, &stub, c));
        io.emit(EventBody::CodeExtracted {
            task_id: io.task.id.clone(),
            sample: io.sample,
            code: code.clone().unwrap_or_default(),
            notes: candidate.as_ref().err().cloned().into_iter().collect(),
            method: Some(method.to_string()),
            round: Some(round),
        })?;
        if let Ok(c) = &candidate {
            last_good = Some(c.clone());
        }
        let outcome = match (&candidate, &tests) {
            // A reply without the method is a failing attempt: it costs a repair round.
            (Err(_), _) => Verdict::Failing(None),
            (Ok(_), None) => Verdict::Untested,
            (Ok(class), Some(t)) => {
                // Prepared as the private tests prepare it (the task's imports in front, as
                // ClassEval's harness has them).
                let spec = public_suite(&super::prepare::runnable(io.task, class), t);
                let Some(result) = io.run_suite(&spec, Scope::Public, Some(method), Some(round))?
                else {
                    return Ok(None);
                };
                if passed(&result) {
                    Verdict::Passed
                } else if !env_failed_tests(&env, &result).is_empty() {
                    // Not the model's failure: no repair round can fix the environment.
                    Verdict::Environment
                } else {
                    Verdict::Failing(Some(Box::new(result)))
                }
            }
        };
        let status = match outcome {
            Verdict::Passed => Some(MethodStatus::Passed),
            Verdict::Untested => Some(MethodStatus::Untested),
            Verdict::Environment => Some(MethodStatus::EnvErr),
            // Never any usable code, and the budget is spent.
            Verdict::Failing(_) if round >= io.req.max_repairs && last_good.is_none() => {
                Some(MethodStatus::NoCode)
            }
            Verdict::Failing(_) if round >= io.req.max_repairs => Some(MethodStatus::Exhausted),
            Verdict::Failing(_) => None,
        };
        if let Some(status) = status {
            io.emit(EventBody::MethodFinished {
                task_id: io.task.id.clone(),
                sample: io.sample,
                method: method.to_string(),
                status,
                repairs: round,
            })?;
            return Ok(Some(last_good));
        }
        let Verdict::Failing(result) = outcome else {
            return Ok(Some(last_good));
        };
        round += 1;
        let Some(next) = repair(
            io,
            partial,
            method,
            &last_code,
            result.as_deref(),
            tests.as_ref(),
            round,
        )?
        else {
            return Ok(None);
        };
        code = next;
    }
}

enum Verdict {
    Passed,
    Untested,
    /// The public tests failed for the environment (a module the task needs is missing, or the
    /// reference fails the same tests the same way here).
    Environment,
    /// Failing public tests, or (`None`) a reply that did not define the method.
    Failing(Option<Box<SuiteResult>>),
}

/// The tests of the candidate's `result` that failed for the environment, not the code, on
/// classlab's evidence (`fingerprint::test_env_cause`: a module the task needs is missing, or
/// the reference fails the test the same way here); every test when the suite could not even
/// import for that reason.
fn env_failed_tests(ctx: &fingerprint::EnvContext, result: &SuiteResult) -> Vec<String> {
    if let Some(f) = &result.failure
        && fingerprint::import_env_cause(f, ctx).is_some()
    {
        return result.tests.iter().map(|t| t.id.clone()).collect();
    }
    result
        .tests
        .iter()
        .filter(|t| t.outcome.is_failing() && fingerprint::test_env_cause(t, ctx).is_some())
        .map(|t| t.id.clone())
        .collect()
}

/// One reflective repair round: ask, record the four parts, return the patched method.
/// `None`: cancelled.
#[allow(clippy::too_many_arguments)]
fn repair(
    io: &mut TaskIo<'_, '_>,
    partial: &str,
    method: &str,
    current: &str,
    result: Option<&SuiteResult>,
    tests: Option<&PublicTests>,
    round: u32,
) -> Result<Option<Result<String, String>>, RunError> {
    let stub = splice::method_stub(io.task, method).unwrap_or_default();
    // No suite ran: the reply (or the last patch) did not define the method.
    let suite_error = match result {
        Some(r) => describe_suite(r),
        None => Some(no_method_failure(method)),
    };
    let messages = io.req.prompts.repair(&RepairContext {
        class_name: &io.task.class_name,
        partial_class: partial,
        method_name: method,
        signature_and_docstring: &stub,
        method_code: current,
        public_tests: tests.map(|t| t.code.as_str()),
        results: result.map_or(&[], |r| r.tests.as_slice()),
        suite_error: suite_error.as_deref(),
        round,
        max_rounds: io.req.max_repairs,
    })?;
    let answer = ask(
        io,
        Purpose::Repair {
            method: method.to_string(),
            round,
        },
        messages,
    )?;
    let Some(reply) = answer_text(answer) else {
        return Ok(None);
    };
    let parts = match &reply {
        Ok(text) => reply::parse_reflection(text, method),
        Err(note) => reply::Reflection {
            problems: vec![note.clone()],
            ..Default::default()
        },
    };
    io.emit(EventBody::Reflection {
        task_id: io.task.id.clone(),
        sample: io.sample,
        method: method.to_string(),
        round,
        analysis: parts.analysis.clone(),
        region: parts.region.clone(),
        plan: parts.plan.clone(),
        problems: parts.problems.clone(),
    })?;
    let patched = parts.patch_code.as_deref().and_then(|p| {
        let method_src = splice::method_from_reply(p, method)?;
        Some(with_helpers(method_src, p, io.task, method))
    });
    io.emit(EventBody::Patch {
        task_id: io.task.id.clone(),
        sample: io.sample,
        method: method.to_string(),
        round,
        code: patched.clone().unwrap_or_default(),
    })?;
    Ok(Some(patched.ok_or_else(|| {
        format!("round {round}: the reply held no patch for `{method}`")
    })))
}

/// What the repair prompt is told when the last reply did not define the method.
fn no_method_failure(method: &str) -> String {
    format!("there was nothing to test: your reply did not define `{method}`")
}

/// The method a reply writes, followed by the helpers it adds (see [`with_helpers`]).
pub fn method_and_helpers(reply_text: &str, task: &Task, method: &str) -> Result<String, String> {
    let method_src = reply::method_code(reply_text, method)?;
    Ok(with_helpers(method_src, reply_text, task, method))
}

/// The method's code followed by the helper methods the reply defines besides it (names
/// that are not target methods of the task): models add helpers, and a reference solution
/// may have methods its skeleton lacks. Splicing adds each helper the class does not have.
fn with_helpers(method_src: String, reply_text: &str, task: &Task, method: &str) -> String {
    let code = extract::extract_code(reply_text);
    let module = parse_module(&code);
    let names: Vec<String> = match module.class(&task.class_name) {
        Some(class) => class.methods.iter().map(|m| m.name.clone()).collect(),
        None => module.functions.clone(),
    };
    let mut out = method_src;
    for name in names {
        if name == method || name == "__init__" || task.method(&name).is_some() {
            continue;
        }
        if let Some(helper) = splice::method_from_reply(&code, &name) {
            out.push_str("\n\n");
            out.push_str(&helper);
        }
    }
    out
}

/// Splice the method (and any helpers after it, see [`with_helpers`]) into `partial`:
/// the method replaces its stub; a helper is added only when the class lacks it or has only
/// a stub of it (a skeleton's signature and docstring, which the helper's body fills in).
pub fn splice_all(
    partial: &str,
    class_name: &str,
    method: &str,
    stub: &str,
    code: &str,
) -> Result<String, String> {
    let module = parse_module(code);
    let mut out = partial.to_string();
    for (i, name) in module.functions.iter().enumerate() {
        let Some(src) = splice::method_from_reply(code, name) else {
            continue;
        };
        let target = i == 0 || name == method;
        // Only a helper needs the look at the class (parsing is most of the cost).
        if target
            || parse_module(&out)
                .class(class_name)
                .is_none_or(|c| c.method(name).is_none_or(|m| m.body_is_stub))
        {
            let src = if name == method {
                with_stub_decorators(&src, stub)
            } else {
                src
            };
            out = splice::splice_method(&out, class_name, &src).map_err(|e| e.to_string())?;
        }
    }
    Ok(out)
}

/// A method that comes without decorators keeps the skeleton's (`@staticmethod` …): replies
/// often drop them, and the signature the task gives includes them.
fn with_stub_decorators(src: &str, stub: &str) -> String {
    let first = src.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    if first.trim_start().starts_with('@') {
        return src.to_string();
    }
    let decorators: String = stub
        .lines()
        .take_while(|l| l.trim_start().starts_with('@'))
        .map(|l| format!("{}\n", l.trim()))
        .collect();
    format!("{decorators}{src}")
}

/// Why a public suite did not run normally, in words for the repair prompt.
fn describe_failure(f: &SuiteFailure) -> String {
    match f {
        SuiteFailure::Import {
            exc_type,
            message,
            line,
            ..
        } => match line {
            Some(l) => format!("{exc_type} at line {l}: {message}"),
            None => format!("{exc_type}: {message}"),
        },
        SuiteFailure::Timeout { limit_s } => format!("timed out after {limit_s} s"),
        SuiteFailure::Memory => "ran out of memory".into(),
        SuiteFailure::Crashed { detail, .. } => format!("crashed: {detail}"),
        SuiteFailure::Protocol { detail } => format!("the test harness was disturbed: {detail}"),
        SuiteFailure::Tampered { detail } => format!(
            "the code tampered with the tests or the test harness ({detail}), so every test \
             counts as failed; the method must leave the tests, the harness and its output alone"
        ),
    }
}

/// Why a public suite's verdict does not stand, in words for the repair prompt: how it ended
/// abnormally, or the tests whose verdict was tampered with (`None`: it ran normally).
fn describe_suite(r: &SuiteResult) -> Option<String> {
    if let Some(f) = &r.failure {
        return Some(describe_failure(f));
    }
    let tampered: Vec<String> = r
        .tests
        .iter()
        .filter(|t| t.outcome == Outcome::Tampered)
        .map(|t| match t.message.as_deref().map(str::trim) {
            Some(m) if !m.is_empty() => format!("{} ({m})", t.id),
            _ => t.id.clone(),
        })
        .collect();
    (!tampered.is_empty()).then(|| {
        format!(
            "the code tampered with the verdict of {}, so it counts as failed; the method must \
             leave the tests, the harness and its output alone",
            tampered.join(", ")
        )
    })
}

/// The partial class run against one method's public tests.
pub fn public_suite(class: &str, tests: &PublicTests) -> SuiteSpec {
    // One test class, judged like a ClassEval class: 5 s.
    SuiteSpec::unittest_one_module(class, &tests.runnable()).with_limits(Limits {
        class_timeout: Some(Duration::from_secs(5)),
        cpu: Duration::from_secs(10),
        wall: Duration::from_secs(20),
        ..Limits::default()
    })
}

/// Every public test passed (and the suite itself did not fail).
fn passed(result: &SuiteResult) -> bool {
    result.failure.is_none()
        && !result.tests.is_empty()
        && result
            .tests
            .iter()
            .all(|t| matches!(t.outcome, Outcome::Pass | Outcome::Skip | Outcome::Xfail))
}

#[cfg(test)]
mod tests;
