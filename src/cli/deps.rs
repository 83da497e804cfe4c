//! `classlab deps`: extracted (from the reference code) vs annotated (the dataset's
//! `method_dependencies`) dependencies, per method, with a summary of where they disagree.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::table::{Table, list};
use super::{Context, Outcome, Output, print_json};
use crate::analysis::TaskAnalysis;
use crate::model::Task;

#[derive(Serialize)]
struct MethodDeps {
    extracted: Vec<String>,
    annotated: Option<Vec<String>>,
}

#[derive(Serialize)]
struct TaskDeps<'a> {
    task_id: &'a str,
    order: &'a [String],
    cycles: &'a [Vec<String>],
    methods: BTreeMap<String, MethodDeps>,
}

/// A kind of disagreement between annotation and code, with its count and first example.
#[derive(Serialize, Default)]
pub(crate) struct Kind {
    edges: usize,
    example: Option<String>,
}

#[derive(Serialize, Default)]
pub(crate) struct Summary {
    tasks: usize,
    methods: usize,
    /// Methods with an annotation to compare.
    methods_annotated: usize,
    methods_agree: usize,
    methods_differ: usize,
    edges_extracted: usize,
    edges_annotated: usize,
    edges_agree: usize,
    /// Calls in the code that the annotation omits.
    edges_only_extracted: usize,
    /// Annotated edges to target methods that the code never references.
    edges_only_annotated: usize,
    /// Annotated names that are not target methods at all (e.g. `__init__`, a field).
    annotated_non_methods: usize,
    /// Disagreeing edges by kind, each with its first example.
    kinds: BTreeMap<&'static str, Kind>,
}

impl Summary {
    fn note(&mut self, kind: &'static str, example: impl FnOnce() -> String) {
        let k = self.kinds.entry(kind).or_default();
        k.edges += 1;
        if k.example.is_none() {
            k.example = Some(example());
        }
    }
}

pub(crate) const OMITS_CALL: &str = "annotation omits a call the code makes";
pub(crate) const LISTS_TRANSITIVE: &str =
    "annotation lists an indirect dependency (a callee's callee)";
pub(crate) const LISTS_OTHER_OBJECT: &str =
    "annotation lists a method the code calls on another object, not on self";
pub(crate) const LISTS_LOOKALIKE: &str =
    "annotation lists a method whose name the code only has inside another identifier";
pub(crate) const LISTS_UNREFERENCED: &str = "annotation lists a method the code has no trace of";
pub(crate) const NAMES_NON_METHOD: &str = "annotation names something that is not a target method";

pub(crate) fn summarize(tasks: &[Task], analyses: &[TaskAnalysis]) -> Summary {
    let mut s = Summary {
        tasks: tasks.len(),
        ..Summary::default()
    };
    for (task, a) in tasks.iter().zip(analyses) {
        for m in &task.methods {
            s.methods += 1;
            let extracted = a.graph.deps_of(&m.name);
            s.edges_extracted += extracted.len();
            let Some(ann) = &m.annotated else { continue };
            s.methods_annotated += 1;
            let ann: BTreeSet<&String> = ann.methods.iter().collect();
            let non_methods: Vec<&String> = ann
                .iter()
                .copied()
                .filter(|n| task.method(n).is_none())
                .collect();
            let ann_methods: BTreeSet<&String> = ann
                .iter()
                .copied()
                .filter(|n| task.method(n).is_some())
                .collect();
            let ext: BTreeSet<&String> = extracted.iter().collect();
            let omitted: Vec<&&String> = ext.difference(&ann_methods).collect();
            let uncalled: Vec<&&String> = ann_methods.difference(&ext).collect();
            s.edges_annotated += ann.len();
            s.edges_agree += ext.intersection(&ann_methods).count();
            s.edges_only_extracted += omitted.len();
            s.edges_only_annotated += uncalled.len();
            s.annotated_non_methods += non_methods.len();
            if omitted.is_empty() && uncalled.is_empty() && non_methods.is_empty() {
                s.methods_agree += 1;
                continue;
            }
            s.methods_differ += 1;
            let at = format!("{}.{}", task.id, m.name);
            if !omitted.is_empty() {
                s.note(OMITS_CALL, || {
                    format!(
                        "{at}: code calls {}, annotation {}",
                        list(omitted.iter().map(|x| x.as_str())),
                        show(&ann)
                    )
                });
            }
            // Why would an annotator list a method the code does not call on self?
            let reach = a.graph.reachable(&m.name);
            let def = a.method_def(&m.name);
            let other = def.map(|d| &d.other_refs);
            let body = def
                .and_then(|d| task.solution.get(d.body_start_byte..d.end_byte))
                .unwrap_or("");
            for u in uncalled {
                let kind = if reach.contains(u.as_str()) {
                    LISTS_TRANSITIVE
                } else if other.is_some_and(|o| o.contains(u.as_str())) {
                    LISTS_OTHER_OBJECT
                } else if body.contains(u.as_str()) {
                    // `self.attack_power` for `attack`, `mean_x` for `mean`, `_select` for `select`.
                    LISTS_LOOKALIKE
                } else {
                    LISTS_UNREFERENCED
                };
                s.note(kind, || {
                    format!("{at}: annotation lists {u}, code references {}", show(&ext))
                });
            }
            if !non_methods.is_empty() {
                s.note(NAMES_NON_METHOD, || {
                    format!(
                        "{at}: annotation lists {}",
                        list(non_methods.iter().map(|x| x.as_str()))
                    )
                });
            }
        }
    }
    s
}

