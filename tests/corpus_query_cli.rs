//! `corpus query --json` written straight from the rows is byte for byte what serialising each
//! `ClassLine` with serde_json prints (issue 21 item 21), on a real store (stdlib modules, a
//! tree with non-ASCII and control characters) and on one whose JSON columns were rewritten
//! in shapes the build never writes; and an unknown sort column (issue 21 item 18).

mod corpus_common;

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use classlab::analysis::metrics::METRIC_NAMES;
use classlab::corpus::{BuildOptions, Filter, Quiet, Sort, Store, build};
use corpus_common::{stdlib, write};

fn classlab() -> Command {
    let mut c = Command::cargo_bin("classlab").unwrap();
    c.env("NO_COLOR", "1");
    c
}

fn store(dir: &Path) -> PathBuf {
    let r = dir.join("tree");
    // A control character, DEL, a line separator and accents in the path; a non-ASCII class,
    // method names and a third-party import (deps, blockers).
    write(
        &r.join("ünï/ctl\u{1}\u{7f}\u{2028}é.py"),
        "import numpy\nimport os\n\nclass Café:\n    \"\"\"Tab\there, quote \" and \\\\.\"\"\"\n\n    def größe(self):\n        return self.naïve()\n\n    def naïve(self):\n        return numpy.zeros(os.cpu_count())\n\n\nclass Plain:\n    def f(self):\n        return 1\n"
            .as_bytes(),
    );
    let mut roots = vec![r];
    if let Some(lib) = stdlib() {
        // Not `json` and `email` whole: both have an `__init__.py`, and two roots with the same
        // relative path collide in `files` (a build bug reported separately).
        roots.push(lib.join("email"));
        roots.push(lib.join("json").join("decoder.py"));
    }
    let out = dir.join("s.db");
    build(&BuildOptions::new(roots, out.clone()), &Quiet).unwrap();
    out
}

/// Both paths over the same query: the `ClassLine` serialised by serde_json, and the rows.
fn both(store: &Store, filter: &str, sort: &Sort, limit: Option<u64>) -> (String, String) {
    let filter = Filter::parse(filter).unwrap();
    let mut old = String::new();
    store
        .for_each_line(&filter, sort, 0, limit, |l| {
            old.push_str(&serde_json::to_string(&l)?);
            old.push('\n');
            Ok(())
        })
        .unwrap();
    let mut new = Vec::new();
    store
        .write_json_lines(&filter, sort, 0, limit, &mut new)
        .unwrap();
    (old, String::from_utf8(new).unwrap())
}

fn assert_same(old: &str, new: &str) {
    assert_eq!(old.lines().count(), new.lines().count());
    for (o, n) in old.lines().zip(new.lines()) {
        assert_eq!(o, n);
    }
    assert_eq!(old, new);
}

#[test]
fn json_lines_from_rows_are_serde_jsons_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let path = store(dir.path());
    let s = Store::open(&path).unwrap();
    let (old, new) = both(&s, "", &Sort::default(), None);
    assert_same(&old, &new);
    assert!(new.lines().count() >= 3, "{new}");
    // What the comparison covers: ids above 2^53 (as strings), escaped controls, raw UTF-8.
    let big = new.lines().filter(|l| {
        let v: serde_json::Value = serde_json::from_str(l).unwrap();
        v["id"]
            .as_str()
            .unwrap()
            .parse::<i64>()
            .unwrap()
            .unsigned_abs()
            > 1 << 53
    });
    assert!(big.count() > 0);
    assert!(new.contains("ctl\\u0001\u{7f}\u{2028}é.py"), "{new}");
    assert!(new.contains("\"class\":\"Café\""));
    assert!(new.contains("größe") && new.contains("third-party: numpy"));
    // Sorted, descending, limited.
    let sort = Sort {
        column: Some("SumCyclomatic".into()),
        descending: true,
    };
    let (old, new) = both(&s, "methods>=1", &sort, Some(7));
    assert_same(&old, &new);
    assert_eq!(new.lines().count(), 7);

    // The CLI prints the same bytes.
    let out = classlab()
        .args(["--json", "corpus", "query"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let (old, _) = both(&s, "", &Sort::default(), None);
    assert_eq!(String::from_utf8(out.stdout).unwrap(), old);
}

#[test]
fn json_columns_the_build_never_writes_print_as_serde_json_reads_them() {
    let dir = tempfile::tempdir().unwrap();
    let path = store(dir.path());
    let tampered = [
        // (methods, edges, deps, blockers)
        (
            r#" [ "a" , "b" ] "#,
            r#" [ [ "a" , "b" ] ] "#,
            r#"{ "z": [ ], "a": ["x"] }"#,
            "[]",
        ),
        (
            r#"["\u0041\/", "é\n"]"#,
            r#"[["\u00e9", "b"], ["c"]]"#,
            r#"{"stdlib":["x"],"third_party":[],"stdlib":["y"]}"#,
            r#"["\u0041"]"#,
        ),
        ("not json", "not json", "not json", "{}"),
        (
            "[1, 2]",
            "[[1, 2.50, 1e3]]",
            r#"{"k": {"n": [1.0, -0]}}"#,
            "[null]",
        ),
        ("[]", "{}", r#"{"a":["b"]} trailing"#, r#"["a", 1]"#),
    ];
    let s = Store::open(&path).unwrap();
    let (base, _) = both(&s, "", &Sort::default(), None);
    drop(s);
    for (methods, edges, deps, blockers) in tampered {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute(
            "UPDATE class_lists SET methods = ?1, edges = ?2, deps = ?3",
            [methods, edges, deps],
        )
        .unwrap();
        conn.execute("UPDATE classes SET blockers = ?1", [blockers])
            .unwrap();
        drop(conn);
        let s = Store::open(&path).unwrap();
        let (old, new) = both(&s, "", &Sort::default(), None);
        assert_ne!(old, base, "{edges}: the columns were not rewritten");
        assert_same(&old, &new);
    }
}

#[test]
fn an_unknown_sort_column_is_a_usage_error_listing_the_columns() {
    let dir = tempfile::tempdir().unwrap();
    let path = store(dir.path());
    let out = classlab()
        .args(["corpus", "query"])
        .arg(&path)
        .args(["--sort", "Bogus"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--sort Bogus"), "{err}");
    for col in METRIC_NAMES
        .iter()
        .chain(&["n_methods", "doc", "end_line", "tokens"])
    {
        assert!(err.contains(col), "`{col}` missing from: {err}");
    }
    assert!(out.stdout.is_empty());
    // A valid one still sorts.
    classlab()
        .args(["corpus", "query"])
        .arg(&path)
        .args(["--sort", "CountLine", "--desc"])
        .assert()
        .success();
}
