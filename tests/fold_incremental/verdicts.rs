//! Real verdicts for the fold's tests: what the official ClassEval evaluator reported for
//! four models, as four samples of one run, with the dataset's method → test class mapping.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use classlab::metrics::fingerprint::{Bucket, ExcKind, exc_kind};
use classlab::metrics::functional::{self, Answer, ClassCounts, answer};
use classlab::session::TaskSummary;

pub const DATA: &str = "../shared/data/classeval";
pub const RUNS: [&str; 4] = [
    "gpt4t_classH",
    "gpt35_methodI",
    "gpt35_methodC",
    "codellama13b_classH",
];

/// (task, sample) → its verdicts, from the official evaluator's results and the dataset's
/// method → test class mapping.
pub fn real_summaries() -> (Vec<String>, BTreeMap<(String, u32), TaskSummary>) {
    let dataset = classlab::dataset::load_path(&Path::new(DATA).join("ClassEval_data.json"))
        .expect("ClassEval loads");
    let mut out = BTreeMap::new();
    for (sample, run) in RUNS.iter().enumerate() {
        let path = Path::new(DATA).join(format!("official_evaluator_results/{run}.json"));
        let text = std::fs::read_to_string(&path).expect("official results");
        let json: serde_json::Value = serde_json::from_str(&text).unwrap();
        for task in &dataset.tasks {
            let Some(s) = json["tasks"][&task.id]["samples"].get("0") else {
                continue;
            };
            let mut test_classes = Vec::new();
            let mut env_classes = BTreeSet::new();
            let (mut exceptions, mut env_exceptions) = (Default::default(), Default::default());
            let hist =
                |h: &mut classlab::metrics::fingerprint::ExceptionHistogram, k: ExcKind| h.add(k);
            for (name, tc) in s["test_classes"].as_object().unwrap() {
                let o = &tc["official"];
                let n = |k: &str| o[k].as_u64().unwrap_or(0) as usize;
                test_classes.push((
                    name.clone(),
                    ClassCounts::new(n("testsRun"), n("failures"), n("errors")),
                ));
                if let Some(t) = tc["class_exception"]["type"].as_str() {
                    if t == "ModuleNotFoundError" {
                        env_classes.insert(name.clone());
                        hist(&mut env_exceptions, exc_kind(t));
                    } else {
                        hist(&mut exceptions, exc_kind(t));
                    }
                }
            }
            let bucket_of = |a: Answer| match a {
                Answer::Success => Bucket::Perfect,
                Answer::PartialSuccess => Bucket::Weak,
                Answer::Fail => Bucket::LogicErr,
                Answer::Error => Bucket::RuntimeErr,
            };
            let counts: BTreeMap<&str, ClassCounts> =
                test_classes.iter().map(|(n, c)| (n.as_str(), *c)).collect();
            let methods: Vec<(String, Option<Bucket>)> = task
                .methods
                .iter()
                .map(|m| {
                    let class = m.test_class.as_deref().unwrap_or("");
                    let b = if env_classes.contains(class) {
                        Some(Bucket::EnvErr)
                    } else {
                        counts.get(class).map(|c| bucket_of(answer(*c)))
                    };
                    (m.name.clone(), b)
                })
                .collect();
            let outcome = if !env_classes.is_empty() {
                Bucket::EnvErr
            } else {
                match functional::class_answer(counts.values().map(|c| answer(*c))) {
                    functional::ClassAnswer::ClassSuccess => Bucket::Perfect,
                    functional::ClassAnswer::ClassPartialSuccess => Bucket::Strong,
                    functional::ClassAnswer::ClassFail => Bucket::Fail,
                }
            };
            let summary = TaskSummary {
                outcome: Some(outcome),
                passed: 0,
                judged: 0,
                test_classes,
                exceptions,
                env_exceptions,
                methods,
                method_tests: task
                    .methods
                    .iter()
                    .filter_map(|m| Some((m.name.clone(), m.test_class.clone()?)))
                    .collect(),
            };
            out.insert((task.id.clone(), sample as u32), summary);
        }
    }
    let ids = dataset.tasks.iter().map(|t| t.id.clone()).collect();
    (ids, out)
}
