//! Curation targets on the real ClassEval file (`../shared/data/classeval/ClassEval_data.json`,
//! skipped when absent): every piece a reviewer can edit round-trips to no edit, and editing
//! one docstring or one test class changes exactly that piece wherever the task holds it.

use std::path::PathBuf;

use classlab::analysis::parse_module;
use classlab::curate::TaskEdits;
use classlab::curate::targets::{
    Target, draft_from_doctests, private_tests, promote, set, targets, text,
};
use classlab::dataset;
use classlab::model::Task;

fn classeval() -> Option<Vec<Task>> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/data/classeval/ClassEval_data.json");
    if !path.exists() {
        eprintln!("skipped: {} is absent", path.display());
        return None;
    }
    let ds = dataset::load_path(&path).expect("ClassEval loads");
    assert_eq!(ds.tasks.len(), 100);
    Some(ds.tasks)
}

/// Byte range of the docstring literal of `method` in class `class` of `src`.
fn doc_range(src: &str, class: &str, method: &str) -> Option<(usize, usize)> {
    parse_module(src)
        .class(class)?
        .method(method)?
        .docstring_bytes
}

/// `new` is `old` with only `range` of `old` replaced.
fn only_range_changed(old: &str, new: &str, (start, end): (usize, usize)) -> bool {
    new.len() >= start + (old.len() - end)
        && new.starts_with(&old[..start])
        && new.ends_with(&old[end..])
}

#[test]
fn every_target_set_to_its_own_text_is_no_edit() {
    let Some(tasks) = classeval() else { return };
    let mut checked = 0;
    for task in &tasks {
        for target in targets(task) {
            let now = text(task, &target);
            let delta = set(task, &TaskEdits::default(), &target, now.clone())
                .unwrap_or_else(|e| panic!("{} {}: {e}", task.id, target.label()));
            assert!(
                delta.is_empty(),
                "{} {}: {delta:?}",
                task.id,
                target.label()
            );
            // An editor adds a final newline: still no edit.
            let delta = set(task, &TaskEdits::default(), &target, format!("{now}\n")).unwrap();
            assert!(delta.is_empty(), "{} {} + \\n", task.id, target.label());
            checked += 1;
        }
    }
    assert_eq!(checked, 100 * 3 + 410 * 3);
}

#[test]
fn editing_one_docstring_changes_exactly_that_docstring() {
    let Some(tasks) = classeval() else { return };
    let mut in_skeleton = 0;
    let mut in_solution = 0;
    let mut refused = Vec::new();
    for task in &tasks {
        for m in &task.methods {
            let target = Target::Docstring(m.name.clone());
            let before = text(task, &target);
            let what = format!("{} {}", task.id, m.name);
            let after = format!("{before}\nReviewed: the example above is checked.");
            let delta = match set(task, &TaskEdits::default(), &target, after.clone()) {
                Ok(delta) => delta,
                Err(e) => {
                    // Only a docstring broken in the skeleton cannot be edited alone.
                    assert!(e.contains("edit the skeleton"), "{what}: {e}");
                    assert!(!parse_module(&task.skeleton).parses(), "{what}");
                    refused.push(what);
                    continue;
                }
            };
            assert!(!before.is_empty(), "{what}");
            let edited = delta.apply(task);
            assert_eq!(text(&edited, &target), after, "{what}");

            // Skeleton: that literal alone changed, and it still parses.
            match doc_range(&task.skeleton, &task.class_name, &m.name) {
                Some(range) => {
                    in_skeleton += 1;
                    assert!(
                        only_range_changed(&task.skeleton, &edited.skeleton, range),
                        "{what}"
                    );
                    assert_ne!(edited.skeleton, task.skeleton, "{what}");
                    if parse_module(&task.skeleton).parses() {
                        assert!(parse_module(&edited.skeleton).parses(), "{what}");
                    }
                    let doc = parse_module(&edited.skeleton)
                        .class(&task.class_name)
                        .and_then(|c| c.method(&m.name))
                        .and_then(|d| d.docstring.clone())
                        .unwrap();
                    assert!(doc.contains("Reviewed: the example"), "{what}");
                }
                None => assert_eq!(edited.skeleton, task.skeleton, "{what}"),
            }
            // Descriptions: this one holds the new docstring (signature kept), others untouched.
            for (o, e) in task.methods.iter().zip(&edited.methods) {
                if o.name == m.name {
                    assert!(e.description.contains("Reviewed: the example"), "{what}");
                    let sig = o.description.lines().next().unwrap();
                    assert!(e.description.starts_with(sig), "{what}");
                    let kept = o.description.trim_end().trim_end_matches("\"\"\"");
                    let kept = kept.trim_end_matches("'''").trim_end();
                    assert!(e.description.starts_with(kept), "{what}");
                } else {
                    assert_eq!(e.description, o.description, "{what}: {}", o.name);
                    assert_eq!(e.solution, o.solution, "{what}: {}", o.name);
                }
            }
            // The solution follows when it had the same docstring; only that literal.
            if edited.solution != task.solution {
                in_solution += 1;
                let range = doc_range(&task.solution, &task.class_name, &m.name).unwrap();
                assert!(
                    only_range_changed(&task.solution, &edited.solution, range),
                    "{what}"
                );
                assert!(parse_module(&edited.solution).parses(), "{what}");
            }
            assert_eq!(edited.test_module, task.test_module, "{what}");
            // Restoring the text undoes the edit.
            let undone = set(task, &delta, &target, before).unwrap();
            assert!(undone.is_empty(), "{what}: {undone:?}");
        }
    }
    // Skeletons with a broken docstring: unterminated (22), curly quotes (43, 46).
    assert_eq!(
        refused,
        [
            "ClassEval_22 register_class",
            "ClassEval_43 list_employees",
            "ClassEval_46 interpolate_2d"
        ]
    );
    assert!(in_skeleton >= 380, "{in_skeleton}");
    // ClassEval's reference solutions carry almost no docstrings (the unit tests cover a
    // solution that shares the skeleton's).
    assert!(in_solution <= 4, "{in_solution}");
}

