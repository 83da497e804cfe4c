use super::*;

type Names<'a> = &'a [&'a str];
type Entries<'a> = &'a [(&'a str, Names<'a>)];
type Edges<'a> = &'a [(&'a str, &'a str)];

fn set(names: &[&str]) -> BTreeSet<String> {
    names.iter().map(|n| n.to_string()).collect()
}

fn dep_map(entries: Entries) -> DepMap {
    entries
        .iter()
        .map(|(k, v)| (k.to_string(), set(v)))
        .collect()
}

fn names(names: &[&str]) -> Vec<String> {
    names.iter().map(|n| n.to_string()).collect()
}

fn edges(pairs: &[(&str, &str)]) -> Vec<[String; 2]> {
    pairs
        .iter()
        .map(|(a, b)| [a.to_string(), b.to_string()])
        .collect()
}

fn task(
    id: &str,
    methods: &[&str],
    truth: Entries,
    deps: Entries,
    order: Option<&[&str]>,
) -> TaskInput {
    TaskInput {
        task_id: id.to_string(),
        methods: names(methods),
        truth: dep_map(truth),
        predicted: Some(Prediction {
            deps: dep_map(deps),
            order: order.map(names),
        }),
    }
}

fn unpredicted(id: &str, methods: &[&str]) -> TaskInput {
    TaskInput {
        task_id: id.to_string(),
        methods: names(methods),
        ..TaskInput::default()
    }
}

fn close(actual: f64, expected: f64, what: &str) {
    assert!(
        (actual - expected).abs() < 1e-9,
        "{what}: got {actual}, expected {expected}"
    );
}

fn pct_sum(m: &Metrics) -> f64 {
    m.exact_pct + m.missing_only_pct + m.extra_only_pct + m.wrong_pct
}

/// Every number in the JSON must be finite, and nothing may be null (serde_json writes NaN as
/// null) — except the rates of metrics over no method, which must be null (issue 21 item 1:
/// a metric over zero items is `null`, never 0).
fn assert_json_clean(value: &serde_json::Value, path: &str) {
    const RATES: [&str; 7] = [
        "exact_pct",
        "missing_only_pct",
        "extra_only_pct",
        "wrong_pct",
        "macro",
        "micro",
        "class_accuracy",
    ];
    match value {
        serde_json::Value::Null => panic!("null (NaN?) at {path}"),
        serde_json::Value::Number(n) => {
            let f = n.as_f64().expect("number");
            assert!(f.is_finite(), "non-finite at {path}");
        }
        serde_json::Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                assert_json_clean(item, &format!("{path}[{i}]"));
            }
        }
        serde_json::Value::Object(map) => {
            let over_nothing =
                map.get("methods") == Some(&serde_json::json!(0)) && map.contains_key("exact_pct");
            for (k, v) in map {
                if over_nothing && RATES.contains(&k.as_str()) {
                    assert!(v.is_null(), "{path}.{k}: a rate over no method is null");
                } else {
                    assert_json_clean(v, &format!("{path}.{k}"));
                }
            }
        }
        _ => {}
    }
}

#[test]
fn category_and_per_method_prf() {
    // (case, G, P, category, precision, recall, f1)
    let cases: &[(&str, Names, Names, Category, f64, f64, f64)] = &[
        (
            "exact",
            &["a", "b"],
            &["a", "b"],
            Category::Exact,
            1.0,
            1.0,
            1.0,
        ),
        // p = 1/1, r = 1/2, f1 = 2*1*0.5/1.5 = 2/3
        (
            "missing-only",
            &["a", "b"],
            &["a"],
            Category::MissingOnly,
            1.0,
            0.5,
            2.0 / 3.0,
        ),
        // p = 1/2, r = 1/1, f1 = 2/3
        (
            "extra-only",
            &["a"],
            &["a", "b"],
            Category::ExtraOnly,
            0.5,
            1.0,
            2.0 / 3.0,
        ),
        // p = 1/2, r = 1/2, f1 = 1/2
        (
            "wrong, overlapping",
            &["a", "b"],
            &["a", "c"],
            Category::Wrong,
            0.5,
            0.5,
            0.5,
        ),
        // p = r = 0, so f1 = 0 (not NaN)
        (
            "wrong, disjoint",
            &["a"],
            &["c"],
            Category::Wrong,
            0.0,
            0.0,
            0.0,
        ),
        // P empty: precision 1 by convention, recall 0
        (
            "empty P",
            &["a", "b"],
            &[],
            Category::MissingOnly,
            1.0,
            0.0,
            0.0,
        ),
        // G empty: recall 1 by convention, precision 0
        ("empty G", &[], &["a"], Category::ExtraOnly, 0.0, 1.0, 0.0),
        ("both empty", &[], &[], Category::Exact, 1.0, 1.0, 1.0),
        // a self-dependency is an ordinary extra edge
        (
            "self-dependency",
            &["b"],
            &["b", "m"],
            Category::ExtraOnly,
            0.5,
            1.0,
            2.0 / 3.0,
        ),
    ];
    for &(case, g, p, category, precision, recall, f1) in cases {
        let s = score_method("m", &set(g), &set(p));
        assert_eq!(s.category, category, "{case}");
        close(s.precision, precision, case);
        close(s.recall, recall, case);
        close(s.f1, f1, case);
        // correct / missing / extra partition P ∪ G
        assert_eq!(s.correct.len() + s.missing.len(), g.len(), "{case}");
        assert_eq!(s.correct.len() + s.extra.len(), p.len(), "{case}");
    }
}

