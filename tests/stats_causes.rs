//! The failure-cause classifier on real failures of the RealClassEval slice: every failing
//! test of the seven models' published pytest reports whose exception is AttributeError,
//! TypeError, NameError or ImportError, classified from its message, the generated code, the
//! skeleton and the tests. Prints the share of failures it explains.
//! (ClassEval's real failures are classified through sessions in tests/cli_report.rs.)

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use classlab::metrics::causes::{Cause, Failure, classify};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/realclasseval")
}

fn rows(path: &Path) -> Vec<BTreeMap<String, String>> {
    let mut r = csv::ReaderBuilder::new()
        .from_path(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let header: Vec<String> = r.headers().unwrap().iter().map(str::to_string).collect();
    r.records()
        .map(|rec| {
            let rec = rec.unwrap();
            header
                .iter()
                .cloned()
                .zip(rec.iter().map(str::to_string))
                .collect()
        })
        .collect()
}

#[test]
fn causes_of_realclasseval_failures() {
    let mut counts: BTreeMap<Cause, usize> = BTreeMap::new();
    let mut examples: BTreeMap<Cause, String> = BTreeMap::new();
    for folder in ["csn", "post_cut-off"] {
        let dir = root().join(folder);
        let classes: BTreeMap<String, BTreeMap<String, String>> =
            rows(&dir.join("classes_full_docstr.csv"))
                .into_iter()
                .filter_map(|r| Some((r.get("snippet_id")?.clone(), r)))
                .collect();
        let mut models: Vec<PathBuf> = std::fs::read_dir(dir.join("reports"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        models.sort();
        for report in models {
            let model = report.file_stem().unwrap().to_string_lossy().to_string();
            let code_col = format!("{model}_generated_code");
            let generated: BTreeMap<String, String> =
                rows(&dir.join("generated").join(format!("{model}.csv")))
                    .into_iter()
                    .filter_map(|r| Some((r.get("snippet_id")?.clone(), r.get(&code_col)?.clone())))
                    .collect();
            for r in rows(&report) {
                if r["status"] == "passed" || r["status"] == "xfailed" {
                    continue;
                }
                // `…/test_snippet_16.py` → snippet_16.
                let file = r["file"].rsplit('/').next().unwrap_or("");
                let snippet = file
                    .trim_start_matches("test_")
                    .trim_end_matches(".py")
                    .to_string();
                let message = r["message"].as_str();
                let exc = message.split(':').next().unwrap_or("").trim();
                let tests =
                    std::fs::read_to_string(dir.join("tests").join(file)).unwrap_or_default();
                let class = classes.get(&snippet);
                let f = Failure {
                    exc_type: exc,
                    message,
                    traceback: "",
                    code: generated.get(&snippet).map_or("", String::as_str),
                    skeleton: class
                        .and_then(|c| c.get("class_skeleton"))
                        .map_or("", String::as_str),
                    tests: &tests,
                    reference: class
                        .and_then(|c| c.get("human_written_code"))
                        .map_or("", String::as_str),
                };
                if let Some(cause) = classify(&f) {
                    *counts.entry(cause).or_default() += 1;
                    examples.entry(cause).or_insert_with(|| {
                        format!(
                            "{folder}/{model} {snippet}: {}",
                            message.lines().next().unwrap_or("")
                        )
                    });
                }
            }
        }
    }
    let total: usize = counts.values().sum();
    let explained = total - counts.get(&Cause::Unexplained).copied().unwrap_or(0);
    println!(
        "RealClassEval slice: {total} failing tests with AttributeError/TypeError/NameError/ImportError"
    );
    for (cause, n) in &counts {
        println!("  {:<40} {n:>4}  e.g. {}", cause.as_str(), examples[cause]);
    }
    println!(
        "explained: {explained}/{total} = {:.1}%",
        100.0 * explained as f64 / total.max(1) as f64
    );
    // The slice has about 170 such failures (97 AttributeError, 70 TypeError, a NameError).
    assert!(total > 100, "{total}");
    assert!(explained > 0);
}
