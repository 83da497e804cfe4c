//! `corpus build` end to end: hostile input counted and never fatal, resumption after
//! `kill -9`, incremental reruns, shards merged, the command's JSON summary.

mod corpus_common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use classlab::corpus::{BuildOptions, BuildProgress, Quiet, Shard, build};
use corpus_common::{dump, stdlib, write};

const GOOD: &str = "class Good:\n    \"\"\"A good class.\"\"\"\n\n    def f(self):\n        \"\"\"F.\"\"\"\n        return self.g()\n\n    def g(self):\n        \"\"\"G.\"\"\"\n        return 1\n";

#[test]
fn hostile_input_is_counted_and_never_fatal() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path().join("repo");
    write(&r.join("good.py"), GOOD.as_bytes());
    write(
        &r.join("latin.py"),
        b"# -*- coding: latin-1 -*-\nclass Latin:\n    s = '\xe9'\n    def f(self):\n        pass\n",
    );
    write(
        &r.join("bom.py"),
        b"\xef\xbb\xbfclass Bom:\n    def f(self):\n        pass\n",
    );
    write(&r.join("binary.py"), b"class A:\n    pass\n\0\0\x01\x02");
    write(&r.join("invalid.py"), b"class B:\n    s = '\xff\xfe'\n");
    write(&r.join("euc.py"), b"# coding: euc-jp\nclass C:\n    pass\n");
    let mut big = b"x = '".to_vec();
    big.extend(std::iter::repeat_n(b'a', 10 * 1024 * 1024));
    big.extend(b"'\n");
    write(&r.join("big.py"), &big);
    write(
        &r.join("broken.py"),
        b"class Fine:\n    def f(self):\n        return 1\n\n\nclass Broken:\n    def f(self):\n        return 1 +\n\n    def g(self):\n        pass\n\n\nclass After:\n    def h(self):\n        pass\n",
    );
    let deep = format!(
        "class Deep:\n    def f(self):\n        return {}1{}\n    def g(self):\n        if 1:\n{}\n",
        "(".repeat(50_000),
        ")".repeat(50_000),
        (1..300)
            .map(|i| format!("{}if x:", "    ".repeat(i + 2)))
            .collect::<Vec<_>>()
            .join("\n")
    );
    write(&r.join("deep.py"), deep.as_bytes());
    std::fs::create_dir_all(r.join("sub")).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink("..", r.join("sub/loop")).unwrap();
    let out = dir.path().join("c.db");
    let s = build(&BuildOptions::new(vec![r.clone()], out.clone()), &Quiet).unwrap();
    let f = &s.funnel;
    let dropped = |k: &str| f.dropped.get(k).copied().unwrap_or(0);
    assert_eq!(dropped("binary"), 1, "{f:?}");
    assert_eq!(dropped("undecodable"), 1, "{f:?}");
    assert_eq!(dropped("unsupported-encoding"), 1, "{f:?}");
    assert_eq!(dropped("oversize"), 1, "{f:?}");
    #[cfg(unix)]
    assert!(dropped("symlink-loop") >= 1, "{f:?}");
    assert_eq!(dropped("syntax_error_files"), 1, "{f:?}");
    assert!(dropped("class_syntax_error") >= 1, "{f:?}");
    let store = classlab::corpus::Store::open(&out).unwrap();
    let mut names = Vec::new();
    store
        .for_each_line(
            &classlab::corpus::Filter::all(),
            &Default::default(),
            0,
            None,
            |l| {
                names.push(l.qualname);
                Ok(())
            },
        )
        .unwrap();
    for want in ["Good", "Latin", "Bom", "Fine", "After", "Deep"] {
        assert!(
            names.iter().any(|n| n == want),
            "{want} missing from {names:?}"
        );
    }
    assert!(!names.iter().any(|n| n == "Broken"), "{names:?}");
}

/// Counts what a build had to analyse.
#[derive(Default)]
struct Count(AtomicU64);
impl BuildProgress for Count {
    fn start(&self, files: u64) {
        self.0.store(files, Ordering::SeqCst);
    }
}

#[test]
fn a_rerun_analyses_only_what_changed() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path().join("tree");
    for i in 0..6 {
        write(
            &r.join(format!("repo{i}/m{i}.py")),
            GOOD.replace("Good", &format!("Good{i}")).as_bytes(),
        );
    }
    let out = dir.path().join("c.db");
    let opts = BuildOptions::new(vec![r.clone()], out.clone());
    let count = Count::default();
    build(&opts, &count).unwrap();
    assert_eq!(count.0.load(Ordering::SeqCst), 6);
    let first = dump(&out);
    build(&opts, &count).unwrap();
    assert_eq!(count.0.load(Ordering::SeqCst), 0);
    assert_eq!(dump(&out), first);
    // New timestamp, same bytes: looked at, not changed.
    std::thread::sleep(Duration::from_millis(20));
    write(
        &r.join("repo1/m1.py"),
        GOOD.replace("Good", "Good1").as_bytes(),
    );
    build(&opts, &count).unwrap();
    assert_eq!(count.0.load(Ordering::SeqCst), 1);
    // New content, and a file gone.
    write(
        &r.join("repo2/m2.py"),
        b"class Other:\n    def h(self):\n        pass\n",
    );
    std::fs::remove_file(r.join("repo3/m3.py")).unwrap();
    let s = build(&opts, &count).unwrap();
    assert_eq!(count.0.load(Ordering::SeqCst), 1);
    assert_eq!(s.files, 5);
    // The same as a fresh build of the changed tree (timestamps aside, they are equal).
    let fresh = dir.path().join("fresh.db");
    build(&BuildOptions::new(vec![r], fresh.clone()), &Quiet).unwrap();
    assert_eq!(dump(&out), dump(&fresh));
}

