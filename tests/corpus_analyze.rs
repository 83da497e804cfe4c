//! `classlab analyze` runs on the corpus pipeline (issue 21, item 20): on the same tree it finds
//! exactly the classes, methods and dependency edges `corpus build` stores; and its human
//! output, like `corpus query`'s, never carries the input's control characters (item 14).

mod corpus_common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use corpus_common::{stdlib, write, write_shared_realclasseval};

fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_classlab"))
}

/// (path relative to the tree, line, qualified name) → (methods, edges).
type Classes = BTreeMap<(String, i64, String), (serde_json::Value, serde_json::Value)>;

fn analyzed(tree: &Path) -> Classes {
    let out = Command::new(bin())
        .args(["analyze", "--json"])
        .arg(tree)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut classes = Classes::new();
    for line in String::from_utf8(out.stdout).unwrap().lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let Some(file) = v["file"].as_str() else {
            continue;
        };
        let rel = Path::new(file)
            .strip_prefix(tree)
            .unwrap()
            .display()
            .to_string();
        classes.insert(
            (
                rel,
                v["line"].as_i64().unwrap(),
                v["class"].as_str().unwrap().into(),
            ),
            (v["methods"].clone(), v["edges"].clone()),
        );
    }
    classes
}

fn built(tree: &Path, db: &Path) -> Classes {
    let status = Command::new(bin())
        .args(["corpus", "build"])
        .arg(tree)
        .arg("--out")
        .arg(db)
        .output()
        .unwrap();
    assert!(
        status.status.success(),
        "{}",
        String::from_utf8_lossy(&status.stderr)
    );
    let out = Command::new(bin())
        .args(["--json", "corpus", "query"])
        .arg(db)
        .output()
        .unwrap();
    assert!(out.status.success());
    let mut classes = Classes::new();
    for line in String::from_utf8(out.stdout).unwrap().lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        classes.insert(
            (
                v["path"].as_str().unwrap().into(),
                v["line"].as_i64().unwrap(),
                v["qualname"].as_str().unwrap().into(),
            ),
            (v["methods"].clone(), v["edges"].clone()),
        );
    }
    classes
}

#[test]
fn analyze_and_corpus_build_agree_on_every_class() {
    let dir = tempfile::tempdir().unwrap();
    let tree = dir.path().join("tree");
    // The shared RealClassEval classes, a Latin-1 file, a partly broken one, properties.
    assert_eq!(write_shared_realclasseval(&tree), 24);
    write(
        &tree.join("misc/latin.py"),
        b"# -*- coding: latin-1 -*-\nclass Latin:\n    s = '\xe9'\n    def f(self):\n        return self.g()\n    def g(self):\n        pass\n",
    );
    write(
        &tree.join("misc/broken.py"),
        b"class Fine:\n    def f(self):\n        return 1\n\n\nclass Broken:\n    def f(self):\n        return 1 +\n",
    );
    write(
        &tree.join("misc/props.py"),
        b"class P:\n    @property\n    def x(self):\n        return self.y()\n    @x.setter\n    def x(self, v):\n        pass\n    def y(self):\n        return 1\n",
    );
    if let Some(lib) = stdlib() {
        for m in ["json", "email"] {
            let status = Command::new("cp")
                .arg("-r")
                .arg(lib.join(m))
                .arg(tree.join("stdlib"))
                .status();
            if status.is_err() {
                std::fs::create_dir_all(tree.join("stdlib")).unwrap();
            }
        }
    }
    let a = analyzed(&tree);
    let b = built(&tree, &dir.path().join("c.db"));
    assert!(a.len() >= 30, "{}", a.len());
    assert_eq!(a, b);
    let latin = a
        .iter()
        .find(|(k, _)| k.2 == "Latin")
        .expect("a Latin-1 file is read");
    assert_eq!(latin.1.1, serde_json::json!([["f", "g"]]));
    assert!(a.keys().any(|k| k.2 == "Fine") && !a.keys().any(|k| k.2 == "Broken"));
}

#[test]
fn names_with_control_characters_are_escaped_in_human_output() {
    let dir = tempfile::tempdir().unwrap();
    let tree = dir.path().join("tree");
    // A file name carrying a terminal title sequence and a forged result line.
    let nasty = "x\u{1b}]0;pwned\u{7}\nClassEval_1 Perfect.py";
    write(
        &tree.join("repo").join(nasty),
        b"class A:\n    def f(self):\n        pass\n",
    );
    let out = Command::new(bin())
        .arg("analyze")
        .arg(&tree)
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        !text.contains('\u{1b}') && !text.contains('\u{7}'),
        "{text:?}"
    );
    assert!(
        text.contains("x\\u{1b}]0;pwned\\u{7}\\nClassEval_1 Perfect.py:1  A"),
        "{text}"
    );
    assert!(
        !text.lines().any(|l| l.starts_with("ClassEval_1")),
        "{text}"
    );
    let db = dir.path().join("c.db");
    assert!(
        Command::new(bin())
            .args(["corpus", "build"])
            .arg(&tree)
            .arg("--out")
            .arg(&db)
            .status()
            .unwrap()
            .success()
    );
    let out = Command::new(bin())
        .args(["corpus", "query"])
        .arg(&db)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        !text.contains('\u{1b}') && text.lines().count() == 1,
        "{text:?}"
    );
    // JSON stays exact.
    let out = Command::new(bin())
        .args(["--json", "corpus", "query"])
        .arg(&db)
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["path"], serde_json::json!(format!("repo/{nasty}")));
}
