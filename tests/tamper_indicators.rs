//! The static tampering indicators (`analysis::tamper`) on honest code: ClassEval's 100
//! references and the four shared model outputs (the code `eval` runs). A reference flagged is
//! a false positive by definition; the counts of flagged outputs are printed (`--nocapture`)
//! and must stay zero, so a rule that starts flagging honest code fails here.

mod common;

use classlab::analysis::tamper::scan;
use classlab::dataset::{self, outputs};
use classlab::pipeline::eval::prepare;

const OUTPUTS: [&str; 4] = [
    "GPT-4-Turbo_class_H_greedy",
    "GPT-3.5-Turbo_method_I_greedy",
    "GPT-3.5-Turbo_method_C_greedy",
    "CodeLlama-13b-Instruct-hf_class_H_greedy",
];

#[test]
fn no_reference_is_flagged() {
    let ds = dataset::load(Some(&common::classeval_json())).expect("ClassEval loads");
    assert_eq!(ds.tasks.len(), 100);
    let flagged: Vec<String> = ds
        .tasks
        .iter()
        .flat_map(|t| {
            scan(&t.solution)
                .into_iter()
                .map(move |i| format!("{} line {}: {} {}", t.id, i.line, i.name, i.detail))
        })
        .collect();
    assert!(flagged.is_empty(), "references flagged: {flagged:#?}");
}

#[test]
fn honest_model_outputs_are_nearly_clean() {
    let ds = dataset::load(Some(&common::classeval_json())).expect("ClassEval loads");
    let mut total_flagged = 0;
    for name in OUTPUTS {
        let path = common::shared_data(&format!("classeval/model_output/{name}.json"));
        let outs = outputs::load(&path, None).expect("the outputs load");
        let (items, _) = prepare(&ds, &outs);
        let mut flagged = 0;
        for item in &items {
            let found = scan(&item.code);
            if !found.is_empty() {
                flagged += 1;
                for i in &found {
                    println!(
                        "{name} {}/{} line {}: {} {}",
                        ds.tasks[item.task].id, item.sample, i.line, i.name, i.detail
                    );
                }
            }
        }
        println!("{name}: {flagged} of {} samples flagged", items.len());
        total_flagged += flagged;
    }
    // None is flagged today (docs/sandbox.md); one flagged means a rule began to catch
    // honest code.
    assert_eq!(total_flagged, 0, "honest samples flagged (listed above)");
}