fn show(set: &BTreeSet<&String>) -> String {
    if set.is_empty() {
        "nothing".into()
    } else {
        format!("[{}]", list(set.iter().map(|x| x.as_str())))
    }
}

pub(crate) fn run(ctx: &Context) -> anyhow::Result<Outcome> {
    let (dataset, problems) = ctx.dataset()?;
    let analyses = Context::analyses(&dataset);
    let summary = summarize(&dataset.tasks, &analyses);
    match ctx.output {
        Output::Json => {
            let tasks: Vec<TaskDeps> = dataset
                .tasks
                .iter()
                .zip(&analyses)
                .map(|(t, a)| TaskDeps {
                    task_id: &t.id,
                    order: &a.order,
                    cycles: &a.cycles,
                    methods: t
                        .methods
                        .iter()
                        .map(|m| {
                            let annotated = m.annotated.as_ref().map(|an| {
                                let set: BTreeSet<&String> = an.methods.iter().collect();
                                set.into_iter().cloned().collect()
                            });
                            let extracted = a.graph.deps_of(&m.name).iter().cloned().collect();
                            (
                                m.name.clone(),
                                MethodDeps {
                                    extracted,
                                    annotated,
                                },
                            )
                        })
                        .collect(),
                })
                .collect();
            print_json(&serde_json::json!({ "tasks": tasks, "summary": summary }))?;
        }
        Output::Human => {
            let mut t = Table::new(&["task", "method", "extracted", "annotated", "agree"]);
            for (task, a) in dataset.tasks.iter().zip(&analyses) {
                for m in &task.methods {
                    let ext = a.graph.deps_of(&m.name);
                    let (ann, agree) = match &m.annotated {
                        None => ("n/a".to_string(), "n/a"),
                        Some(an) => {
                            let set: BTreeSet<&String> = an.methods.iter().collect();
                            let same =
                                set.len() == ext.len() && set.iter().all(|x| ext.contains(*x));
                            (
                                list(set.iter().map(|x| x.as_str())),
                                if same { "yes" } else { "NO" },
                            )
                        }
                    };
                    t.row(vec![
                        task.id.clone(),
                        m.name.clone(),
                        list(ext),
                        ann,
                        agree.into(),
                    ]);
                }
            }
            print!("{}", t.render());
            print_summary(&summary);
        }
    }
    Ok(Outcome { problems })
}

fn print_summary(s: &Summary) {
    let pct = |n: usize, d: usize| {
        if d == 0 {
            0.0
        } else {
            100.0 * n as f64 / d as f64
        }
    };
    println!(
        "\n{} tasks, {} methods ({} annotated): {} agree ({:.1}%), {} differ ({:.1}%)",
        s.tasks,
        s.methods,
        s.methods_annotated,
        s.methods_agree,
        pct(s.methods_agree, s.methods_annotated),
        s.methods_differ,
        pct(s.methods_differ, s.methods_annotated)
    );
    println!(
        "edges: {} extracted, {} annotated; {} in both, {} only in code, {} only annotated, {} annotated names are not target methods",
        s.edges_extracted,
        s.edges_annotated,
        s.edges_agree,
        s.edges_only_extracted,
        s.edges_only_annotated,
        s.annotated_non_methods
    );
    let mut kinds: Vec<_> = s.kinds.iter().collect();
    kinds.sort_by_key(|(_, k)| std::cmp::Reverse(k.edges));
    for (name, k) in kinds {
        println!(
            "  {:>4} edges: {name}; e.g. {}",
            k.edges,
            k.example.as_deref().unwrap_or("")
        );
    }
}