#[test]
fn method_lists_are_sorted_and_split() {
    let s = score_method("m", &set(&["z", "b", "a"]), &set(&["y", "a", "z"]));
    assert_eq!(s.truth, names(&["a", "b", "z"]));
    assert_eq!(s.predicted, names(&["a", "y", "z"]));
    assert_eq!(s.correct, names(&["a", "z"]));
    assert_eq!(s.missing, names(&["b"]));
    assert_eq!(s.extra, names(&["y"]));
}

#[test]
fn macro_and_micro_differ() {
    // a: G={b},       P={b} -> p=1, r=1,   f1=1
    // b: G={a,c,d,e}, P={}  -> p=1, r=0,   f1=0
    // c, d, e: G={}, P={}   -> p=1, r=1,   f1=1 each
    // macro: P = 5/5 = 1, R = 4/5 = 0.8, F1 = 4/5 = 0.8
    // micro: Σ|P∩G| = 1, Σ|P| = 1, Σ|G| = 5 -> P = 1, R = 0.2, F1 = 2*1*0.2/1.2 = 1/3
    let t = task(
        "t",
        &["a", "b", "c", "d", "e"],
        &[("a", &["b"]), ("b", &["a", "c", "d", "e"])],
        &[("a", &["b"])],
        None,
    );
    let m = score(&[t]).metrics;
    close(m.macro_avg.precision, 1.0, "macro p");
    close(m.macro_avg.recall, 0.8, "macro r");
    close(m.macro_avg.f1, 0.8, "macro f1");
    close(m.micro.precision, 1.0, "micro p");
    close(m.micro.recall, 0.2, "micro r");
    close(m.micro.f1, 1.0 / 3.0, "micro f1");
    assert_eq!(
        (m.edges_truth, m.edges_predicted, m.edges_correct),
        (5, 1, 1)
    );
}

#[test]
fn micro_uses_one_when_sums_are_empty() {
    // (case, truth, deps, micro precision, micro recall)
    let cases: &[(&str, Entries, Entries, f64, f64)] = &[
        ("nothing predicted", &[("a", &["b"])], &[], 1.0, 0.0),
        ("nothing true", &[], &[("a", &["b"])], 0.0, 1.0),
        ("nothing at all", &[], &[], 1.0, 1.0),
    ];
    for &(case, truth, deps, precision, recall) in cases {
        let m = score(&[task("t", &["a", "b"], truth, deps, None)]).metrics;
        close(m.micro.precision, precision, case);
        close(m.micro.recall, recall, case);
    }
}

#[test]
fn class_accuracy_and_fully_correct_across_three_tasks() {
    let t1 = task("t1", &["a", "b"], &[("a", &["b"])], &[("a", &["b"])], None); // 2/2 exact
    let t2 = task(
        "t2",
        &["a", "b", "c", "d"],
        &[("a", &["b"]), ("b", &["c"])],
        &[("b", &["c", "d"]), ("c", &["a"])],
        None,
    ); // a missing-only, b extra-only, c extra-only, d exact: 1/4
    let t3 = task(
        "t3",
        &["a", "b", "c"],
        &[("a", &["b"])],
        &[("a", &["c"]), ("b", &["a"]), ("c", &["a"])],
        None,
    ); // a wrong, b extra-only, c extra-only: 0/3
    let m = score(&[t1, t2, t3]).metrics;
    assert_eq!((m.tasks, m.methods), (3, 9));
    // (1 + 1/4 + 0) / 3 = 0.41666…, whereas exact methods / methods = 3/9
    close(m.class_accuracy, 1.25 / 3.0, "class accuracy");
    close(m.exact_pct, 100.0 * 3.0 / 9.0, "exact pct");
    assert_eq!(m.fully_correct_tasks, 1);
    assert_eq!(
        m.counts,
        CategoryCounts {
            exact: 3,
            missing_only: 1,
            extra_only: 4,
            wrong: 1
        }
    );
}

