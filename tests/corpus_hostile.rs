//! Hostile trees and stores end with a clear error or a counted reason, never a hang, a read
//! outside the tree, or a write into what the command did not make (issue 21, items 12, 13, 16).
//! Commands run as child processes with a deadline: a hang fails the test instead of hanging it.

mod corpus_common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use classlab::corpus::lock::StoreLock;
use corpus_common::write;

const GOOD: &str = "class Good:\n    \"\"\"A good class.\"\"\"\n\n    def f(self):\n        \"\"\"F.\"\"\"\n        return 1\n";

fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_classlab"))
}

/// Run classlab with `args`; a run past `limit` is killed and fails the test.
fn run(args: &[&std::ffi::OsStr], limit: Duration) -> Output {
    let mut child = Command::new(bin())
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "classlab {:?} still running after {limit:?} (killed); stderr: {}",
                args,
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn os(s: &str) -> &std::ffi::OsStr {
    std::ffi::OsStr::new(s)
}

fn build(paths: &[&Path], out: &Path, extra: &[&str]) -> Output {
    let mut args: Vec<&std::ffi::OsStr> = vec![os("--json"), os("corpus"), os("build")];
    args.extend(paths.iter().map(|p| p.as_os_str()));
    args.push(os("--out"));
    args.push(out.as_os_str());
    args.extend(extra.iter().map(|a| os(a)));
    run(&args, Duration::from_secs(60))
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn summary(o: &Output) -> serde_json::Value {
    assert!(o.status.success(), "{}", stderr(o));
    serde_json::from_slice(&o.stdout).unwrap()
}

fn names(db: &Path) -> Vec<String> {
    let out = run(
        &[os("--json"), os("corpus"), os("query"), db.as_os_str()],
        Duration::from_secs(30),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            v["qualname"].as_str().unwrap().to_string()
        })
        .collect()
}

#[test]
fn symlinks_out_of_the_tree_are_counted_not_followed() {
    let dir = tempfile::tempdir().unwrap();
    let outside = dir.path().join("outside");
    write(
        &outside.join("secret.py"),
        b"class Secret:\n    KEY = 'hunter2'\n",
    );
    let r = dir.path().join("repo");
    write(&r.join("good.py"), GOOD.as_bytes());
    std::os::unix::fs::symlink(outside.join("secret.py"), r.join("linked.py")).unwrap();
    // Followed, a link to `/` walks /proc and /sys without end.
    std::os::unix::fs::symlink("/", r.join("root")).unwrap();
    // A link that stays inside the tree is followed.
    std::fs::create_dir_all(r.join("pkg")).unwrap();
    std::os::unix::fs::symlink(r.join("good.py"), r.join("pkg/alias.py")).unwrap();
    let db = dir.path().join("c.db");
    let s = summary(&build(&[&r], &db, &[]));
    assert_eq!(s["funnel"]["dropped"]["symlink-outside"], 2, "{s}");
    let found = names(&db);
    assert!(!found.iter().any(|n| n == "Secret"), "{found:?}");
    assert_eq!(
        found.iter().filter(|n| *n == "Good").count(),
        2,
        "{found:?}"
    );
    // Asked for, a link out of the tree is followed (the link to `/` is not in this tree).
    std::fs::remove_file(r.join("root")).unwrap();
    let db2 = dir.path().join("c2.db");
    summary(&build(&[&r], &db2, &["--follow-symlinks"]));
    assert!(names(&db2).iter().any(|n| n == "Secret"));
}

#[test]
fn special_files_named_py_never_block_or_swell_a_build() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path().join("repo");
    write(&r.join("good.py"), GOOD.as_bytes());
    let fifo = std::ffi::CString::new(r.join("x.py").to_str().unwrap()).unwrap();
    // SAFETY: mkfifo with a valid C string.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
    // Followed on request: a device endless to read.
    std::os::unix::fs::symlink("/dev/zero", r.join("zero.py")).unwrap();
    let db = dir.path().join("c.db");
    let s = summary(&build(&[&r], &db, &["--follow-symlinks"]));
    assert_eq!(s["funnel"]["dropped"]["not-a-regular-file"], 2, "{s}");
    assert_eq!(names(&db), ["Good"]);
}

