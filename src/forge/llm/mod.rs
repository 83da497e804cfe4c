//! `forge --llm`: ask a model for tests that reach what a forged suite misses (untaken arcs,
//! unexecuted lines, surviving mutants, named in the prompt), and keep a proposed test only
//! when it passes on the reference in every validation run (the forge's own validation:
//! other hash seeds, test orders, fresh directories, the harness `eval` uses) and, added to
//! the suite, raises branch coverage (line coverage without branches) or kills a mutant that
//! survived (rigor's analysis, run again; candidates are taken greedily in the reply's order).
//! Kept tests go into the task's model-written classes (`candidates.rs`: `<Class>TestLLM`, or a
//! class of their own with the fixture their reply class brought); the evidence says how many
//! were proposed, kept and dropped (and why), and the figures are measured again.

pub mod candidates;
pub mod journal;
pub mod prompt;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::AtomicBool;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::mutation::{self, Score};
use super::task::{Forged, Settings, validate};
use super::write::{HELPERS, Suite, TestTrace};
use crate::exec::Sandbox;
use crate::model::Task;
use crate::rigor::{Coverage, Mutant};
use candidates::Candidate;
use journal::Journal;
use prompt::Gaps;

/// Least validation runs a model-written test must pass (the "every time").
pub const MIN_VALIDATION_RUNS: u32 = 5;

/// Why a proposed test was not kept.
pub const DOES_NOT_PARSE: &str = "does_not_parse";
pub const FAILS_ON_REFERENCE: &str = "fails_on_reference";
pub const FLAKY: &str = "flaky";
pub const ADDS_NOTHING: &str = "adds_nothing";
pub const BREAKS_SUITE: &str = "breaks_suite";
pub const OVER_LIMIT: &str = "over_limit";

/// How the step asks, and how often.
pub struct Step {
    pub journal: Journal,
    /// Rounds per task (each prompt names what is still missed).
    pub rounds: u32,
}

/// What the step did for one task (recorded in its evidence under `llm`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LlmEvidence {
    pub model: String,
    /// Prompts sent (answered or not).
    pub asked: u32,
    /// Test methods proposed (a reply without any counts one, dropped as `does_not_parse`).
    pub proposed: usize,
    pub kept: usize,
    /// Reason → proposals dropped for it.
    pub dropped: BTreeMap<String, usize>,
    /// Each dropped proposal: `round N, name: reason (detail)`.
    pub dropped_tests: Vec<String>,
    /// Ids of the kept tests.
    pub tests: Vec<String>,
    /// Figures before the step (branch/line percent, mutation 0–1).
    pub before: Figures,
    pub after: Figures,
    /// Why the step stopped early or did not ask (nothing missed, a failed request).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Figures {
    pub line: Option<f64>,
    pub branch: Option<f64>,
    pub mutation: Option<f64>,
}

impl LlmEvidence {
    fn drop(&mut self, round: u32, what: &str, reason: &'static str, detail: &str) {
        *self.dropped.entry(reason.to_string()).or_default() += 1;
        self.dropped_tests
            .push(format!("round {round}, {what}: {reason} ({detail})"));
    }
}

/// What the suite covers, to tell whether a candidate adds to it.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Reach {
    branches: usize,
    lines: usize,
}

fn reach(c: &Coverage) -> Reach {
    Reach {
        branches: c.branches.0,
        lines: c.covered_lines,
    }
}

fn figures(ev: &super::task::Evidence) -> Figures {
    Figures {
        line: ev.line,
        branch: ev.branch,
        mutation: ev.mutation,
    }
}

/// The mutants `survived` (rigor's JSON list) names.
fn alive(mutants: &[Mutant], code: &str, survived: &[Value]) -> Vec<Mutant> {
    mutants
        .iter()
        .filter(|m| {
            let d = m.diff(code);
            survived.iter().any(|s| {
                s["line"] == json!(d.line)
                    && s["before"] == json!(d.before)
                    && s["after"] == json!(d.after)
                    && s["op"] == json!(m.op)
            })
        })
        .cloned()
        .collect()
}

/// The forged task with the model-written `tests` added: to its module and, their classes,
/// to its test classes.
fn trial_task(task: &Task, first_class: usize, tests: &[&Candidate]) -> Task {
    let mut t = task.clone();
    t.test_module = candidates::module_with(&task.test_module, first_class, tests);
    for c in tests {
        if !t.test_classes.contains(&c.class) {
            t.test_classes.push(c.class.clone());
        }
    }
    t
}

/// The suite as the forge's validation reads it: the module's test classes (so it can
/// reverse their order) and the ids whose failure it must report even when the whole suite
/// fails.
fn suite_of(t: &Task, ids: &[String]) -> Suite {
    let parsed = crate::analysis::parse::parse_module(&t.test_module);
    let classes = t
        .test_classes
        .iter()
        .filter_map(|name| {
            let c = parsed.class(name)?;
            let src = t.test_module.get(c.start_byte..c.end_byte)?;
            Some((name.clone(), None, src.to_string()))
        })
        .collect();
    Suite {
        module: t.test_module.clone(),
        classes,
        traces: ids
            .iter()
            .map(|id| TestTrace {
                id: id.clone(),
                steps: Vec::new(),
            })
            .collect(),
    }
}