#[test]
fn editing_one_test_class_changes_it_in_the_test_module_too() {
    let Some(tasks) = classeval() else { return };
    for task in &tasks {
        for m in &task.methods {
            let target = Target::TestClass(m.name.clone());
            let before = text(task, &target);
            let after = format!(
                "{}\n\n    def test_reviewed(self):\n        self.assertTrue(True)\n",
                before.trim_end()
            );
            let what = format!("{} {}", task.id, m.name);
            let delta = set(task, &TaskEdits::default(), &target, after.clone())
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            let edited = delta.apply(task);
            let em = edited.method(&m.name).unwrap();
            assert!(em.test_code.contains("def test_reviewed"), "{what}");
            let old = parse_module(&task.test_module);
            let new = parse_module(&edited.test_module);
            assert!(new.parses(), "{what}");
            assert_eq!(new.classes.len(), old.classes.len(), "{what}");
            for (o, n) in old.classes.iter().zip(&new.classes) {
                let o_src = &task.test_module[o.start_byte..o.end_byte];
                let n_src = &edited.test_module[n.start_byte..n.end_byte];
                if Some(&o.name) == m.test_class.as_ref() {
                    assert_eq!(n_src, after.trim_end(), "{what}");
                } else {
                    assert_eq!(n_src, o_src, "{what}: {}", o.name);
                }
            }
            // Editing the module back gives back the test class too, and so no edit.
            let undone = set(task, &delta, &Target::Tests, task.test_module.clone()).unwrap();
            assert!(undone.is_empty(), "{what}: {undone:?}");
        }
    }
}

#[test]
fn drafted_and_promoted_public_tests_are_accepted_as_public_tests() {
    let Some(tasks) = classeval() else { return };
    let (mut drafted, mut promoted) = (0, 0);
    for task in &tasks {
        for m in &task.methods {
            let what = format!("{} {}", task.id, m.name);
            let target = Target::PublicTests(m.name.clone());
            if let Some(code) = draft_from_doctests(task, &m.name) {
                drafted += 1;
                let delta = set(task, &TaskEdits::default(), &target, code.clone())
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                assert_eq!(text(&delta.apply(task), &target), code, "{what}");
            }
            let names = private_tests(task, &m.name);
            if names.is_empty() {
                // ClassEval_69's merge_pdfs test class has fixtures but no test.
                assert_eq!(what, "ClassEval_69 merge_pdfs");
                assert!(promote(task, &m.name, &["test_x".into()]).is_err());
                continue;
            }
            let chosen = vec![names[names.len() - 1].clone()];
            let code = promote(task, &m.name, &chosen).unwrap_or_else(|e| panic!("{what}: {e}"));
            let module = parse_module(&code);
            assert!(module.parses(), "{what}");
            let kept: Vec<&str> = module
                .classes
                .iter()
                .flat_map(|c| c.method_names())
                .filter(|n| n.starts_with("test"))
                .collect();
            assert_eq!(kept, [chosen[0].as_str()], "{what}");
            set(task, &TaskEdits::default(), &target, code)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            promoted += 1;
        }
    }
    assert_eq!(promoted, 409);
    assert!(drafted >= 350, "{drafted}");
}
