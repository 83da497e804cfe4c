//! `classlab corpus dates`: a real git repository made here with libgit2 (several commits at
//! set times, a class added later, a class moved to another file, a class's bases changed, two
//! commits of one second, a merged side branch, an uncommitted class) beside a directory that is
//! no repository; the exact dates and commits each class gets, in the store and through `corpus
//! export`; a rerun skips the unchanged repository, and a new commit is dated after a rebuild.

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use assert_cmd::Command;
use common::ok_json;
use git2::{Oid, Repository, Signature, Time};
use serde_json::Value;

/// 2019-03-01 12:00:00 UTC, and the days after it.
const T0: i64 = 1_551_441_600;
const DAY: i64 = 86_400;

fn classlab() -> Command {
    let mut c = Command::cargo_bin("classlab").unwrap();
    c.env("NO_COLOR", "1");
    c
}

/// `corpus build ROOT --out STORE`, checked to succeed.
fn build(root: &Path, store: &Path) -> Value {
    ok_json(
        classlab()
            .args(["--json", "corpus", "build"])
            .arg(root)
            .arg("--out")
            .arg(store)
            .output()
            .unwrap(),
    )
}

/// `corpus dates STORE`: its JSON summary.
fn date(store: &Path) -> Value {
    ok_json(
        classlab()
            .args(["--json", "corpus", "dates"])
            .arg(store)
            .output()
            .unwrap(),
    )
}

/// Commit the work tree's `files` (path → text; `None` removes it) at `time` on HEAD's
/// branch, with `extra_parent` for a merge.
fn commit(repo: &Repository, files: &[(&str, Option<&str>)], time: i64, parents: &[Oid]) -> Oid {
    let root = repo.workdir().unwrap();
    let mut index = repo.index().unwrap();
    for (path, text) in files {
        match text {
            Some(text) => {
                let file = root.join(path);
                std::fs::create_dir_all(file.parent().unwrap()).unwrap();
                std::fs::write(&file, text).unwrap();
                index.add_path(Path::new(path)).unwrap();
            }
            None => {
                std::fs::remove_file(root.join(path)).unwrap();
                index.remove_path(Path::new(path)).unwrap();
            }
        }
    }
    index.write().unwrap();
    let tree = repo.find_tree(index.write_tree().unwrap()).unwrap();
    let sig = Signature::new("Dev", "dev@example.org", &Time::new(time, 0)).unwrap();
    let parents: Vec<git2::Commit> = parents
        .iter()
        .map(|p| repo.find_commit(*p).unwrap())
        .collect();
    let refs: Vec<&git2::Commit> = parents.iter().collect();
    repo.commit(Some("HEAD"), &sig, &sig, "change", &tree, &refs)
        .unwrap()
}

/// A class's row: first_seen, commit, reason.
type DateRow = (Option<i64>, Option<String>, Option<String>);