#[test]
fn regimes_split_methods_by_truth() {
    // t1: a (G={b}) exact, b (G={}) extra-only, c (G={a}) missing-only.
    // t2: x, y have no deps and are exact; it has no with-deps method, so it is skipped there.
    let t1 = task(
        "t1",
        &["a", "b", "c"],
        &[("a", &["b"]), ("c", &["a"])],
        &[("a", &["b"]), ("b", &["c"])],
        Some(&["c", "b", "a"]), // c before a: edge c->a violated
    );
    let t2 = task("t2", &["x", "y"], &[], &[], None);
    let report = score(&[t1, t2]);
    let (all, with, without) = (
        &report.metrics,
        &report.by_regime.with_deps,
        &report.by_regime.no_deps,
    );
    // (case, metrics, tasks, methods, exact, class accuracy, fully correct)
    let cases: &[(&str, &Metrics, usize, usize, usize, f64, usize)] = &[
        ("all", all, 2, 5, 3, (1.0 / 3.0 + 1.0) / 2.0, 1),
        ("with deps", with, 1, 2, 1, 0.5, 0),
        ("no deps", without, 2, 3, 2, (0.0 + 1.0) / 2.0, 1),
    ];
    for &(case, m, tasks, methods, exact, class_accuracy, fully) in cases {
        assert_eq!(
            (m.tasks, m.methods, m.counts.exact),
            (tasks, methods, exact),
            "{case}"
        );
        close(m.class_accuracy, class_accuracy, case);
        assert_eq!(m.fully_correct_tasks, fully, "{case}");
        assert_eq!(
            m.tasks_with_violations, 1,
            "{case} repeats the overall count"
        );
        close(pct_sum(m), 100.0, case);
    }
    assert_eq!(with.edges_truth, 2);
    assert_eq!(without.edges_truth, 0);
}

#[test]
fn topological_violations() {
    // a depends on b, b depends on c: a valid order is c, b, a.
    let truth: Entries = &[("a", &["b"]), ("b", &["c"])];
    // (case, order, violated edges, missing from order)
    let cases: &[(&str, Names, Edges, Names)] = &[
        ("correct order", &["c", "b", "a"], &[], &[]),
        ("b after a", &["a", "c", "b"], &[("a", "b")], &[]),
        ("dependency c omitted", &["b", "a"], &[("b", "c")], &["c"]),
        ("dependent a omitted", &["c", "b"], &[], &["a"]),
        (
            "empty order",
            &[],
            &[("a", "b"), ("b", "c")],
            &["a", "b", "c"],
        ),
        // a's first position (1) is before b (2); its later duplicate does not rescue it
        (
            "duplicate, first position counts",
            &["c", "a", "b", "a"],
            &[("a", "b")],
            &[],
        ),
        ("duplicate, harmless", &["c", "b", "c", "a", "b"], &[], &[]),
        ("unknown names ignored", &["ghost", "c", "b", "a"], &[], &[]),
    ];
    for &(case, order, violated, missing) in cases {
        let report = score(&[task("t", &["a", "b", "c"], truth, &[], Some(order))]);
        let ts = &report.tasks[0];
        assert!(ts.order_given, "{case}");
        assert_eq!(ts.violated_edges, edges(violated), "{case}");
        assert_eq!(
            ts.metrics.tasks_with_violations,
            usize::from(!violated.is_empty()),
            "{case}"
        );
        assert_eq!(
            report.metrics.tasks_with_violations,
            usize::from(!violated.is_empty()),
            "{case}"
        );
        if violated.is_empty() {
            assert!(report.violations.is_empty(), "{case}");
        } else {
            let v = &report.violations[0];
            assert_eq!(v.task_id, "t", "{case}");
            assert_eq!(v.order, names(order), "{case}");
            assert_eq!(v.violated_edges, edges(violated), "{case}");
            assert_eq!(v.missing_from_order, names(missing), "{case}");
        }
    }
}

