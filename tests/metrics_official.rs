//! ClassEval-compatible metrics against the official evaluator's results
//! (`../shared/data/classeval/official_evaluator_results/*.json`) and the published numbers
//! (`../shared/data/classeval/pass_at_k_result_v1.0.0.json`).
//!
//! * Every test class's `answer` and every task's `class_answer` are recomputed from the
//!   `official` {errors, failures, testsRun}, and each file's `metrics.pass_1_greedy` from
//!   those counts: all must be equal (five files, the reference solutions included).
//! * The published `pass_1_greedy` of the four model runs is reproduced within 0.03; the
//!   differences (this machine vs the publication, see the data README) are printed.
//! * Suites rebuilt from the per-test records give back the official counts through
//!   `suite_class_counts`, and their fingerprints put the README's machine-specific tasks in
//!   `EnvErr`/`Timeout`, never in the model's buckets.

mod common;

use std::collections::{BTreeMap, BTreeSet};

use classlab::dataset;
use classlab::metrics::fingerprint::{
    Bucket, EnvContext, Fingerprint, ReferenceEvidence, Thresholds, classify_suite,
};
use classlab::metrics::functional::{
    Answer, ClassCounts, TaskCounts, answer, class_answer, classeval_metrics, suite_class_counts,
};
use classlab::model::{Outcome, SuiteFailure, SuiteResult, TestResult};
use serde_json::Value;

/// (official results file, the model name in `pass_at_k_result_v1.0.0.json`)
const FILES: [(&str, Option<&str>); 5] = [
    ("gpt4t_classH.json", Some("GPT-4-Turbo_class_H_greedy")),
    ("gpt35_methodI.json", Some("GPT-3.5-Turbo_method_I_greedy")),
    ("gpt35_methodC.json", Some("GPT-3.5-Turbo_method_C_greedy")),
    (
        "codellama13b_classH.json",
        Some("CodeLlama-13b-Instruct-hf_class_H_greedy"),
    ),
    ("reference.json", None),
];

const METRICS: [&str; 4] = [
    "fun_success",
    "fun_partial_success",
    "class_success",
    "class_partial_success",
];

fn read_json(rel: &str) -> Value {
    let path = common::shared_data(rel);
    let text = std::fs::read_to_string(&path).expect("readable");
    serde_json::from_str(&text).expect("valid JSON")
}

fn official(file: &str) -> Value {
    read_json(&format!("classeval/official_evaluator_results/{file}"))
}

fn obj(v: &Value) -> &serde_json::Map<String, Value> {
    v.as_object().expect("object")
}

fn count(v: &Value, key: &str) -> usize {
    v[key].as_u64().expect("count") as usize
}

fn counts_of(tc: &Value) -> ClassCounts {
    let o = &tc["official"];
    ClassCounts::new(
        count(o, "testsRun"),
        count(o, "failures"),
        count(o, "errors"),
    )
}

/// Per task, the official counts of every sample.
fn task_counts(doc: &Value) -> Vec<TaskCounts> {
    obj(&doc["tasks"])
        .iter()
        .map(|(id, task)| TaskCounts {
            task_id: id.clone(),
            samples: obj(&task["samples"])
                .values()
                .map(|s| {
                    obj(&s["test_classes"])
                        .iter()
                        .map(|(name, tc)| (name.clone(), counts_of(tc)))
                        .collect()
                })
                .collect(),
        })
        .collect()
}

fn metric(v: &Value, key: &str) -> f64 {
    v[key].as_f64().expect("metric")
}

fn recomputed(m: &classlab::metrics::functional::FunctionalMetrics, key: &str) -> f64 {
    match key {
        "fun_success" => m.fun_success,
        "fun_partial_success" => m.fun_partial_success,
        "class_success" => m.class_success,
        "class_partial_success" => m.class_partial_success,
        _ => unreachable!(),
    }
    .expect("a rate over the official tasks")
}