/// Ask for tests of what `forged`'s suite misses, keep those that earn their place, and
/// measure the task again. `Ok(None)`: cancelled (nothing is recorded for the task).
pub fn improve(
    sandbox: &Sandbox,
    forged: &mut Forged,
    settings: &Settings,
    step: &Step,
    cancel: &AtomicBool,
) -> anyhow::Result<Option<LlmEvidence>> {
    let mut out = LlmEvidence {
        model: step.journal.model(),
        before: figures(&forged.evidence),
        after: figures(&forged.evidence),
        ..LlmEvidence::default()
    };
    let Some(task) = forged.task.clone() else {
        return Ok(Some(out));
    };
    let class = task.class_name.clone();
    let (mutants, _) = mutation::mutants_of(&task.solution, &class);
    let survived = forged
        .evidence
        .mutants
        .as_ref()
        .map(|s| s.survived.clone())
        .unwrap_or_default();
    let complete = forged.evidence.missing_arcs.is_empty()
        && survived.is_empty()
        && forged.evidence.line == Some(100.0);
    if complete {
        out.note = Some("nothing left uncovered or alive".into());
        return Ok(Some(out));
    }
    let mut living = alive(&mutants, &task.solution, &survived);
    // The figures a candidate must beat, measured on the suite as it is (survivors only).
    let (base_score, base_cov) = mutation::score(sandbox, &task, &living, cancel);
    let Some(cov) = base_cov else {
        out.note = Some(format!(
            "coverage not measured: {}",
            base_score.error.unwrap_or_default()
        ));
        return Ok(Some(out));
    };
    let mut best = reach(&cov);
    let mut gaps = Gaps {
        arcs: cov.missing_arcs.clone(),
        lines: cov.uncovered_lines.clone(),
        mutants: base_score.survived.clone(),
    };
    let first_class = task
        .test_classes
        .first()
        .and_then(|c| task.test_module.find(&format!("class {c}(")))
        .unwrap_or(task.test_module.len());
    let runs = settings.validation_runs.max(MIN_VALIDATION_RUNS);
    let mut kept: Vec<Candidate> = Vec::new();
    for round in 1..=step.rounds {
        if gaps.is_empty() {
            out.note = Some("nothing left uncovered or alive".into());
            break;
        }
        let current = with_kept(&task, first_class, &kept);
        let shown = current.strip_prefix(HELPERS).unwrap_or(&current);
        let messages = prompt::render(&class, &task.solution, shown, &gaps, round)?;
        out.asked += 1;
        let text = match step.journal.ask(&task.id, round, messages, cancel)? {
            None => return Ok(None),
            Some(Ok(c)) => c.text,
            Some(Err(f)) => {
                out.note = Some(format!("round {round}: the request failed: {}", f.message));
                break;
            }
        };
        let taken: BTreeSet<String> = kept.iter().map(|c| c.name.clone()).collect();
        let proposal = match candidates::read(&text, &class, round, &taken) {
            Ok(p) => p,
            Err(why) => {
                out.proposed += 1;
                out.drop(round, "the reply", DOES_NOT_PARSE, &why);
                continue;
            }
        };
        out.proposed += proposal.candidates.len() + proposal.unparsable.len() + proposal.ignored;
        for name in &proposal.unparsable {
            out.drop(round, name, DOES_NOT_PARSE, "the method does not parse");
        }
        if proposal.ignored > 0 {
            *out.dropped.entry(OVER_LIMIT.into()).or_default() += proposal.ignored;
            out.dropped_tests.push(format!(
                "round {round}, {} further tests: {OVER_LIMIT} (at most {} are read from a reply)",
                proposal.ignored,
                candidates::MAX_PER_REPLY
            ));
        }
        let id = Candidate::id;
        // The tests `ids` of the suite with `all` model-written tests that fail in `runs`
        // validation runs.
        let failures = |all: &[&Candidate], ids: &[String], runs| {
            trial_failures(
                sandbox,
                &task,
                first_class,
                all,
                ids,
                runs,
                settings,
                cancel,
            )
        };
        // (a) Passes on the reference: once (else it fails there), then in every run.
        let mut fresh = proposal.candidates;
        for (runs, reason) in [(1, FAILS_ON_REFERENCE), (runs, FLAKY)] {
            if fresh.is_empty() {
                break;
            }
            let all: Vec<&Candidate> = kept.iter().chain(&fresh).collect();
            let ids: Vec<String> = fresh.iter().map(id).collect();
            let failing = failures(&all, &ids, runs);
            if let Some((other, why)) = failing.iter().find(|(k, _)| !ids.contains(k)) {
                for c in fresh.drain(..) {
                    out.drop(
                        round,
                        &c.name,
                        BREAKS_SUITE,
                        &format!("{other} then fails: {why}"),
                    );
                }
                break;
            }
            fresh.retain(|c| match failing.get(&id(c)) {
                Some(why) => {
                    out.drop(round, &c.name, reason, why);
                    false
                }
                None => true,
            });
        }
        // (b) Adds coverage or kills a survivor, greedily.
        let before_round = kept.len();
        for c in fresh {
            let mut all: Vec<&Candidate> = kept.iter().collect();
            all.push(&c);
            let (score, cov) = mutation::score(
                sandbox,
                &trial_task(&task, first_class, &all),
                &living,
                cancel,
            );
            let Some(cov) = cov else {
                let why = score.error.unwrap_or_else(|| "not measured".into());
                out.drop(round, &c.name, ADDS_NOTHING, &format!("coverage {why}"));
                continue;
            };
            let now = reach(&cov);
            let gain = score.killed > 0 || now.branches > best.branches || now.lines > best.lines;
            if !gain {
                out.drop(round, &c.name, ADDS_NOTHING, "no new arc, line or kill");
                continue;
            }
            best = Reach {
                branches: now.branches.max(best.branches),
                lines: now.lines.max(best.lines),
            };
            living = alive(&living, &task.solution, &score.survived);
            gaps = Gaps {
                arcs: cov.missing_arcs.clone(),
                lines: cov.uncovered_lines.clone(),
                mutants: score.survived.clone(),
            };
            kept.push(c);
        }
        // The kept tests together, without the dropped ones beside them: validated again.
        if kept.len() > before_round {
            let all: Vec<&Candidate> = kept.iter().collect();
            let ids: Vec<String> = kept.iter().map(id).collect();
            let failing = failures(&all, &ids, runs);
            if let Some((which, why)) = failing.iter().next() {
                for c in kept.drain(before_round..) {
                    out.drop(
                        round,
                        &c.name,
                        FLAKY,
                        &format!("with the kept tests, {which}: {why}"),
                    );
                }
            }
        }
    }
    if cancel.load(std::sync::atomic::Ordering::Relaxed) {
        return Ok(None);
    }
    out.kept = kept.len();
    out.tests = kept.iter().map(Candidate::id).collect();
    if !kept.is_empty() {
        let all: Vec<&Candidate> = kept.iter().collect();
        let t = trial_task(&task, first_class, &all);
        let (score, cov) = mutation::score(sandbox, &t, &mutants, cancel);
        remeasure(&mut forged.evidence, score, cov, kept.len());
        forged.task = Some(t);
    }
    out.after = figures(&forged.evidence);
    if let Some(t) = forged.task.as_mut()
        && let Some(forge) = t.provenance.extra.get_mut("forge")
    {
        forge["evidence"] = serde_json::to_value(&forged.evidence)?;
        forge["llm"] = serde_json::to_value(&out)?;
    }
    Ok(Some(out))
}

