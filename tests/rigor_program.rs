//! `Sandbox::run_program`: a trusted program in the real sandbox — its input and files, its
//! JSON lines as they arrive, its limits, and the same isolation as a suite. Needs Linux and
//! `python3`.

use std::sync::atomic::AtomicBool;
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use classlab::exec::{Limits, Program, ProgramStop, Sandbox};
use serde_json::{Value, json};

fn sandbox() -> &'static Sandbox {
    static SB: OnceLock<Sandbox> = OnceLock::new();
    SB.get_or_init(|| Sandbox::detect(None).expect("sandbox available"))
}

fn serial() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

fn program(source: &str, input: Value) -> Program {
    Program {
        source: source.to_string(),
        files: vec![("data/task.py".into(), "VALUE = 41\n".into())],
        input,
        limits: Limits::quick(),
        hash_seed: None,
    }
}

fn run(p: &Program) -> (classlab::exec::ProgramRun, Vec<Value>) {
    let mut got = Vec::new();
    let r = sandbox().run_program(p, &AtomicBool::new(false), &mut |v| got.push(v));
    (r, got)
}

const PRELUDE: &str = "import json, os, sys\nout = os.fdopen(3, 'w', buffering=1)\n\
def emit(**kw):\n    out.write(json.dumps(kw) + '\\n')\n";

#[test]
fn input_files_and_records_arrive() {
    let _g = serial();
    let src = format!(
        "{PRELUDE}spec = json.load(open(sys.argv[1]))\nsys.path.insert(0, os.path.join(os.getcwd(), 'data'))\n\
import task\nfor i in range(spec['n']):\n    emit(i=i, v=task.VALUE + 1)\nprint('to stdout')\n"
    );
    let (r, got) = run(&program(&src, json!({"n": 3})));
    assert!(r.ok(), "{}: {}", r.describe(), r.stderr);
    assert_eq!(r.records, 3);
    assert_eq!(got[2], json!({"i": 2, "v": 42}));
    assert_eq!(r.stdout, "to stdout\n");
    assert!(r.leftovers.is_empty(), "{:?}", r.leftovers);
    assert!(r.tampered.is_empty());
}

#[test]
fn records_stream_before_the_program_ends() {
    let _g = serial();
    // The parent kills the program once the first record is in: it must not wait for the end.
    let src = format!("{PRELUDE}emit(first=True)\nimport time\ntime.sleep(30)\n");
    let cancel = AtomicBool::new(false);
    let t0 = Instant::now();
    let mut seen = Vec::new();
    let r = sandbox().run_program(&program(&src, json!({})), &cancel, &mut |v| {
        seen.push(v);
        cancel.store(true, std::sync::atomic::Ordering::Relaxed);
    });
    assert_eq!(seen, vec![json!({"first": true})]);
    assert_eq!(r.stop, Some(ProgramStop::Cancelled));
    assert!(t0.elapsed() < Duration::from_secs(5), "{:?}", t0.elapsed());
    assert!(!r.ok());
}

#[test]
fn the_wall_clock_kills_the_whole_tree() {
    let _g = serial();
    let src = format!(
        "{PRELUDE}import time\nif os.fork() == 0:\n    os.setsid()\n    time.sleep(60)\n    os._exit(0)\n\
emit(forked=True)\ntime.sleep(60)\n"
    );
    let mut p = program(&src, json!({}));
    p.limits.wall = Duration::from_secs(2);
    let t0 = Instant::now();
    let (r, got) = run(&p);
    assert_eq!(got.len(), 1);
    assert_eq!(r.stop, Some(ProgramStop::WallTimeout), "{}", r.describe());
    assert!(t0.elapsed() < Duration::from_secs(6), "{:?}", t0.elapsed());
    assert!(r.describe().contains("wall-clock"));
}

#[test]
fn a_crash_and_malformed_lines_are_reported() {
    let _g = serial();
    let src = format!("{PRELUDE}out.write('not json\\n')\nemit(ok=1)\nraise SystemExit('boom')\n");
    let (r, got) = run(&program(&src, json!({})));
    assert_eq!(got, vec![json!({"ok": 1})]);
    assert_eq!(r.exit_code, Some(1));
    assert_eq!(r.bad_lines.len(), 1, "{:?}", r.bad_lines);
    assert!(r.describe().contains("boom"), "{}", r.describe());
    assert!(!r.ok());
}

#[test]
fn same_isolation_as_a_suite() {
    let _g = serial();
    let iso = sandbox().isolation();
    let src = format!(
        "{PRELUDE}import socket\n\
def tryit(f):\n    try:\n        f()\n        return 'allowed'\n    except Exception as e:\n        return type(e).__name__\n\
def net():\n    s = socket.socket(); s.settimeout(2); s.connect(('1.1.1.1', 80))\n\
def write_out():\n    open('/var/tmp/classlab-rigor-escape', 'w').write('x')\n\
def given():\n    open('data/task.py', 'a').write('#')\n\
def new_file():\n    open('scratch.txt', 'w').write('x')\n\
emit(net=tryit(net), write_out=tryit(write_out), given=tryit(given), new=tryit(new_file), uid=os.getuid())\n"
    );
    let (r, got) = run(&program(&src, json!({})));
    assert!(r.ok(), "{}: {}", r.describe(), r.stderr);
    let v = &got[0];
    assert_ne!(v["net"], "allowed", "{v}");
    assert_eq!(v["new"], "allowed", "the work dir is writable: {v}");
    if iso.landlock_abi > 0 {
        assert_ne!(v["write_out"], "allowed", "{v}");
    }
    if iso.minimal_root {
        assert_ne!(v["given"], "allowed", "given files are read-only: {v}");
    }
    if iso.run_as.is_some() {
        // As root, a uid of its own while it runs, as every suite (exec/uids.rs).
        let first = u64::from(classlab::exec::FIRST_SUITE_UID);
        assert!(v["uid"].as_u64().is_some_and(|u| u >= first), "{v}");
    }
    assert!(!std::path::Path::new("/var/tmp/classlab-rigor-escape").exists());
}

#[test]
fn oversized_source_and_reserved_names_are_refused() {
    let big = "#".repeat(200 * 1024);
    let (r, _) = run(&program(&big, json!({})));
    assert!(r.setup_error.is_some_and(|e| e.contains("program source")));
    let mut p = program("pass", json!({}));
    p.files
        .push((classlab::exec::PROGRAM_INPUT.into(), "{}".into()));
    let (r, _) = run(&p);
    assert!(r.setup_error.is_some());
}