#[test]
fn the_size_limit_holds_while_reading() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("big.py");
    write(&f, &vec![b'#'; 5000]);
    use classlab::corpus::extract::{Bounded, read_bounded};
    assert!(matches!(read_bounded(&f, 4999).unwrap(), Bounded::Over));
    assert!(matches!(read_bounded(&f, 5000).unwrap(), Bounded::Whole(b) if b.len() == 5000));
    assert!(read_bounded(Path::new("/dev/zero"), 10).is_err());
}

/// A small real store.
fn store(dir: &Path) -> PathBuf {
    let r = dir.join("repo");
    write(&r.join("good.py"), GOOD.as_bytes());
    let db = dir.join("c.db");
    summary(&build(&[&r], &db, &[]));
    db
}

#[test]
fn a_crafted_store_cannot_hang_merge_query_or_the_browser() {
    let dir = tempfile::tempdir().unwrap();
    let db = store(dir.path());
    // `files` becomes a view over an endless recursive query.
    rusqlite::Connection::open(&db)
        .unwrap()
        .execute_batch(
            "DROP TABLE files;
             CREATE VIEW files(path, repo, size, mtime_ns, hash, reason, detail, syntax_errors,
                               classes, classes_dropped) AS
               WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n)
               SELECT 'p' || i, 'r', 0, 0, '', NULL, '', 0, 0, 0 FROM n;",
        )
        .unwrap();
    let merged = dir.path().join("m.db");
    let out = run(
        &[
            os("corpus"),
            os("merge"),
            merged.as_os_str(),
            db.as_os_str(),
        ],
        Duration::from_secs(30),
    );
    assert!(!out.status.success());
    let e = stderr(&out);
    assert!(e.contains("c.db") && e.contains("view `files`"), "{e}");
    for args in [
        vec![os("corpus"), os("query"), db.as_os_str()],
        vec![os("corpus"), os("funnel"), db.as_os_str()],
    ] {
        let out = run(&args, Duration::from_secs(30));
        assert!(!out.status.success());
        assert!(stderr(&out).contains("view `files`"), "{}", stderr(&out));
    }
    let e = classlab::tui::screens::corpus::State::open(&db)
        .err()
        .expect("the browser refuses it")
        .to_string();
    assert!(e.contains("view `files`"), "{e}");
    // A trigger would run code on a write.
    let db2 = store(&dir.path().join("two"));
    rusqlite::Connection::open(&db2)
        .unwrap()
        .execute_batch("CREATE TRIGGER t AFTER INSERT ON classes BEGIN DELETE FROM files; END;")
        .unwrap();
    let out = run(
        &[
            os("corpus"),
            os("merge"),
            merged.as_os_str(),
            db2.as_os_str(),
        ],
        Duration::from_secs(30),
    );
    assert!(stderr(&out).contains("trigger `t`"), "{}", stderr(&out));
}

#[test]
fn foreign_files_are_never_written_into() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path().join("repo");
    write(&r.join("good.py"), GOOD.as_bytes());
    // Another program's SQLite database.
    let other = dir.path().join("app.sqlite");
    rusqlite::Connection::open(&other)
        .unwrap()
        .execute_batch("CREATE TABLE users(name TEXT); INSERT INTO users VALUES ('ann');")
        .unwrap();
    let before = std::fs::read(&other).unwrap();
    let out = build(&[&r], &other, &[]);
    assert!(!out.status.success());
    let e = stderr(&out);
    assert!(e.contains("app.sqlite") && e.contains("`users`"), "{e}");
    assert!(
        std::fs::read(&other).unwrap() == before,
        "the database was changed"
    );
    // A text file.
    let notes = dir.path().join("notes.txt");
    std::fs::write(&notes, "my notes\n").unwrap();
    let out = build(&[&r], &notes, &[]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("notes.txt"), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "my notes\n");
}

