//! Integration tests on the real ClassEval file (`../shared/data/classeval/ClassEval_data.json`).

mod common;

use std::collections::{BTreeMap, BTreeSet};

use classlab::analysis::{analyze_task, parse_module};
use classlab::dataset;

fn load() -> dataset::Dataset {
    dataset::load_path(&common::classeval_json()).expect("ClassEval loads")
}

#[test]
fn loads_100_tasks_and_410_methods_without_problems() {
    let ds = load();
    assert_eq!(ds.format, dataset::Format::ClassEval);
    assert_eq!(ds.tasks.len(), 100);
    assert_eq!(ds.method_count(), 410);
    assert!(ds.problems.is_empty(), "{:?}", ds.problems);
    // Every task's reference class is found and parses.
    for task in &ds.tasks {
        let a = analyze_task(task);
        assert!(a.class.is_some(), "{}: {:?}", task.id, a.notes);
        assert!(a.solution.parses(), "{}", task.id);
    }
}

/// Tasks whose own skeleton disagrees with their reference: curation findings, each explained.
const SKELETON_INCONSISTENT: &[(&str, &str)] = &[
    (
        "ClassEval_5",
        "the whole skeleton is wrapped in a ''' string literal: it defines no class",
    ),
    (
        "ClassEval_22",
        "an unterminated docstring in the skeleton swallows the last three methods",
    ),
    (
        "ClassEval_25",
        "the reference defines set_cookies, which the skeleton lacks",
    ),
    (
        "ClassEval_49",
        "the reference defines matches_requirements, which the skeleton lacks",
    ),
];

#[test]
fn generated_skeletons_reproduce_the_dataset_skeleton_method_sets() {
    let ds = load();
    let mut inconsistent = Vec::new();
    for task in &ds.tasks {
        let a = analyze_task(task);
        // The skeleton we generate from the reference parses and keeps its method set.
        let generated = parse_module(&a.generated_skeleton);
        assert!(
            generated.parses(),
            "{}: generated skeleton does not parse:\n{}",
            task.id,
            a.generated_skeleton
        );
        let gen_methods: BTreeSet<&str> = generated
            .class(&task.class_name)
            .map(|c| {
                c.method_names()
                    .into_iter()
                    .filter(|n| *n != "__init__")
                    .collect()
            })
            .unwrap_or_default();
        let solution: BTreeSet<&str> = a.solution_methods.iter().map(String::as_str).collect();
        assert_eq!(gen_methods, solution, "{}", task.id);
        // … and that set equals the dataset skeleton's, except where the dataset is inconsistent.
        let skeleton: BTreeSet<&str> = a.skeleton_methods.iter().map(String::as_str).collect();
        if gen_methods != skeleton {
            inconsistent.push(task.id.clone());
        }
    }
    let expected: Vec<&str> = SKELETON_INCONSISTENT.iter().map(|(id, _)| *id).collect();
    assert_eq!(inconsistent, expected);
}

fn edges(task_id: &str) -> BTreeMap<String, Vec<String>> {
    let ds = load();
    let task = ds.task(task_id).unwrap();
    let a = analyze_task(task);
    a.graph
        .deps
        .iter()
        .filter(|(_, v)| !v.is_empty())
        .map(|(k, v)| (k.clone(), v.iter().cloned().collect()))
        .collect()
}

fn expect(pairs: &[(&str, &[&str])]) -> BTreeMap<String, Vec<String>> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.iter().map(|s| s.to_string()).collect()))
        .collect()
}

/// Edges checked by reading each reference solution by hand.
#[test]
fn extracted_graphs_match_hand_inspection() {
    // filter calls the three helpers; nothing else calls a target method.
    assert_eq!(
        edges("ClassEval_0"),
        expect(&[(
            "filter",
            &[
                "get_jwt_user",
                "is_start_with",
                "set_current_user_info_and_log"
            ]
        )])
    );
    // Dunder accessors all go through _convert_key, which calls the static _to_camel_case.
    assert_eq!(
        edges("ClassEval_18"),
        expect(&[
            ("__delitem__", &["_convert_key"]),
            ("__getitem__", &["_convert_key"]),
            ("__setitem__", &["_convert_key"]),
            ("_convert_key", &["_to_camel_case"]),
        ])
    );
    // A name-mangled static helper, reached as self.__format_line_feed.
    assert_eq!(
        edges("ClassEval_44"),
        expect(&[
            ("extract_code_from_html_text", &["format_line_html_text"]),
            ("format_line_html_text", &["__format_line_feed"]),
        ])
    );
    assert_eq!(
        edges("ClassEval_65"),
        expect(&[
            ("format", &["format_string"]),
            ("format_string", &["parse_more", "trans_three", "trans_two"]),
            ("trans_three", &["trans_two"]),
        ])
    );
    assert_eq!(
        edges("ClassEval_77"),
        expect(&[
            ("eat_food", &["random_food_position"]),
            ("move", &["eat_food", "reset"]),
            ("reset", &["random_food_position"]),
        ])
    );
}

#[test]
fn topological_orders_put_dependencies_first_with_skeleton_ties() {
    let ds = load();
    let order = |id: &str| analyze_task(ds.task(id).unwrap()).order;
    assert_eq!(
        order("ClassEval_65"),
        [
            "trans_two",
            "trans_three",
            "parse_more",
            "format_string",
            "format"
        ]
    );
    assert_eq!(
        order("ClassEval_77"),
        ["random_food_position", "reset", "eat_food", "move"]
    );
    // No ClassEval class has a dependency cycle between distinct methods.
    assert!(ds.tasks.iter().all(|t| analyze_task(t).cycles.is_empty()));
}

#[test]
fn extracted_dependencies_total_125_edges() {
    let ds = load();
    let total: usize = ds
        .tasks
        .iter()
        .map(|t| analyze_task(t).graph.edge_count())
        .sum();
    assert_eq!(total, 125);
}