#[test]
fn shards_merge_into_the_whole() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path().join("tree");
    for i in 0..12 {
        write(
            &r.join(format!("repo{}/pkg/m{i}.py", i % 3)),
            GOOD.replace("Good", &format!("Good{}", i % 5)).as_bytes(),
        );
    }
    let whole = dir.path().join("whole.db");
    build(&BuildOptions::new(vec![r.clone()], whole.clone()), &Quiet).unwrap();
    let mut parts = Vec::new();
    for k in 1..=3 {
        let out = dir.path().join(format!("part{k}.db"));
        let opts = BuildOptions {
            shard: Some(Shard { k, n: 3 }),
            ..BuildOptions::new(vec![r.clone()], out.clone())
        };
        build(&opts, &Quiet).unwrap();
        parts.push(out);
    }
    let merged = dir.path().join("merged.db");
    let f = classlab::corpus::merge::merge(&merged, &parts).unwrap();
    assert_eq!(f.files_seen, 12);
    assert_eq!(dump(&merged), dump(&whole));
    // A shard merged again replaces its files' rows rather than adding to them.
    classlab::corpus::merge::merge(&merged, &parts[1..2]).unwrap();
    assert_eq!(dump(&merged), dump(&whole));
}

fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_classlab"))
}

#[test]
fn json_summary_has_exactly_the_documented_keys() {
    let dir = tempfile::tempdir().unwrap();
    write(&dir.path().join("r/a.py"), GOOD.as_bytes());
    let out = Command::new(bin())
        .args(["--json", "corpus", "build"])
        .arg(dir.path().join("r"))
        .arg("--out")
        .arg(dir.path().join("c.db"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, ["files", "classes", "funnel", "seconds"]);
    assert_eq!(v["classes"], 1);
    assert_eq!(v["funnel"]["self_contained"], 1);
}

/// `kill -9` in the middle of a build, then a rerun: the same store as an uninterrupted build.
#[test]
fn a_killed_build_resumes_to_the_same_store() {
    let Some(lib) = stdlib() else {
        eprintln!("skipped: no Python standard library found");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let args = |out: &Path| {
        let mut c = Command::new(bin());
        c.args(["corpus", "build"])
            .arg(&lib)
            .arg("--out")
            .arg(out)
            .args([
                "--exclude",
                "site-packages",
                "--exclude",
                "test",
                "--exclude",
                "idlelib",
            ]);
        c
    };
    let killed = dir.path().join("killed.db");
    // Wait until some files are committed, then kill without warning. The standard library
    // builds in well under a second: a build that finished before the kill is tried again.
    for attempt in 1.. {
        for f in ["killed.db", "killed.db-wal", "killed.db-shm"] {
            let _ = std::fs::remove_file(dir.path().join(f));
        }
        let mut child = args(&killed).spawn().unwrap();
        let started = Instant::now();
        let finished_alone = loop {
            std::thread::sleep(Duration::from_millis(2));
            if let Ok(Some(_)) = child.try_wait() {
                break true;
            }
            let done = rusqlite::Connection::open_with_flags(
                &killed,
                rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
            )
            .and_then(|c| c.query_row("SELECT count(*) FROM files", [], |r| r.get::<_, i64>(0)))
            .unwrap_or(0);
            if done >= 1 || started.elapsed() > Duration::from_secs(120) {
                break false;
            }
        };
        let _ = child.kill(); // SIGKILL
        let status = child.wait().unwrap();
        // Killed, not ended on its own (it may have ended between the count and the kill).
        if !finished_alone && status.code().is_none() {
            break;
        }
        assert!(
            attempt < 20,
            "the build always finished before it could be killed"
        );
    }
    // The unfinished store says so when read, and is not exported.
    let query = Command::new(bin())
        .args(["corpus", "query", "--count"])
        .arg(&killed)
        .output()
        .unwrap();
    let warning = String::from_utf8_lossy(&query.stderr);
    assert!(
        warning.contains("did not finish") && warning.contains("corpus build"),
        "{warning}"
    );
    let export = Command::new(bin())
        .args(["corpus", "export"])
        .arg(&killed)
        .arg("--out")
        .arg(dir.path().join("never"))
        .output()
        .unwrap();
    assert!(!export.status.success());
    assert!(String::from_utf8_lossy(&export.stderr).contains("unfinished store"));
    assert!(!dir.path().join("never").exists());
    let rerun = args(&killed).output().unwrap();
    assert!(
        rerun.status.success(),
        "{}",
        String::from_utf8_lossy(&rerun.stderr)
    );
    let whole = dir.path().join("whole.db");
    let full = args(&whole).output().unwrap();
    assert!(full.status.success());
    let (a, b) = (dump(&killed), dump(&whole));
    assert!(a.len() > 100_000, "a real store: {} bytes of dump", a.len());
    assert!(
        a == b,
        "the resumed store differs from the uninterrupted one"
    );
}