/// The tests `ids` of the module with `all` model-written tests that fail on the reference in
/// `runs` validation runs (test id → why), as the forge validates its own.
#[allow(clippy::too_many_arguments)]
fn trial_failures(
    sandbox: &Sandbox,
    task: &Task,
    first_class: usize,
    all: &[&Candidate],
    ids: &[String],
    runs: u32,
    settings: &Settings,
    cancel: &AtomicBool,
) -> BTreeMap<String, String> {
    let t = trial_task(task, first_class, all);
    let s = Settings {
        validation_runs: runs,
        ..settings.clone()
    };
    validate(sandbox, &t, &suite_of(&t, ids), &s, cancel)
}

fn with_kept(task: &Task, first_class: usize, kept: &[Candidate]) -> String {
    if kept.is_empty() {
        return task.test_module.clone();
    }
    let all: Vec<&Candidate> = kept.iter().collect();
    candidates::module_with(&task.test_module, first_class, &all)
}

/// The evidence with the figures of the suite and its model-written tests.
fn remeasure(ev: &mut super::task::Evidence, score: Score, cov: Option<Coverage>, added: usize) {
    ev.tests += added;
    ev.mutation = score.score;
    ev.mutants = Some(score);
    if let Some(c) = cov {
        ev.set_coverage(c);
    }
}

/// What `--json` adds under `llm`: the step over every task forged.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Totals {
    pub proposed: usize,
    pub kept: usize,
    pub dropped: BTreeMap<String, usize>,
    /// Tasks that kept at least one model-written test.
    pub tasks_improved: usize,
    /// Tasks the model was asked about.
    pub tasks_asked: usize,
    /// The session holding every prompt and reply.
    pub session: Option<String>,
}

impl Totals {
    pub fn add(&mut self, e: &LlmEvidence) {
        self.proposed += e.proposed;
        self.kept += e.kept;
        for (k, n) in &e.dropped {
            *self.dropped.entry(k.clone()).or_default() += n;
        }
        self.tasks_improved += usize::from(e.kept > 0);
        self.tasks_asked += usize::from(e.asked > 0);
    }
}