#[test]
fn ground_truth_cycle_always_violates_one_edge() {
    let truth: Entries = &[("a", &["b"]), ("b", &["a"])];
    let cases: &[(Names, Edges)] = &[(&["a", "b"], &[("a", "b")]), (&["b", "a"], &[("b", "a")])];
    for &(order, violated) in cases {
        let ts = score_task(&task("t", &["a", "b"], truth, &[], Some(order))).unwrap();
        assert_eq!(ts.violated_edges, edges(violated), "{order:?}");
    }
}

#[test]
fn no_order_means_no_violations() {
    let report = score(&[task("t", &["a", "b"], &[("a", &["b"])], &[], None)]);
    assert!(!report.tasks[0].order_given);
    assert!(report.tasks[0].violated_edges.is_empty());
    assert!(report.violations.is_empty());
    assert_eq!(report.metrics.tasks_with_violations, 0);
}

#[test]
fn violations_list_only_offending_tasks_in_input_order() {
    let truth: Entries = &[("a", &["b"])];
    let tasks = [
        task("bad1", &["a", "b"], truth, &[], Some(&["a", "b"])),
        task("good", &["a", "b"], truth, &[], Some(&["b", "a"])),
        task("bad2", &["a", "b"], truth, &[], Some(&["a"])),
    ];
    let report = score(&tasks);
    let ids: Vec<&str> = report
        .violations
        .iter()
        .map(|v| v.task_id.as_str())
        .collect();
    assert_eq!(ids, ["bad1", "bad2"]);
    assert_eq!(report.metrics.tasks_with_violations, 2);
    assert_eq!(report.violations[1].missing_from_order, names(&["b"]));
}

#[test]
fn unknown_names_are_reported_and_still_scored() {
    let t = task(
        "t",
        &["a", "b"],
        &[],
        &[
            ("a", &["a", "ghost", "__init__"]),
            ("b", &[]),
            ("zzz", &["a"]),
        ],
        Some(&["a", "b", "phantom", "phantom"]),
    );
    let report = score(&[t]);
    let found: Vec<(&str, &str)> = report
        .unknown_names
        .iter()
        .map(|u| {
            assert_eq!(u.task_id, "t");
            (u.name.as_str(), u.context.as_str())
        })
        .collect();
    assert_eq!(
        found,
        [
            ("zzz", "key"),
            ("__init__", "dependency of a"),
            ("ghost", "dependency of a"),
            ("phantom", "order"),
        ],
        "the self-dependency `a` is a known name, so it is not listed"
    );
    let a = &report.tasks[0].methods[0];
    assert_eq!(a.category, Category::ExtraOnly);
    assert_eq!(a.extra, names(&["__init__", "a", "ghost"]));
    // The unknown key zzz is not scored as a method; its edge is not counted.
    assert_eq!(report.metrics.methods, 2);
    assert_eq!(report.metrics.edges_predicted, 3);
}

#[test]
fn unscored_tasks_are_reported_not_scored() {
    let scored = task(
        "t1",
        &["a", "b"],
        &[("a", &["b"])],
        &[("a", &["b"])],
        Some(&["b", "a"]),
    );
    let missing = unpredicted("t2", &["x", "y"]);
    let report = score(&[missing.clone(), scored.clone()]);
    assert_eq!(report.unscored_tasks, names(&["t2"]));
    assert_eq!(report.tasks.len(), 1);
    assert_eq!(
        report.metrics,
        score(&[scored]).metrics,
        "t2 must not count as empty"
    );
    assert_eq!(report.metrics.fully_correct_tasks, 1);
    assert_eq!(score_task(&missing), None);
}

#[test]
fn score_task_matches_report_entry() {
    let t = task(
        "t",
        &["a", "b", "c"],
        &[("a", &["b", "c"])],
        &[("a", &["b"]), ("c", &["a"])],
        Some(&["a", "b", "c"]),
    );
    let report = score(std::slice::from_ref(&t));
    let alone = score_task(&t).unwrap();
    assert_eq!(alone, report.tasks[0]);
    assert_eq!(
        alone.metrics, report.metrics,
        "one task: task metrics = report metrics"
    );
    let order: Vec<&str> = alone.methods.iter().map(|m| m.method.as_str()).collect();
    assert_eq!(order, ["a", "b", "c"], "skeleton order kept");
}