#[test]
fn official_answers_and_metrics_are_recomputed_exactly() {
    let mut report = Vec::new();
    for (file, _) in FILES {
        let doc = official(file);
        let (mut classes, mut tasks) = (0, 0);
        for (id, task) in obj(&doc["tasks"]) {
            for (sample, s) in obj(&task["samples"]) {
                let mut answers = Vec::new();
                for (name, tc) in obj(&s["test_classes"]) {
                    let got = answer(counts_of(tc));
                    assert_eq!(
                        got.as_str(),
                        tc["answer"].as_str().expect("answer"),
                        "{file} {id} sample {sample} {name}: {:?}",
                        tc["official"]
                    );
                    answers.push(got);
                    classes += 1;
                }
                assert_eq!(
                    class_answer(answers).as_str(),
                    s["class_answer"].as_str().expect("class_answer"),
                    "{file} {id} sample {sample}"
                );
                tasks += 1;
            }
        }
        let m = classeval_metrics(&task_counts(&doc), 1);
        assert_eq!((m.tasks, m.test_classes), (tasks, classes), "{file}");
        let want = &doc["metrics"]["pass_1_greedy"];
        for key in METRICS {
            let (got, exp) = (recomputed(&m, key), metric(want, key));
            assert!(
                (got - exp).abs() < 1e-12,
                "{file} {key}: {got} vs official {exp}"
            );
        }
        report.push(format!(
            "{file}: {classes} test-class answers and {tasks} class answers equal; \
             fun_success {:.4} fun_partial {:.4} class_success {:.2} class_partial {:.2} equal",
            m.fun_success.unwrap_or(f64::NAN),
            m.fun_partial_success.unwrap_or(f64::NAN),
            m.class_success.unwrap_or(f64::NAN),
            m.class_partial_success.unwrap_or(f64::NAN)
        ));
    }
    println!("{}", report.join("\n"));
}

/// Tasks the data README lists as behaving differently on this machine or in this dataset.
const MACHINE_SPECIFIC: [(&str, &str); 10] = [
    ("ClassEval_17", "test depends on today's date"),
    ("ClassEval_22", "set ordering by hash seed (GPT-4, flaky)"),
    ("ClassEval_35", "reference runs just over 5 s"),
    ("ClassEval_48", "test depends on the hostname"),
    ("ClassEval_50", "read-only file writable as root"),
    ("ClassEval_51", "NumPy 2 removed np.mat"),
    ("ClassEval_52", "no nltk data offline"),
    ("ClassEval_58", "unseeded randomness (flaky)"),
    ("ClassEval_69", "PyPDF2 3 API; a test class without tests"),
    ("ClassEval_97", "test class name with a leading space"),
];

#[test]
fn published_metrics_are_reproduced_within_003() {
    let published = read_json("classeval/pass_at_k_result_v1.0.0.json");
    let mut report = Vec::new();
    for (file, model) in FILES {
        let Some(model) = model else { continue };
        let doc = official(file);
        let m = classeval_metrics(&task_counts(&doc), 1);
        let want = &published["pass_1_greedy"][model];
        let mut line = format!(
            "{model} ({} tasks, {} test classes):",
            m.tasks, m.test_classes
        );
        for key in METRICS {
            let (got, exp) = (recomputed(&m, key), metric(want, key));
            let units = if key.starts_with("fun") {
                m.test_classes
            } else {
                m.tasks
            } as f64;
            line.push_str(&format!(
                "\n    {key:<22} recomputed {got:.4}  published {exp:.4}  diff {:+.4} ({:+.1} {})",
                got - exp,
                (got - exp) * units,
                if key.starts_with("fun") {
                    "test classes"
                } else {
                    "tasks"
                }
            ));
            assert!(
                (got - exp).abs() <= 0.03 + 1e-9,
                "{model} {key}: recomputed {got} vs published {exp}"
            );
        }
        let known: Vec<String> = MACHINE_SPECIFIC
            .iter()
            .filter_map(|(id, why)| {
                let a = doc["tasks"][id]["samples"]["0"]["class_answer"].as_str()?;
                Some(format!("{id} {a} ({why})"))
            })
            .collect();
        line.push_str(&format!("\n    README tasks here: {}", known.join("; ")));
        report.push(line);
    }
    println!("{}", report.join("\n"));
}

fn outcome(status: &str) -> Outcome {
    match status {
        "pass" => Outcome::Pass,
        "fail" => Outcome::Fail,
        "error" => Outcome::Error,
        "skip" => Outcome::Skip,
        "expected_failure" => Outcome::Xfail,
        "unexpected_success" => Outcome::Xpass,
        _ => Outcome::NotRun,
    }
}

