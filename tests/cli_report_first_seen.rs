//! `report --by first_seen` and `--cutoff DATE` on ClassEval tasks that carry first-seen dates
//! in their provenance (as `corpus export` writes them from a store `corpus dates` dated),
//! GPT-4-Turbo's classes evaluated through the sandbox: the years, the two sides of the
//! cut-off, the undated tasks counted apart, and the "on or before" side's figures equal to
//! those of a session that evaluated those tasks alone.

mod common;

use std::path::Path;

use common::classlab;
use serde_json::Value;

const MODEL: &str = "GPT-4-Turbo_class_H_greedy";

/// The first `n` ClassEval tasks (or those of `only`), the dates given to their provenance,
/// and the model's output for them, written into `dir`.
fn subset(dir: &Path, dates: &[(&str, Option<&str>)]) -> (std::path::PathBuf, std::path::PathBuf) {
    let read = |p: std::path::PathBuf| -> Vec<Value> {
        serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
    };
    let keep = |items: Vec<Value>| -> Vec<Value> {
        items
            .into_iter()
            .filter_map(|mut t| {
                let (_, date) = dates.iter().find(|(id, _)| t["task_id"] == *id)?;
                if let Some(date) = date {
                    t["provenance"] = serde_json::json!({
                        "source": "ClassEval",
                        "first_seen": date,
                        "first_seen_commit": "0123456789abcdef0123456789abcdef01234567",
                    });
                }
                Some(t)
            })
            .collect()
    };
    let tasks = keep(read(common::classeval_json()));
    let preds = keep(read(common::shared_data(&format!(
        "classeval/model_output/{MODEL}.json"
    ))));
    assert_eq!(tasks.len(), dates.len());
    std::fs::create_dir_all(dir).unwrap();
    let (d, p) = (dir.join("tasks.json"), dir.join("preds.json"));
    std::fs::write(&d, serde_json::to_string(&tasks).unwrap()).unwrap();
    std::fs::write(&p, serde_json::to_string(&preds).unwrap()).unwrap();
    (d, p)
}

fn eval(sessions: &Path, dataset: &Path, preds: &Path) -> String {
    let v = common::json_despite_input_problems(
        classlab(sessions)
            .args(["eval", "--json", "--dataset"])
            .arg(dataset)
            .arg("--predictions")
            .arg(preds)
            .output()
            .unwrap(),
    );
    v["session"].as_str().unwrap().to_string()
}

fn report(sessions: &Path, args: &[&str], id: &str) -> Value {
    common::ok_json(
        classlab(sessions)
            .args(["report", "--json"])
            .args(args)
            .arg(id)
            .output()
            .unwrap(),
    )
}

#[test]
fn results_by_first_seen_year_and_cutoff() {
    common::project_python("classeval");
    let dir = tempfile::tempdir().unwrap();
    let sessions = dir.path().join("sessions");
    let dates = [
        ("ClassEval_0", Some("2019-02-01")),
        ("ClassEval_1", Some("2019-12-31")),
        ("ClassEval_2", Some("2020-12-31")),
        ("ClassEval_3", Some("2021-01-01")),
        ("ClassEval_4", Some("2023-06-30")),
        ("ClassEval_5", Some("2023-07-01")),
        ("ClassEval_6", None),
        ("ClassEval_7", None),
    ];
    let (data, preds) = subset(&dir.path().join("all"), &dates);
    let id = eval(&sessions, &data, &preds);

    let by_year = report(&sessions, &["--by", "first_seen"], &id);
    let s = &by_year["slices"][0];
    assert_eq!(s["property"], "first_seen");
    assert_eq!(s["missing"], 2);
    let bins: Vec<(f64, f64, u64)> = s["bins"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            (
                b["lo"].as_f64().unwrap(),
                b["hi"].as_f64().unwrap(),
                b["tasks"].as_u64().unwrap(),
            )
        })
        .collect();
    // Years as (Y, Y + 1]: 31 December is in its own year.
    assert_eq!(
        bins,
        [
            (2019.0, 2020.0, 2),
            (2020.0, 2021.0, 1),
            (2021.0, 2022.0, 1),
            (2023.0, 2024.0, 2)
        ]
    );
    assert!(by_year.get("cutoff").is_none());

    // On or before 2020-12-31 (its own day included), and after.
    let split = report(&sessions, &["--cutoff", "2020-12-31"], &id);
    assert_eq!(split["cutoff"], "2020-12-31");
    let s = &split["slices"][0];
    assert_eq!(s["property"], "first_seen");
    assert_eq!(s["missing"], 2);
    let sides: Vec<u64> = s["bins"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["tasks"].as_u64().unwrap())
        .collect();
    assert_eq!(sides, [3, 3]);

    // The before side's figures are those of a session of those three tasks alone.
    let before: Vec<(&str, Option<&str>)> = dates[..3].to_vec();
    let (data3, preds3) = subset(&dir.path().join("before"), &before);
    let alone = eval(&sessions, &data3, &preds3);
    let whole = report(&sessions, &[], &alone);
    for m in ["class_success", "class_partial_success"] {
        let side = &s["bins"][0]["metrics"][m];
        let own = &whole["sessions"][0]["intervals"][m];
        assert_eq!(side["estimate"], own["estimate"], "{m}: {side} vs {own}");
        assert_eq!(side["ci95"], own["ci95"], "{m}");
    }

    // The terminal names the sides; a bad date and a cut-off with another --by are refused.
    let text = classlab(&sessions)
        .args(["report", "--cutoff", "2020-12-31"])
        .arg(&id)
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&text.stdout);
    assert!(
        shown.contains("≤ 2020-12-31") && shown.contains("> 2020-12-31"),
        "{shown}"
    );
    let bad = classlab(&sessions)
        .args(["report", "--cutoff", "2020-02-30"])
        .arg(&id)
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("YYYY-MM-DD"));
    let other = classlab(&sessions)
        .args(["report", "--by", "methods", "--cutoff", "2020-12-31"])
        .arg(&id)
        .output()
        .unwrap();
    assert_eq!(other.status.code(), Some(2));
}
