//! `classlab eval` on the RealClassEval slice (`../shared/data/realclasseval/`): for every model
//! there, the per-test outcome agrees with the published pytest report (`reports/<model>.csv`)
//! for at least 95 % of tests. Every disagreement is printed.

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

/// RealClassEval's own environment (scripts/setup-python.sh, provisioned here if need be): its
/// classes import packages ClassEval runs must not see.
fn realclasseval_python() -> std::path::PathBuf {
    common::project_python("realclasseval")
}

fn eval(dataset: &Path, predictions: &Path) -> Value {
    common::eval_json(Some(&realclasseval_python()), dataset, predictions)
}

/// pytest's report words for our outcomes: pytest says `failed` for assertion failures and
/// other exceptions alike, and for a strict xfail that passed.
fn as_pytest(outcome: &str) -> &str {
    match outcome {
        "pass" => "passed",
        "fail" | "error" | "xpass" => "failed",
        "xfail" => "xfailed",
        "skip" => "skipped",
        _ => "not run",
    }
}

fn check_slice(slice: &str) {
    let dir = common::shared_data(&format!("realclasseval/{slice}"));
    let mut models: Vec<_> = std::fs::read_dir(dir.join("generated"))
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "csv"))
        .collect();
    models.sort();
    assert!(!models.is_empty());
    let mut below = Vec::new();
    for generated in models {
        let model = generated
            .file_stem()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let ours = eval(&dir, &generated);
        let mut ours_by_test: BTreeMap<(String, String), String> = BTreeMap::new();
        for (task, t) in ours["tasks"].as_object().unwrap() {
            for test in t["tests"].as_array().into_iter().flatten() {
                let id = test["id"].as_str().unwrap_or("").to_string();
                let outcome = as_pytest(test["outcome"].as_str().unwrap_or("")).to_string();
                ours_by_test.insert((task.clone(), id), outcome);
            }
        }
        let mut reader =
            csv::Reader::from_path(dir.join("reports").join(format!("{model}.csv"))).unwrap();
        let headers = reader.headers().unwrap().clone();
        let col = |name: &str| headers.iter().position(|h| h == name).unwrap();
        let (file_col, name_col, status_col, msg_col) =
            (col("file"), col("name"), col("status"), col("message"));
        let (mut total, mut agree) = (0, 0);
        let mut differ = Vec::new();
        for row in reader.records() {
            let row = row.unwrap();
            let file = row.get(file_col).unwrap_or("");
            let snippet = file
                .rsplit('/')
                .next()
                .unwrap_or("")
                .trim_start_matches("test_")
                .trim_end_matches(".py");
            let name = row.get(name_col).unwrap_or("");
            // A collection error fails every test of the module.
            let want = match row.get(status_col).unwrap_or("") {
                "error" => "failed",
                s => s,
            };
            total += 1;
            let got = ours_by_test
                .get(&(snippet.to_string(), name.to_string()))
                .map_or("missing", String::as_str);
            if got == want {
                agree += 1;
            } else {
                let msg: String = row.get(msg_col).unwrap_or("").chars().take(90).collect();
                differ.push(format!(
                    "{snippet}::{name}: report {want} ({msg}), classlab {got}"
                ));
            }
        }
        let rate = agree as f64 / total as f64;
        eprintln!(
            "{slice}/{model}: {agree}/{total} tests agree ({:.1} %)",
            100.0 * rate
        );
        for d in &differ {
            eprintln!("  differs: {d}");
        }
        if rate < 0.95 {
            below.push(format!("{slice}/{model}: agreement {rate:.3} < 0.95"));
        }
    }
    assert!(below.is_empty(), "{}", below.join("\n"));
}

#[test]
fn post_cutoff_outcomes_agree_with_the_published_reports() {
    check_slice("post_cut-off");
}

#[test]
fn csn_outcomes_agree_with_the_published_reports() {
    check_slice("csn");
}