/// The suite a sandboxed run of one sample would have reported, rebuilt from the official
/// per-test records: an import-time exception becomes an `Import` failure; a class abandoned
/// at the 5 s limit becomes a `Timeout`, its abandoned tests `NotRun`; late results are not
/// counted (`NotRun`).
fn rebuild_suite(sample: &Value) -> SuiteResult {
    let mut tests = Vec::new();
    let mut failure = None;
    for (name, tc) in obj(&sample["test_classes"]) {
        let exc = &tc["class_exception"];
        let timed_out = exc["type"].as_str() == Some("FunctionTimedOut");
        if let Some(t) = exc["type"].as_str()
            && !timed_out
            && !exc["message"]
                .as_str()
                .unwrap_or("")
                .starts_with("module '")
        {
            failure = Some(SuiteFailure::Import {
                exc_type: t.to_string(),
                message: exc["message"].as_str().unwrap_or("").to_string(),
                line: None,
                traceback: None,
                origin: None,
            });
        }
        if timed_out && failure.is_none() {
            failure = Some(SuiteFailure::Timeout { limit_s: 5.0 });
        }
        for t in tc["tests"].as_array().into_iter().flatten() {
            let mut o = outcome(t["status"].as_str().unwrap_or(""));
            let exc_type = t["exc_type"].as_str().map(String::from);
            if t["late"].as_bool() == Some(true)
                || (timed_out && exc_type.as_deref() == Some("FunctionTimedOut"))
            {
                o = Outcome::NotRun;
            }
            tests.push(TestResult {
                id: format!("{name}.{}", t["method"].as_str().unwrap_or("")),
                outcome: o,
                exc_type,
                message: t["message"].as_str().map(String::from),
                traceback: None,
                code_line: None,
                duration_s: 0.0,
                origin: None,
            });
        }
    }
    SuiteResult::new(tests, failure)
}

#[test]
fn rebuilt_suites_give_the_official_counts() {
    let mut report = Vec::new();
    for (file, _) in FILES {
        let doc = official(file);
        let (mut same, mut total) = (0, 0);
        let (mut differ, mut teardown) = (Vec::new(), Vec::new());
        for (id, task) in obj(&doc["tasks"]) {
            let s = &task["samples"]["0"];
            let names: Vec<String> = obj(&s["test_classes"]).keys().cloned().collect();
            let got = suite_class_counts(&rebuild_suite(s), &names);
            for (name, counts) in got {
                total += 1;
                let want = counts_of(&s["test_classes"][&name]);
                if counts == want {
                    same += 1;
                } else if want.tests_run == counts.tests_run
                    && want.failures + want.errors > want.tests_run
                    && want.errors == counts.errors + 1
                {
                    // unittest recorded a second error (tearDown after the test's error) that
                    // the per-test records, one per test, cannot carry.
                    teardown.push(format!("{id} {name}"));
                } else {
                    differ.push(format!("{id} {name}: {counts:?} vs {want:?}"));
                }
            }
        }
        report.push(format!(
            "{file}: {same}/{total} test classes; tearDown double errors not in the records: {teardown:?}"
        ));
        assert!(differ.is_empty(), "{file}: {differ:#?}");
        let expected_teardown: Vec<String> = if file == "reference.json" {
            vec![]
        } else {
            vec![
                "ClassEval_69 PDFHandlerTestMergePdfs".into(),
                "ClassEval_69 PDFHandlerTestMain".into(),
            ]
        };
        let mut sorted = teardown.clone();
        sorted.sort();
        let mut expected_sorted = expected_teardown;
        expected_sorted.sort();
        assert_eq!(sorted, expected_sorted, "{file}");
    }
    println!("{}", report.join("\n"));
}

