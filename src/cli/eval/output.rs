//! What `eval` and `fingerprint` print: the `--json` shape and the side-by-side table.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{Value, json};

use super::super::table::Table;
use crate::metrics::fingerprint::{Bucket, ExcKind};
use crate::metrics::functional::{FunctionalMetrics, answer};
use crate::session::attempts;
use crate::session::reduce::FingerprintView;
use crate::session::{EnvErrCount, EvalState, SessionLog};
use crate::text::Escaped;

/// `eval --json`'s outcome of a task whose suite ran but judged no test.
pub(super) const UNJUDGED: &str = "Unjudged";
/// `eval --json`'s outcome of a task the run did not finish (stopped before it).
pub(super) const NOT_RUN: &str = "NotRun";

/// The official per-test-class counts with their answer.
#[derive(Serialize)]
struct ClassOut {
    run: usize,
    failures: usize,
    errors: usize,
    answer: &'static str,
}

#[derive(Serialize)]
struct TestOut<'a> {
    id: &'a str,
    outcome: crate::model::Outcome,
    exc_type: Option<&'a str>,
    message: Option<&'a str>,
}

pub(super) fn fingerprint_json(fp: &FingerprintView) -> Value {
    json!({
        "spectrum": fp.spectrum,
        "method_spectrum": fp.method_spectrum,
        "exceptions": fp.exceptions,
        "env_exceptions": fp.env_exceptions,
    })
}

/// The `--json` shape of `eval` (with `tasks`) and of `fingerprint` (without).
pub(super) fn session_json(log: &SessionLog, state: &EvalState, with_tasks: bool) -> Value {
    let mut v = json!({
        "session": log.meta.id,
        "dir": log.dir,
        "model": log.meta.model,
        "strategy": log.meta.strategy,
        "dataset": log.meta.dataset.origin,
        "harness": log.meta.harness_name(),
        "harness_caveat": log.meta.verdict_caveat(),
        "finished": state.finished && !state.cancelled,
        "progress": {"done": state.progress().0, "total": state.progress().1},
        "metrics": metrics_json(state),
        "metrics_official": state.metrics_official(),
        "fingerprint": fingerprint_json(&state.fingerprint()),
        "tampered": crate::session::report::tampered_tasks(state),
        "tampering_attempts": attempts::tampering_attempts(state),
        "tampering_rate": attempts::tampering_rate(state),
    });
    if with_tasks {
        let mut tasks = BTreeMap::new();
        for ((task_id, sample), run) in state.runs() {
            let key = if state.samples > 1 {
                format!("{task_id}/{sample}")
            } else {
                task_id.clone()
            };
            // `outcome` is always a string (README, *Evaluating model outputs*): a bucket,
            // `Unjudged` (the suite ran, no test could be judged) or `NotRun` (the run
            // stopped before this task finished; `--resume` runs it).
            let Some(summary) = &run.summary else {
                tasks.insert(key, json!({"outcome": NOT_RUN, "status": run.status}));
                continue;
            };
            let classes: BTreeMap<&str, ClassOut> = summary
                .test_classes
                .iter()
                .map(|(name, c)| {
                    (
                        name.as_str(),
                        ClassOut {
                            run: c.tests_run,
                            failures: c.failures,
                            errors: c.errors,
                            answer: answer(*c).as_str(),
                        },
                    )
                })
                .collect();
            let tests: Vec<TestOut> = run
                .private
                .iter()
                .flat_map(|r| &r.tests)
                .map(|t| TestOut {
                    id: &t.id,
                    outcome: t.outcome,
                    exc_type: t.exc_type.as_deref(),
                    message: t.message.as_deref(),
                })
                .collect();
            let failure = run.private.as_ref().and_then(|r| r.failure.as_ref());
            tasks.insert(
                key,
                json!({
                    "outcome": summary.outcome.map_or(UNJUDGED, |b| b.as_str()),
                    "methods": summary
                        .methods
                        .iter()
                        .map(|(m, b)| (m.as_str(), b.map_or(UNJUDGED, |b| b.as_str())))
                        .collect::<BTreeMap<&str, &str>>(),
                    "test_classes": classes,
                    "tests": tests,
                    "failure": failure,
                }),
            );
        }
        v["tasks"] = json!(tasks);
    }
    v
}