#[test]
fn percentages_sum_to_100() {
    // Each case gives, per method, (G, P); chosen to produce awkward thirds and sevenths.
    let cases: &[(&str, Names, Entries, Entries)] = &[
        (
            "one of each + exact",
            &["a", "b", "c", "d"],
            &[("a", &["b"]), ("c", &["a"]), ("d", &["a"])],
            &[("b", &["c"]), ("c", &["a"]), ("d", &["b"])],
        ),
        (
            "thirds",
            &["a", "b", "c"],
            &[("a", &["b"])],
            &[("b", &["c"])],
        ),
        (
            "sevenths",
            &["a", "b", "c", "d", "e", "f", "g"],
            &[("a", &["b"]), ("b", &["c"])],
            &[("a", &["c"]), ("g", &["a"])],
        ),
        ("all exact", &["a"], &[], &[]),
    ];
    for &(case, methods, truth, deps) in cases {
        let report = score(&[task("t", methods, truth, deps, None)]);
        for m in [
            &report.metrics,
            &report.by_regime.with_deps,
            &report.by_regime.no_deps,
        ] {
            if m.methods > 0 {
                close(pct_sum(m), 100.0, case);
            }
        }
    }
    let c = score(&[task(
        "t",
        &["a", "b", "c", "d"],
        &[("a", &["b"]), ("c", &["a"]), ("d", &["a"])],
        &[("b", &["c"]), ("c", &["a"]), ("d", &["b"])],
        None,
    )])
    .metrics
    .counts;
    assert_eq!(
        c,
        CategoryCounts {
            exact: 1,
            missing_only: 1,
            extra_only: 1,
            wrong: 1
        }
    );
}

#[test]
fn degenerate_inputs_give_zeros_and_clean_json() {
    let all_zero = |m: &Metrics, case: &str| {
        assert_eq!(
            (m.tasks, m.methods, m.fully_correct_tasks),
            (0, 0, 0),
            "{case}"
        );
        for f in [
            m.exact_pct,
            m.class_accuracy,
            m.macro_avg.f1,
            m.micro.precision,
            m.micro.recall,
        ] {
            assert_eq!(f, 0.0, "{case}");
        }
    };
    let cases: &[(&str, Vec<TaskInput>)] = &[
        ("empty input", vec![]),
        ("only unscored", vec![unpredicted("t", &["a"])]),
        (
            "task without methods",
            vec![task("t", &[], &[], &[("ghost", &["x"])], Some(&[]))],
        ),
    ];
    for (case, tasks) in cases {
        let report = score(tasks);
        all_zero(&report.metrics, case);
        all_zero(&report.by_regime.with_deps, case);
        all_zero(&report.by_regime.no_deps, case);
        let json = serde_json::to_value(&report).expect("serialises");
        assert_json_clean(&json, case);
        assert!(
            json["metrics"].get("macro").is_some_and(|m| m.is_null()),
            "macro renamed, or not null over no method: {case}"
        );
    }
    // A realistic report too: no regime may divide by zero (here with_deps is empty).
    let report = score(&[task("t", &["a", "b"], &[], &[("a", &["b"])], Some(&["a"]))]);
    assert_json_clean(&serde_json::to_value(&report).unwrap(), "no-deps only");
    let json = serde_json::to_value(&report.tasks[0].methods[0]).unwrap();
    assert_eq!(json["category"], "extra_only");
}

#[test]
fn messy_inputs_do_not_panic() {
    // Duplicate method names are scored once; truth keys outside `methods` are ignored;
    // empty names and truth edges to unknown names are tolerated.
    let t = task(
        "t",
        &["a", "a", "", "b"],
        &[
            ("a", &["b", "outside"]),
            ("not_a_method", &["a"]),
            ("", &["a"]),
        ],
        &[("", &["a"])],
        Some(&["", "b", "", "a"]),
    );
    let report = score(&[t]);
    assert_eq!(report.metrics.methods, 3);
    // Skeleton order a, "", b. a -> b fine; a -> outside is absent from the order;
    // "" -> a is broken because a comes after "".
    assert_eq!(
        report.tasks[0].violated_edges,
        edges(&[("a", "outside"), ("", "a")])
    );
    assert_eq!(
        report.tasks[0].methods[1].category,
        Category::Exact,
        "the empty name"
    );
}