#[test]
fn fingerprints_keep_environment_apart() {
    let tasks: BTreeMap<String, classlab::model::Task> =
        dataset::load_path(&common::classeval_json())
            .expect("ClassEval loads")
            .tasks
            .into_iter()
            .map(|t| (t.id.clone(), t))
            .collect();
    let th = Thresholds::default();
    let known: BTreeSet<&str> = MACHINE_SPECIFIC.iter().map(|(id, _)| *id).collect();
    // An environment error rests on classlab's evidence only: the reference's run in the same
    // environment (the official evaluator ran every file, the references' too, on one machine).
    let reference_doc = official("reference.json");
    let evidence: BTreeMap<&String, ReferenceEvidence> = obj(&reference_doc["tasks"])
        .iter()
        .map(|(id, t)| {
            (
                id,
                ReferenceEvidence::of(&rebuild_suite(&t["samples"]["0"])),
            )
        })
        .collect();
    let mut report = Vec::new();
    for (file, _) in FILES {
        let doc = official(file);
        let mut fp = Fingerprint::default();
        let mut buckets: BTreeMap<String, Option<Bucket>> = BTreeMap::new();
        for (id, task) in obj(&doc["tasks"]) {
            let t = &tasks[id];
            let mut ctx = EnvContext::from_sources(
                t.imports
                    .iter()
                    .map(String::as_str)
                    .chain([t.test_module.as_str()]),
            );
            if let Some(e) = evidence.get(id) {
                ctx = ctx.with_reference(e.clone());
            }
            let suite = rebuild_suite(&task["samples"]["0"]);
            let c = fp.add_suite(&suite, &ctx, &th);
            assert_eq!(c, classify_suite(&suite, &ctx, &th));
            buckets.insert(id.clone(), c.bucket);
        }
        // The environment's failures are never the model's.
        assert_eq!(
            buckets["ClassEval_52"],
            Some(Bucket::EnvErr),
            "{file}: nltk data"
        );
        if file == "reference.json" {
            assert_eq!(buckets["ClassEval_51"], Some(Bucket::EnvErr), "np.mat");
            assert_eq!(
                buckets["ClassEval_35"],
                Some(Bucket::Timeout),
                "slow reference"
            );
            let off: Vec<(&String, &Option<Bucket>)> = buckets
                .iter()
                .filter(|(id, b)| **b != Some(Bucket::Perfect) && !known.contains(id.as_str()))
                .collect();
            assert!(off.is_empty(), "reference classes off Perfect: {off:?}");
        } else {
            // A module only the model imports (jwt) is the model's fault.
            if file == "gpt4t_classH.json" {
                assert_eq!(buckets["ClassEval_0"], Some(Bucket::RuntimeErr), "jwt");
            }
            // The models' ClassEval_69 errors where the reference, in the same environment,
            // passed: no evidence excuses them (the exception's message once did; issue 22
            // item 3), so they count against the model.
            assert_ne!(
                buckets["ClassEval_69"],
                Some(Bucket::EnvErr),
                "{file}: PyPDF2"
            );
        }
        let not_perfect: Vec<String> = buckets
            .iter()
            .filter(|(_, b)| **b != Some(Bucket::Perfect))
            .map(|(id, b)| {
                format!(
                    "{}:{}",
                    id.trim_start_matches("ClassEval_"),
                    b.map_or("-", Bucket::as_str)
                )
            })
            .collect();
        report.push(format!(
            "{file}:\n    spectrum {}\n    exceptions {}\n    env exceptions {}\n    unclassified {}{}",
            serde_json::to_string(&fp.spectrum).unwrap(),
            serde_json::to_string(&fp.exceptions).unwrap(),
            serde_json::to_string(&fp.env_exceptions).unwrap(),
            fp.unclassified,
            if file == "reference.json" {
                format!("\n    not Perfect: {}", not_perfect.join(" "))
            } else {
                String::new()
            }
        ));
    }
    println!("{}", report.join("\n"));
}

#[test]
fn answers_cover_every_official_verdict_kind() {
    // The official files exercise all four verdicts; keep it so (guards the oracle itself).
    let mut seen = BTreeSet::new();
    for (file, _) in FILES {
        for task in task_counts(&official(file)) {
            for sample in &task.samples {
                seen.extend(sample.iter().map(|(_, c)| answer(*c)));
            }
        }
    }
    let all: BTreeSet<Answer> = [
        Answer::Success,
        Answer::PartialSuccess,
        Answer::Fail,
        Answer::Error,
    ]
    .into();
    assert_eq!(seen, all);
}
