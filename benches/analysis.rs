//! Loading and analysing the real ClassEval file (`../shared/data/classeval/ClassEval_data.json`):
//! parse the JSON into tasks, then methods, skeletons and dependency graphs for every task.
//! Run: `cargo bench --bench analysis`.

use std::path::PathBuf;

use classlab::analysis::analyze_task;
use classlab::dataset;

fn main() {
    divan::main();
}

fn classeval_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/data/classeval/ClassEval_data.json")
}

#[divan::bench]
fn load_classeval(bencher: divan::Bencher) {
    let text =
        std::fs::read_to_string(classeval_path()).expect("ClassEval data beside the checkout");
    bencher.bench(|| {
        dataset::parse_text("ClassEval_data.json", divan::black_box(&text))
            .unwrap()
            .tasks
            .len()
    });
}

#[divan::bench]
fn analyse_classeval(bencher: divan::Bencher) {
    let ds = dataset::load_path(&classeval_path()).expect("ClassEval loads");
    bencher.bench(|| {
        ds.tasks
            .iter()
            .map(|t| analyze_task(divan::black_box(t)).graph.edge_count())
            .sum::<usize>()
    });
}

#[divan::bench]
fn load_and_analyse_classeval(bencher: divan::Bencher) {
    let path = classeval_path();
    bencher.bench(|| {
        let ds = dataset::load_path(&path).unwrap();
        ds.tasks
            .iter()
            .map(|t| analyze_task(t).graph.edge_count())
            .sum::<usize>()
    });
}