/// A rate as a percentage; a rate over nothing (no task, no test class) is `n/a`, never 0 %.
pub(crate) fn pct(x: Option<f64>) -> String {
    x.map_or_else(|| "n/a".into(), |x| format!("{:.1}%", 100.0 * x))
}

/// `--json`'s metrics: ClassEval's, the environment's failures left out of every
/// denominator, with how many were (`env_err`: classes, test classes).
pub(crate) fn metrics_json(state: &EvalState) -> Value {
    let mut v = json!(state.metrics());
    v["env_err"] = json!(state.env_err());
    v
}

/// A rate with what the environment kept out of its denominator beside it.
pub(crate) fn pct_env(x: Option<f64>, left_out: usize) -> String {
    if left_out == 0 {
        pct(x)
    } else {
        format!("{} ({left_out} EnvErr left out)", pct(x))
    }
}

/// Metrics and fingerprints of one or more sessions, one column each.
pub(crate) fn print_human(sessions: &[(&SessionLog, &EvalState)]) {
    let progress: Vec<(usize, usize)> = sessions.iter().map(|(_, s)| s.progress()).collect();
    print_table(sessions, &progress, None);
    print_caveats(sessions);
}

/// What the harness that judged each session cannot vouch for (in-process: its verdicts are
/// forgeable), once per distinct caveat.
pub(crate) fn print_caveats(sessions: &[(&SessionLog, &EvalState)]) {
    let mut by_caveat: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (log, _) in sessions {
        if let Some(c) = log.meta.verdict_caveat() {
            by_caveat.entry(c).or_default().push(&log.meta.id);
        }
    }
    for (caveat, ids) in by_caveat {
        let whom = if sessions.len() == 1 {
            String::new()
        } else {
            format!(" ({})", ids.join(", "))
        };
        println!("verdicts{whom}: {caveat}");
    }
}

/// Column labels: the models, or the session ids when two sessions share a model.
pub(super) fn labels(logs: &[&SessionLog]) -> Vec<String> {
    let models: Vec<Option<&String>> = logs.iter().map(|l| l.meta.model.as_ref()).collect();
    let unique = models.iter().all(Option::is_some)
        && models
            .iter()
            .collect::<std::collections::BTreeSet<_>>()
            .len()
            == models.len();
    logs.iter()
        .map(|l| match &l.meta.model {
            Some(m) if unique => m.clone(),
            _ => l.meta.id.clone(),
        })
        .collect()
}

/// The table of [`print_human`]; `progress` is each session's own (done, total), `compared`
/// the number of tasks the figures cover when they are restricted to a comparison.
pub(super) fn print_table(
    sessions: &[(&SessionLog, &EvalState)],
    progress: &[(usize, usize)],
    compared: Option<usize>,
) {
    let mut header: Vec<String> = vec![String::new()];
    header.extend(labels(
        &sessions.iter().map(|(l, _)| *l).collect::<Vec<_>>(),
    ));
    let header_refs: Vec<&str> = header.iter().map(String::as_str).collect();
    let right: Vec<usize> = (1..header.len()).collect();
    let mut t = Table::new(&header_refs).right(&right);
    let metrics: Vec<FunctionalMetrics> = sessions.iter().map(|(_, s)| s.metrics()).collect();
    let fps: Vec<FingerprintView> = sessions.iter().map(|(_, s)| s.fingerprint()).collect();
    let row = |label: &str, f: &dyn Fn(usize) -> String| {
        let mut r = vec![label.to_string()];
        r.extend((0..sessions.len()).map(f));
        r
    };
    t.row(row("strategy", &|i| {
        sessions[i].0.meta.strategy.clone().unwrap_or_default()
    }));
    t.row(row("tasks done", &|i| {
        let (d, n) = progress[i];
        format!("{d}/{n}")
    }));
    if let Some(n) = compared {
        t.row(row("tasks compared", &|_| n.to_string()));
    }
    // EnvErr is the environment's: out of each denominator, and said so beside it.
    let env: Vec<EnvErrCount> = sessions.iter().map(|(_, s)| s.env_err()).collect();
    t.row(row("class_success", &|i| {
        pct_env(metrics[i].class_success, env[i].tasks)
    }));
    t.row(row("class_partial_success", &|i| {
        pct_env(metrics[i].class_partial_success, env[i].tasks)
    }));
    t.row(row("fun_success", &|i| {
        pct_env(metrics[i].fun_success, env[i].test_classes)
    }));
    t.row(row("fun_partial_success", &|i| {
        pct_env(metrics[i].fun_partial_success, env[i].test_classes)
    }));
    if env.iter().any(|e| e.tasks > 0) {
        // The official evaluator's way, to set beside published figures.
        let official: Vec<FunctionalMetrics> =
            sessions.iter().map(|(_, s)| s.metrics_official()).collect();
        t.row(row("class_success (EnvErr as failures)", &|i| {
            pct(official[i].class_success)
        }));
        t.row(row("fun_success (EnvErr as failures)", &|i| {
            pct(official[i].fun_success)
        }));
    }
    for b in Bucket::ALL {
        t.row(row(&format!("  {}", b.as_str()), &|i| {
            fps[i].spectrum.get(b).to_string()
        }));
    }
    for k in ExcKind::ALL {
        if fps.iter().any(|f| f.exceptions.get(k) > 0) {
            t.row(row(&format!("  {k:?}"), &|i| {
                fps[i].exceptions.get(k).to_string()
            }));
        }
    }
    print!("{}", t.render());
    println!(
        "(spectrum: evaluated classes per outcome bucket; then failing tests per exception type, environment failures excluded)"
    );
    print_tampered(sessions);
    print_attempts(sessions);
}