#[test]
fn a_store_being_built_refuses_a_second_writer_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path().join("repo");
    write(&r.join("good.py"), GOOD.as_bytes());
    let db = dir.path().join("c.db");
    let held = StoreLock::acquire(&db, "build").unwrap();
    let started = Instant::now();
    let out = build(&[&r], &db, &[]);
    assert!(!out.status.success());
    assert!(started.elapsed() < Duration::from_secs(10));
    let e = stderr(&out);
    assert!(e.contains("in use by another writer"), "{e}");
    assert!(e.contains(&format!("pid {}", std::process::id())), "{e}");
    let merge = run(
        &[os("corpus"), os("merge"), db.as_os_str(), db.as_os_str()],
        Duration::from_secs(10),
    );
    assert!(stderr(&merge).contains("in use by another writer"));
    drop(held);
    summary(&build(&[&r], &db, &[]));
}

#[test]
fn a_store_is_rebuilt_only_from_its_own_roots() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a");
    let b = dir.path().join("b");
    write(&a.join("one/good.py"), GOOD.as_bytes());
    write(
        &b.join("two/other.py"),
        GOOD.replace("Good", "Other").as_bytes(),
    );
    let db = dir.path().join("c.db");
    summary(&build(&[&a], &db, &[]));
    let out = build(&[&b], &db, &[]);
    assert!(!out.status.success());
    let e = stderr(&out);
    assert!(e.contains("built from") && e.contains("--force"), "{e}");
    assert_eq!(names(&db), ["Good"], "nothing deleted");
    // The same roots again are fine; other roots with --force replace the store's classes.
    summary(&build(&[&a], &db, &[]));
    summary(&build(&[&b], &db, &["--force"]));
    assert_eq!(names(&db), ["Other"]);
}

#[test]
fn two_roots_holding_the_same_path_keep_both_classes() {
    // Two virtualenvs' site-packages with the same package: each file keyed under its root.
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("env1/site-packages");
    let b = dir.path().join("env2/site-packages");
    write(&a.join("pkg/mod.py"), GOOD.as_bytes());
    write(
        &b.join("pkg/mod.py"),
        GOOD.replace("Good", "Other").as_bytes(),
    );
    let db = dir.path().join("c.db");
    let s = summary(&build(&[&a, &b], &db, &[]));
    assert_eq!(s["classes"], 2, "{s}");
    let mut got = names(&db);
    got.sort();
    assert_eq!(got, ["Good", "Other"]);
    // Rebuilt from the same roots (in any order): nothing changes, nothing collides.
    summary(&build(&[&b, &a], &db, &[]));
    assert_eq!(names(&db).len(), 2);
}

#[test]
fn an_export_never_replaces_a_directory_by_surprise() {
    let dir = tempfile::tempdir().unwrap();
    let db = store(dir.path());
    let out_dir = dir.path().join("export");
    let export = |extra: &[&str]| {
        let mut args = vec![
            os("corpus"),
            os("export"),
            db.as_os_str(),
            os("--out"),
            out_dir.as_os_str(),
        ];
        args.extend(extra.iter().map(|a| os(a)));
        run(&args, Duration::from_secs(30))
    };
    assert!(export(&[]).status.success());
    let again = export(&["--format", "classlab"]);
    assert!(!again.status.success());
    let e = stderr(&again);
    assert!(
        e.contains("not empty") && e.contains("classes_full_docstr.csv"),
        "{e}"
    );
    assert!(!out_dir.join("dataset.json").exists());
    assert!(
        export(&["--format", "classlab", "--force"])
            .status
            .success()
    );
    assert!(out_dir.join("dataset.json").exists());
}
