use super::*;

fn python() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join("python3"))
        .find(|p| p.is_file())
}

#[test]
fn module_names() {
    let cases = [
        ("numpy", true),
        ("_thread", true),
        ("PyPDF2", true),
        ("", false),
        ("1x", false),
        ("a.b", false),
        ("-c", false),
        ("x; import os", false),
    ];
    for (name, want) in cases {
        assert_eq!(is_module_name(name), want, "{name:?}");
    }
}

#[test]
fn asks_only_about_names_never_asked() {
    use std::os::unix::fs::PermissionsExt;
    // A stand-in interpreter that logs the names it is asked about and says `gone` is
    // missing.
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("calls");
    let fake = dir.path().join("python3");
    std::fs::write(
        &fake,
        format!(
            "#!/bin/sh\nshift 3\necho \"$*\" >> '{}'\necho '[\"gone\"]'\n",
            log.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let gone = BTreeSet::from(["gone".to_string()]);
    // (names asked for, missing among them)
    let cases: [(&[&str], BTreeSet<String>); 4] = [
        (&["here", "gone", "here"], gone.clone()),
        (&["gone", "here"], gone.clone()),
        (&["new", "gone", "bad name"], gone.clone()),
        (&["here"], BTreeSet::new()),
    ];
    for (names, want) in cases {
        assert_eq!(
            missing_modules(&fake, names.iter().copied()).unwrap(),
            want,
            "{names:?}"
        );
    }
    let calls = std::fs::read_to_string(&log).unwrap();
    assert_eq!(calls, "gone here\nnew\n");
}

#[test]
fn a_tasks_context_is_verified_against_the_interpreter() {
    use std::os::unix::fs::PermissionsExt;
    // A stand-in interpreter that lacks nltk and whatever else it is asked about that
    // starts with `snippet`.
    let dir = tempfile::tempdir().unwrap();
    let fake = dir.path().join("python3");
    std::fs::write(
            &fake,
            "#!/bin/sh\nshift 3\nprintf '['\nsep=''\nfor m in \"$@\"; do case $m in nltk|snippet*) printf '%s\"%s\"' \"$sep\" \"$m\"; sep=',';; esac; done\necho ']'\n",
        )
        .unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let task = Task {
        imports: vec!["import nltk".into(), "import numpy as np".into()],
        test_module: "import unittest\nfrom snippet_3 import Thing\n".into(),
        test_layout: TestLayout::Module {
            code_module: "snippet_3".into(),
            test_file: "test_snippet_3.py".into(),
        },
        ..Task::default()
    };
    let names = |s: &BTreeSet<String>| s.iter().cloned().collect::<Vec<_>>();
    let ctx = context_in(&task, Some(&fake));
    // The code's own module is not the task's need.
    assert_eq!(names(&ctx.task_modules), ["nltk", "numpy", "unittest"]);
    assert_eq!(names(&ctx.missing_modules), ["nltk"]);
    // No interpreter: nothing verified missing.
    let unverified = context_in(&task, None);
    assert_eq!(unverified.task_modules, ctx.task_modules);
    assert!(unverified.missing_modules.is_empty());
    // An interpreter that cannot be asked verifies nothing either.
    let broken = context_in(&task, Some(Path::new("/nonexistent/python3")));
    assert!(broken.missing_modules.is_empty());
}

#[test]
fn the_warning_does_not_advise_provisioning_the_environment_already_in_use() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    // Two stand-in interpreters that both lack netifaces: the project's and another.
    let project = dir.path().join(".python/classeval/bin/python");
    let other = dir.path().join("elsewhere/python3");
    for fake in [&project, &other] {
        std::fs::create_dir_all(fake.parent().unwrap()).unwrap();
        std::fs::write(fake, "#!/bin/sh\necho '[\"netifaces\"]'\n").unwrap();
        std::fs::set_permissions(fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let dataset = crate::dataset::Dataset {
        name: "d".into(),
        origin: "d.json".into(),
        format: crate::dataset::Format::ClassEval,
        tasks: vec![Task {
            id: "ClassEval_48".into(),
            skeleton: "import socket\nimport netifaces\n".into(),
            ..Task::default()
        }],
        problems: Vec::new(),
    };
    let warn = |python: &Path| missing_warning(python, &dataset).expect("a warning");
    let elsewhere = warn(&other);
    assert!(
        elsewhere.contains("netifaces (ClassEval_48)"),
        "{elsewhere}"
    );
    assert!(
        elsewhere.contains("scripts/setup-python.sh classeval"),
        "{elsewhere}"
    );
    let in_project = warn(&project);
    assert!(
        in_project.contains("netifaces (ClassEval_48)"),
        "{in_project}"
    );
    assert!(!in_project.contains("setup-python"), "{in_project}");
    assert!(in_project.contains("metrics_official"), "{in_project}");
}

#[test]
fn the_project_environment_follows_the_dataset() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (None, ProjectEnv::ClassEval),
        (Some(dir.path().to_path_buf()), ProjectEnv::ClassEval),
        (
            Some(dir.path().join("ClassEval_data.json")),
            ProjectEnv::ClassEval,
        ),
    ];
    for (dataset, want) in cases {
        assert_eq!(
            ProjectEnv::for_dataset(dataset.as_deref()),
            want,
            "{dataset:?}"
        );
    }
    std::fs::write(dir.path().join("classes_full_docstr.csv"), "id\n").unwrap();
    assert_eq!(
        ProjectEnv::for_dataset(Some(dir.path())),
        ProjectEnv::RealClassEval
    );
    // A forged dataset runs where its tests were validated.
    let forged = dir.path().join("forged.json");
    let task = |exe: &str| {
        serde_json::json!({"format": "classlab", "tasks": [
            {"task_id": "snippet_1", "provenance": {"forge": {"python": {"executable": exe}}}}]})
        .to_string()
    };
    std::fs::write(&forged, task("/x/.python/realclasseval/bin/python")).unwrap();
    assert_eq!(
        ProjectEnv::for_dataset(Some(&forged)),
        ProjectEnv::RealClassEval
    );
    std::fs::write(&forged, task("/x/.python/classeval/bin/python")).unwrap();
    assert_eq!(
        ProjectEnv::for_dataset(Some(&forged)),
        ProjectEnv::ClassEval
    );
    std::fs::write(&forged, "[{\"task_id\": \"ClassEval_0\"}]").unwrap();
    assert_eq!(
        ProjectEnv::for_dataset(Some(&forged)),
        ProjectEnv::ClassEval
    );
    assert_eq!(
        ProjectEnv::RealClassEval.rel_dir(),
        Path::new(".python/realclasseval")
    );
    assert_eq!(
        ProjectEnv::ClassEval.setup_command(),
        "scripts/setup-python.sh classeval"
    );
}

#[test]
fn missing_modules_are_described_with_their_tasks() {
    let missing = BTreeMap::from([
        ("rich".to_string(), vec!["snippet_36".to_string()]),
        (
            "claude_monitor".to_string(),
            (1..=5).map(|i| format!("snippet_{i}")).collect(),
        ),
    ]);
    assert_eq!(
        describe_missing(&missing, 3),
        "claude_monitor (snippet_1, snippet_2, snippet_3, … 2 more); rich (snippet_36)"
    );
}

#[test]
fn a_real_interpreter() {
    let Some(python) = python() else {
        eprintln!("no python3 on PATH: skipped");
        return;
    };
    let absent = "classlab_surely_absent_module_x9";
    let got = missing_modules(&python, ["json", absent, "os"]).unwrap();
    assert_eq!(got, BTreeSet::from([absent.to_string()]));
}

#[test]
fn an_interpreter_that_cannot_be_asked_verifies_nothing() {
    let bogus = Path::new("/nonexistent/classlab/python3");
    assert!(missing_modules(bogus, ["nltk"]).is_err());
    assert!(!state().answers.contains_key(bogus));
}