/// Each session's tampering attempts: the rate (a lower bound) and every sample with one.
pub(super) fn print_attempts(sessions: &[(&SessionLog, &EvalState)]) {
    for (log, state) in sessions {
        let rate = attempts::tampering_rate(state);
        if rate.samples == 0 {
            continue;
        }
        let who = Escaped(log.meta.model.as_deref().unwrap_or(&log.meta.id));
        let ci = rate.ci95.map_or_else(String::new, |(lo, hi)| {
            format!(" [{}, {}]", pct(Some(lo)), pct(Some(hi)))
        });
        let s = rate.by_source;
        let unscanned = match rate.unscanned {
            0 => String::new(),
            n => format!("; {n} never scanned statically"),
        };
        println!(
            "\nTampering attempts in {who}: {} of {} samples, {}{ci} (runner {}, host {}, static {}{unscanned}) — {}",
            rate.attempted,
            rate.samples,
            pct(rate.rate),
            s.runner,
            s.host,
            s.static_,
            rate.lower_bound
        );
        let multi = state.samples > 1;
        for a in attempts::tampering_attempts(state) {
            let id = if multi {
                format!("{}/{}", a.task_id, a.sample)
            } else {
                a.task_id
            };
            println!("  {}:", Escaped(&id));
            for line in attempts::described(&a.evidence) {
                println!("    {}", Escaped(&line));
            }
        }
    }
}

/// The tasks whose runs the harness found tampered with, by session (nothing when none was).
pub(super) fn print_tampered(sessions: &[(&SessionLog, &EvalState)]) {
    for (log, state) in sessions {
        let tampered = crate::session::report::tampered_tasks(state);
        if tampered.is_empty() {
            continue;
        }
        let multi = state.samples > 1;
        println!(
            "\nTAMPERED with in {} ({} task{}, counted as failures):",
            Escaped(log.meta.model.as_deref().unwrap_or(&log.meta.id)),
            tampered.len(),
            if tampered.len() == 1 { "" } else { "s" }
        );
        for t in tampered {
            let id = if multi {
                format!("{}/{}", t.task_id, t.sample)
            } else {
                t.task_id
            };
            println!("  {}: {}", Escaped(&id), Escaped(&t.detail));
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_rate_says_what_the_environment_kept_out_of_it() {
        assert_eq!(super::pct_env(Some(0.25), 0), "25.0%");
        assert_eq!(super::pct_env(Some(0.125), 4), "12.5% (4 EnvErr left out)");
        assert_eq!(super::pct_env(None, 0), "n/a");
    }
}
