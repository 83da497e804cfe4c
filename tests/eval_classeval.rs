//! `classlab eval` on the real ClassEval outputs, through the real sandbox, against what the
//! official evaluator reported on a machine of this kind
//! (`../shared/data/classeval/official_evaluator_results/`).
//!
//! Every disagreement must be one of the explained ones below; agreement must reach 99 % of
//! test classes; the ClassEval metrics must equal the official ones once the explained
//! disagreements are applied, and the published numbers must be within 0.03.

mod common;

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// Why classlab's verdict differs from the official one for a test class.
struct Explained {
    task: &'static str,
    test_class: &'static str,
    why: &'static str,
}

/// Disagreements that are not classlab's fault, with the reason (see the data README).
const EXPLAINED: &[Explained] = &[
    Explained {
        task: "ClassEval_22",
        test_class: "*",
        why: "set iteration order depends on the hash seed: the official run drew a random one, classlab pins PYTHONHASHSEED=0",
    },
    Explained {
        task: "ClassEval_50",
        test_class: "JSONProcessorTestWriteJson",
        why: "the test expects writing a read-only file to fail; the official evaluator ran as root (the write succeeds), classlab's sandbox drops CAP_DAC_OVERRIDE (it fails, as on any user's machine)",
    },
    Explained {
        task: "ClassEval_58",
        test_class: "*",
        why: "unseeded randomness in the tests (flaky by construction)",
    },
];

fn explained(task: &str, class: &str) -> Option<&'static str> {
    EXPLAINED
        .iter()
        .find(|e| e.task == task && (e.test_class == "*" || e.test_class == class))
        .map(|e| e.why)
}

/// Through the interpreter classlab picks by default for ClassEval: the project's ClassEval
/// environment (provisioned here if need be), which holds the official evaluator's packages.
fn eval(predictions: &Path) -> Value {
    common::project_python("classeval");
    common::eval_json(None, &common::classeval_json(), predictions)
}

struct Agreement {
    total: usize,
    agree: usize,
    unexplained: Vec<String>,
    explained: Vec<String>,
}

fn compare(ours: &Value, official: &Value) -> Agreement {
    let mut a = Agreement {
        total: 0,
        agree: 0,
        unexplained: Vec::new(),
        explained: Vec::new(),
    };
    let tasks = official["tasks"].as_object().expect("official tasks");
    for (task_id, t) in tasks {
        let classes = t["samples"]["0"]["test_classes"]
            .as_object()
            .expect("test classes");
        for (class, v) in classes {
            a.total += 1;
            let want = v["answer"].as_str().unwrap_or("");
            let got = ours["tasks"][task_id]["test_classes"][class]["answer"]
                .as_str()
                .unwrap_or("missing");
            if want == got {
                a.agree += 1;
                continue;
            }
            let line = format!(
                "{task_id} {class}: official {want} {}, classlab {got} {}",
                v["official"], ours["tasks"][task_id]["test_classes"][class]
            );
            match explained(task_id, class) {
                Some(why) => a.explained.push(format!("{line} — {why}")),
                None => a.unexplained.push(line),
            }
        }
    }
    a
}

fn check_file(output_file: &str, official_file: &str, published_key: &str) {
    let official: Value = serde_json::from_slice(
        &std::fs::read(common::shared_data(&format!(
            "classeval/official_evaluator_results/{official_file}"
        )))
        .unwrap(),
    )
    .unwrap();
    let ours = eval(&common::shared_data(&format!(
        "classeval/model_output/{output_file}"
    )));
    let a = compare(&ours, &official);
    for line in &a.explained {
        eprintln!("explained: {line}");
    }
    assert!(
        a.unexplained.is_empty(),
        "unexplained disagreements:\n{}",
        a.unexplained.join("\n")
    );
    let rate = a.agree as f64 / a.total as f64;
    eprintln!(
        "{output_file}: {}/{} test classes agree ({:.2} %)",
        a.agree,
        a.total,
        100.0 * rate
    );
    assert!(rate >= 0.99, "{output_file}: agreement {rate:.4} < 0.99");

    // The metrics equal the official ones up to the explained disagreements: each explained
    // test class can move a fun_* metric by 1/N, each task holding one a class_* metric by
    // 1/100. And they are within 0.03 of the published numbers (their machine, 2024).
    let explained_tasks: std::collections::BTreeSet<&str> = a
        .explained
        .iter()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    let tasks_total = official["tasks"].as_object().map_or(1, |t| t.len()) as f64;
    let published: Value = serde_json::from_slice(
        &std::fs::read(common::shared_data(
            "classeval/pass_at_k_result_v1.0.0.json",
        ))
        .unwrap(),
    )
    .unwrap();
    let pubm = &published["pass_1_greedy"][published_key];
    for key in [
        "fun_success",
        "fun_partial_success",
        "class_success",
        "class_partial_success",
    ] {
        // Like with like: the official evaluator counts EnvErr as failures.
        let ours_v = ours["metrics_official"][key].as_f64().unwrap();
        let off_v = official["metrics"]["pass_1_greedy"][key].as_f64().unwrap();
        let pub_v = pubm[key].as_f64().unwrap();
        eprintln!(
            "{output_file} {key}: classlab {ours_v:.4}  official-here {off_v:.4}  published {pub_v:.4}"
        );
        let slack = if key.starts_with("fun") {
            a.explained.len() as f64 / a.total as f64
        } else {
            explained_tasks.len() as f64 / tasks_total
        };
        assert!(
            (ours_v - off_v).abs() <= slack + 1e-9,
            "{output_file} {key}: classlab {ours_v} vs official {off_v} (explained slack {slack})"
        );
        assert!(
            (ours_v - pub_v).abs() <= 0.03 + 1e-9,
            "{key}: {ours_v} vs published {pub_v}"
        );
    }
}

