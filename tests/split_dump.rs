//! Writes the suites `classlab eval` would run for the shared ClassEval and RealClassEval
//! outputs, in split and in-process layout, for `tests/harness/compare.py` (the split
//! harness's fidelity, checked against the in-process one, while developing the protocol):
//!
//!     CLASSLAB_SPLIT_DUMP=/tmp/suites cargo test --test split_dump -- --ignored
//!
//! Each suite is `NAME.json` (split) and `NAME.inproc.json` (in process).

mod common;

use std::path::Path;
use std::time::Duration;

use classlab::dataset::{self, outputs};
use classlab::exec::Harness;
use classlab::pipeline::eval::{prepare, suite_for};

fn dump(dataset: &Path, predictions: &Path, tag: &str, out: &Path) -> usize {
    let ds = dataset::load(Some(dataset)).expect("dataset loads");
    let outs = outputs::load(predictions, None).expect("outputs load");
    let (items, _) = prepare(&ds, &outs);
    for item in &items {
        let task = &ds.tasks[item.task];
        let spec = suite_for(task, &item.code, Duration::from_secs(5), None);
        let name = format!("{tag}__{}__{}", task.id, item.sample);
        let split = spec.clone().with_harness(Harness::Split);
        std::fs::write(
            out.join(format!("{name}.json")),
            serde_json::to_vec(&split).unwrap(),
        )
        .unwrap();
        std::fs::write(
            out.join(format!("{name}.inproc.json")),
            serde_json::to_vec(&spec).unwrap(),
        )
        .unwrap();
    }
    items.len()
}

#[test]
#[ignore = "writes suites for tests/harness/compare.py (set CLASSLAB_SPLIT_DUMP)"]
fn dump_suites() {
    let Some(out) = std::env::var_os("CLASSLAB_SPLIT_DUMP") else {
        return;
    };
    let out = Path::new(&out);
    std::fs::create_dir_all(out).unwrap();
    let classeval = common::classeval_json();
    let mut n = 0;
    for (file, tag) in [
        ("GPT-4-Turbo_class_H_greedy.json", "gpt4t"),
        ("GPT-3.5-Turbo_method_I_greedy.json", "gpt35i"),
        ("GPT-3.5-Turbo_method_C_greedy.json", "gpt35c"),
        ("CodeLlama-13b-Instruct-hf_class_H_greedy.json", "codellama"),
    ] {
        let p = common::shared_data(&format!("classeval/model_output/{file}"));
        n += dump(&classeval, &p, tag, out);
    }
    for slice in ["post_cut-off", "csn"] {
        let dir = common::shared_data(&format!("realclasseval/{slice}"));
        for e in std::fs::read_dir(dir.join("generated")).unwrap().flatten() {
            let model = e.path().file_stem().unwrap().to_string_lossy().into_owned();
            n += dump(&dir, &e.path(), &format!("rce-{slice}-{model}"), out);
        }
    }
    eprintln!("{n} suites written to {}", out.display());
}
