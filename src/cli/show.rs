//! `classlab show <task_id>`: one task in full.

use serde::Serialize;

use super::table::{Table, list};
use super::{Context, Outcome, Output, print_json};
use crate::analysis::{TaskAnalysis, analyze_task};
use crate::model::Task;
use crate::text::Escaped;

#[derive(Serialize)]
struct MethodOut<'a> {
    name: &'a str,
    signature: Option<&'a str>,
    params: Vec<&'a str>,
    decorators: Vec<&'a str>,
    /// [first, last] line in the reference solution.
    lines: Option<[usize; 2]>,
    doctests: usize,
    test_class: Option<&'a str>,
    extracted: Vec<&'a str>,
    annotated: Option<Vec<&'a str>>,
    has_public_tests: bool,
}

#[derive(Serialize)]
struct TestClassOut<'a> {
    name: &'a str,
    tests: usize,
}

#[derive(Serialize)]
struct ShowOut<'a> {
    task_id: &'a str,
    class_name: &'a str,
    source: &'a str,
    description: String,
    imports: &'a [String],
    fields: &'a [String],
    methods: Vec<MethodOut<'a>>,
    order: &'a [String],
    cycles: &'a [Vec<String>],
    test_classes: Vec<TestClassOut<'a>>,
    /// Methods the reference defines but the skeleton lacks, and the reverse.
    skeleton_mismatch: SkeletonMismatch,
    notes: &'a [String],
}

#[derive(Serialize)]
struct SkeletonMismatch {
    only_in_solution: Vec<String>,
    only_in_skeleton: Vec<String>,
}

fn build<'a>(task: &'a Task, a: &'a TaskAnalysis) -> ShowOut<'a> {
    // The analysis's methods, as the TUI's Methods tab lists them (the reference's when
    // `methods_info` is missing or malformed).
    let methods = a
        .graph
        .nodes
        .iter()
        .map(|name| {
            let m = task.method(name);
            let def = a.method_def(name);
            MethodOut {
                name,
                signature: def.map(|d| d.signature.as_str()),
                params: def
                    .map(|d| d.params.iter().map(String::as_str).collect())
                    .unwrap_or_default(),
                decorators: def
                    .map(|d| d.decorators.iter().map(String::as_str).collect())
                    .unwrap_or_default(),
                lines: def.map(|d| [d.start_line, d.end_line]),
                doctests: a
                    .skeleton
                    .class(&task.class_name)
                    .and_then(|c| c.method(name))
                    .or(def)
                    .map_or(0, |d| d.doctests.len()),
                test_class: m.and_then(|m| m.test_class.as_deref()),
                extracted: a.graph.deps_of(name).iter().map(String::as_str).collect(),
                annotated: m
                    .and_then(|m| m.annotated.as_ref())
                    .map(|an| an.methods.iter().map(String::as_str).collect()),
                has_public_tests: m.is_some_and(|m| m.public_tests.is_some()),
            }
        })
        .collect();
    let (only_in_solution, only_in_skeleton) = a.skeleton_mismatch();
    ShowOut {
        task_id: &task.id,
        class_name: &task.class_name,
        source: &task.provenance.source,
        description: task.description_text(),
        imports: &task.imports,
        fields: &task.fields,
        methods,
        order: &a.order,
        cycles: &a.cycles,
        test_classes: a
            .test_classes
            .iter()
            .map(|t| TestClassOut {
                name: &t.name,
                tests: t.tests.len(),
            })
            .collect(),
        skeleton_mismatch: SkeletonMismatch {
            only_in_solution,
            only_in_skeleton,
        },
        notes: &a.notes,
    }
}

pub(crate) fn run(ctx: &Context, task_id: &str) -> anyhow::Result<Outcome> {
    let (dataset, problems) = ctx.dataset()?;
    let Some(task) = dataset.task(task_id) else {
        anyhow::bail!(
            "no task `{task_id}` in {} ({} tasks; `classlab tasks` lists them)",
            dataset.origin,
            dataset.tasks.len()
        );
    };
    let analysis = analyze_task(task);
    let out = build(task, &analysis);
    match ctx.output {
        Output::Json => print_json(&out)?,
        Output::Human => print_human(&out),
    }
    Ok(Outcome { problems })
}

fn print_human(s: &ShowOut) {
    // Everything here is the dataset's text: control characters are escaped (a multi-line
    // description line by line).
    println!(
        "{}  {}  ({})",
        Escaped(s.task_id),
        Escaped(s.class_name),
        Escaped(s.source)
    );
    if !s.description.is_empty() {
        println!();
        for line in s.description.lines() {
            println!("{}", Escaped(line));
        }
    }
    if !s.imports.is_empty() {
        println!("\nimports: {}", Escaped(&s.imports.join("; ")));
    }
    if !s.fields.is_empty() {
        println!("fields:  {}", Escaped(&s.fields.join(", ")));
    }
    println!();
    let mut t = Table::new(&[
        "method",
        "params",
        "lines",
        "extracted deps",
        "annotated deps",
        "agree",
        "test class",
    ]);
    for m in &s.methods {
        let agree = match &m.annotated {
            None => "n/a",
            Some(an) => {
                let mut a = an.clone();
                a.sort_unstable();
                a.dedup();
                if a == m.extracted { "yes" } else { "NO" }
            }
        };
        t.row(vec![
            m.name.to_string(),
            list(m.params.iter().filter(|p| !matches!(**p, "self" | "cls"))),
            m.lines.map_or("-".into(), |[a, b]| format!("{a}-{b}")),
            list(&m.extracted),
            m.annotated.as_ref().map_or("n/a".into(), list),
            agree.into(),
            m.test_class.unwrap_or("-").to_string(),
        ]);
    }
    print!("{}", t.render());
    println!("\norder (dependencies first): {}", Escaped(&list(s.order)));
    for c in s.cycles {
        println!("cycle: {}", Escaped(&c.join(" -> ")));
    }
    println!(
        "tests: {}",
        Escaped(&list(
            s.test_classes
                .iter()
                .map(|t| format!("{} ({})", t.name, t.tests))
        ))
    );
    let m = &s.skeleton_mismatch;
    if !m.only_in_solution.is_empty() || !m.only_in_skeleton.is_empty() {
        println!(
            "skeleton mismatch: only in solution: {}; only in skeleton: {}",
            Escaped(&list(&m.only_in_solution)),
            Escaped(&list(&m.only_in_skeleton))
        );
    }
    for n in s.notes {
        println!("note: {}", Escaped(n));
    }
}