#[test]
fn gpt4_turbo_holistic_agrees_with_the_official_evaluator() {
    check_file(
        "GPT-4-Turbo_class_H_greedy.json",
        "gpt4t_classH.json",
        "GPT-4-Turbo_class_H_greedy",
    );
}

#[test]
fn gpt35_incremental_agrees_with_the_official_evaluator() {
    check_file(
        "GPT-3.5-Turbo_method_I_greedy.json",
        "gpt35_methodI.json",
        "GPT-3.5-Turbo_method_I_greedy",
    );
}

#[test]
fn gpt35_compositional_agrees_with_the_official_evaluator() {
    check_file(
        "GPT-3.5-Turbo_method_C_greedy.json",
        "gpt35_methodC.json",
        "GPT-3.5-Turbo_method_C_greedy",
    );
}

#[test]
fn codellama_holistic_agrees_with_the_official_evaluator() {
    check_file(
        "CodeLlama-13b-Instruct-hf_class_H_greedy.json",
        "codellama13b_classH.json",
        "CodeLlama-13b-Instruct-hf_class_H_greedy",
    );
}

/// Reference solutions pass, except the tasks the data README lists as machine- or
/// dataset-specific, each classified. What the reference fails here is the environment's by
/// definition (`pipeline::reference`: its own run is the evidence), so those are `EnvErr`.
#[test]
fn reference_solutions_pass_except_the_known_machine_specific_tasks() {
    let ds: Value =
        serde_json::from_slice(&std::fs::read(common::classeval_json()).unwrap()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let refs = dir.path().join("reference.jsonl");
    let mut text = String::new();
    for t in ds.as_array().unwrap() {
        let line = serde_json::json!({"task_id": t["task_id"], "model": "reference", "code": t["solution_code"]});
        text.push_str(&line.to_string());
        text.push('\n');
    }
    std::fs::write(&refs, text).unwrap();
    let ours = eval(&refs);
    let expected: BTreeMap<&str, &[&str]> = BTreeMap::from([
        // A test depends on today's date.
        ("ClassEval_17", &["EnvErr"][..]),
        // A test depends on the hostname.
        ("ClassEval_48", &["EnvErr"][..]),
        // NumPy 2 removed np.mat.
        ("ClassEval_51", &["EnvErr"][..]),
        // No nltk data offline.
        ("ClassEval_52", &["EnvErr"][..]),
        // Unseeded randomness in the tests: flaky by construction (the reference's own run
        // may fail the same test, or another).
        (
            "ClassEval_58",
            &["Perfect", "NearPerf", "Strong", "Weak", "EnvErr"][..],
        ),
        // A test compares the clock's second as the test read it with the one the code read:
        // a second boundary between the two reads fails it. In the split harness the reads are
        // a round trip apart (in process, microseconds), so it happens now and then.
        (
            "ClassEval_20",
            &["Perfect", "NearPerf", "Strong", "EnvErr"][..],
        ),
        (
            "ClassEval_36",
            &["Perfect", "NearPerf", "Strong", "EnvErr"][..],
        ),
        // The reference runs just over ClassEval's 5 s per test class.
        ("ClassEval_35", &["EnvErr", "Timeout", "Perfect"][..]),
    ]);
    let mut unexpected = Vec::new();
    for (task_id, t) in ours["tasks"].as_object().unwrap() {
        let outcome = t["outcome"].as_str().unwrap_or("none");
        match expected.get(task_id.as_str()) {
            Some(allowed) if allowed.contains(&outcome) => {}
            Some(allowed) => {
                unexpected.push(format!("{task_id}: {outcome}, expected one of {allowed:?}"))
            }
            None if outcome == "Perfect" => {}
            None => unexpected.push(format!("{task_id}: {outcome} ({})", t["failure"])),
        }
    }
    assert!(unexpected.is_empty(), "{}", unexpected.join("\n"));
}