/// Each class's row from the store, by qualified name.
fn dates_of(store: &Path) -> BTreeMap<String, DateRow> {
    let conn = rusqlite::Connection::open(store).unwrap();
    let mut stmt = conn
        .prepare(
            "SELECT c.qualname, d.first_seen, d.commit_id, d.reason FROM classes c
             JOIN class_dates d ON d.id = c.id",
        )
        .unwrap();
    stmt.query_map([], |r| Ok((r.get(0)?, (r.get(1)?, r.get(2)?, r.get(3)?))))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

#[test]
fn classes_are_dated_by_the_commit_that_first_holds_their_line() {
    let dir = tempfile::tempdir().unwrap();
    let repos = dir.path().join("repos");
    let proj = repos.join("proj");
    let repo = Repository::init(&proj).unwrap();
    let c1 = commit(
        &repo,
        &[
            (
                "pkg/a.py",
                Some("class A:\n    def f(self):\n        return 1\n"),
            ),
            ("pkg/b.py", Some("class Moved:\n    pass\n")),
        ],
        T0,
        &[],
    );
    let c2 = commit(
        &repo,
        &[(
            "pkg/a.py",
            Some("class A:\n    def f(self):\n        return 1\n\n\nclass B(A):\n    pass\n"),
        )],
        T0 + 10 * DAY,
        &[c1],
    );
    // Another commit in the same second (a rebase): B was there before it.
    let c2b = commit(
        &repo,
        &[(
            "pkg/a.py",
            Some("class A:\n    def f(self):\n        return 1\n\n\nclass B(A):\n    x = 1\n"),
        )],
        T0 + 10 * DAY,
        &[c2],
    );
    // The class moves to another file, and A's bases change (A is not new for that).
    let c3 = commit(
        &repo,
        &[
            ("pkg/b.py", None),
            ("pkg/c.py", Some("class Moved:\n    pass\n")),
            (
                "pkg/a.py",
                Some(
                    "class A(object):\n    def f(self):\n        return 1\n\n\nclass B(A):\n    pass\n",
                ),
            ),
        ],
        T0 + 400 * DAY,
        &[c2b],
    );
    // A side branch writes `Side` on day 500; the main line moves on day 600 and merges it on
    // day 700: `Side` is dated by the branch's commit.
    let side = {
        let sig = Signature::new("Dev", "dev@example.org", &Time::new(T0 + 500 * DAY, 0)).unwrap();
        let blob = repo.blob(b"class Side:\n    pass\n").unwrap();
        let base = repo.find_commit(c3).unwrap().tree().unwrap();
        let mut builder = git2::build::TreeUpdateBuilder::new();
        builder.upsert("pkg/side.py", blob, git2::FileMode::Blob);
        let tree = repo
            .find_tree(builder.create_updated(&repo, &base).unwrap())
            .unwrap();
        let parent = repo.find_commit(c3).unwrap();
        repo.commit(None, &sig, &sig, "side", &tree, &[&parent])
            .unwrap()
    };
    let c4 = commit(
        &repo,
        &[("pkg/d.py", Some("class Late:\n    pass\n"))],
        T0 + 600 * DAY,
        &[c3],
    );
    let merge = commit(
        &repo,
        &[("pkg/side.py", Some("class Side:\n    pass\n"))],
        T0 + 700 * DAY,
        &[c4, side],
    );
    // Never committed.
    std::fs::write(proj.join("pkg/draft.py"), "class Draft:\n    pass\n").unwrap();
    // A directory of the same tree that is no git repository.
    std::fs::create_dir_all(repos.join("plain")).unwrap();
    std::fs::write(repos.join("plain/p.py"), "class Plain:\n    pass\n").unwrap();

    let store = dir.path().join("store.db");
    build(&repos, &store);
    let summary = date(&store);
    assert_eq!(summary["repositories"], 1, "{summary}");
    assert_eq!(summary["walked"], 1);
    assert_eq!(summary["classes"], 7);
    assert_eq!(summary["dated"], 5);
    assert_eq!(summary["undated"]["not_git"], 1);
    assert_eq!(summary["undated"]["not_found"], 1);

    let dated = |t: i64, c: Oid| (Some(t), Some(c.to_string()), None);
    let got = dates_of(&store);
    let want: BTreeMap<String, _> = [
        ("A", dated(T0, c1)),
        ("B", dated(T0 + 10 * DAY, c2)),
        // Counted from its file's history only: c.py has it from the move on.
        ("Moved", dated(T0 + 400 * DAY, c3)),
        ("Side", dated(T0 + 500 * DAY, side)),
        ("Late", dated(T0 + 600 * DAY, c4)),
        ("Draft", (None, None, Some("not_found".to_string()))),
        ("Plain", (None, None, Some("not_git".to_string()))),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    assert_eq!(got, want);

    // The dates travel with the exported tasks.
    let out = dir.path().join("export");
    ok_json(
        classlab()
            .args(["--json", "corpus", "export"])
            .arg(&store)
            .args(["--format", "classlab", "--out"])
            .arg(&out)
            .output()
            .unwrap(),
    );
    let ds: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("dataset.json")).unwrap()).unwrap();
    let prov: BTreeMap<String, &Value> = ds["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["class_name"].as_str().unwrap().to_string(),
                &t["provenance"],
            )
        })
        .collect();
    assert_eq!(prov["A"]["first_seen"], "2019-03-01");
    assert_eq!(prov["A"]["first_seen_commit"], c1.to_string());
    assert_eq!(prov["Moved"]["first_seen"], "2020-04-04");
    assert_eq!(prov["Late"]["first_seen"], "2020-10-21");
    assert!(prov["Draft"].get("first_seen").is_none());
    assert!(prov["Plain"].get("first_seen").is_none());

    // A rerun walks nothing and reports the same classes.
    let again = date(&store);
    assert_eq!(
        (again["walked"].clone(), again["unchanged"].clone()),
        (0.into(), 1.into())
    );
    assert_eq!(again["dated"], 5);

    // The draft is committed: after a rebuild, the moved HEAD is walked again.
    let c6 = commit(
        &repo,
        &[("pkg/draft.py", Some("class Draft:\n    pass\n"))],
        T0 + 800 * DAY,
        &[merge],
    );
    build(&repos, &store);
    let third = date(&store);
    assert_eq!(third["walked"], 1);
    assert_eq!(third["dated"], 6);
    assert_eq!(dates_of(&store)["Draft"], dated(T0 + 800 * DAY, c6));
}

#[test]
fn errors_name_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope.db");
    let out = classlab()
        .args(["corpus", "dates"])
        .arg(&missing)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("nope.db") && err.contains("no such corpus store"),
        "{err}"
    );
    let text = dir.path().join("notes.txt");
    std::fs::write(&text, "hello").unwrap();
    let out = classlab()
        .args(["corpus", "dates"])
        .arg(&text)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("notes.txt"));
}
