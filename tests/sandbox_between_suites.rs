//! Suites kept apart from each other (issue 22, "warm without sharing"): what one suite can do
//! to, or learn of, another running at the same time or before it. Every case runs cold here
//! and warm in `sandbox_between_suites_warm.rs`: a warm suite is a fork of a long-lived
//! interpreter, so these are the attacks that interpreter must not make possible:
//! * reading an earlier suite's request (code, tests) out of the heap it inherited, through
//!   `/proc/self/mem`;
//! * `prlimit`/`setpriority`/`sched_setaffinity`/`ioprio_set` on another suite's processes,
//!   turning its correct reference into errors;
//! * seeing another suite's processes at all, or sharing its uid;
//! * a request larger than a socket buffer, which must reach its suite (or be refused for that
//!   suite alone) and harm no suite running beside it.

use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use classlab::exec::{Limits, Sandbox, SandboxOptions, SuiteSpec};
use classlab::model::results::{Outcome, SuiteResult};

/// `sandbox_between_suites_warm.rs` includes this file to run every case warm.
fn warm() -> bool {
    module_path!().starts_with("sandbox_between_suites_warm")
}

fn sandbox() -> &'static Sandbox {
    static SB: OnceLock<Sandbox> = OnceLock::new();
    SB.get_or_init(|| {
        let sb = Sandbox::with_options(SandboxOptions {
            warm: warm(),
            ..SandboxOptions::default()
        })
        .expect("sandbox available");
        assert_eq!(sb.isolation().warm, warm(), "{}", sb.isolation());
        sb
    })
}

/// One case at a time: each runs its own suites side by side and nothing else.
fn serial() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

fn limits() -> Limits {
    Limits {
        wall: Duration::from_secs(20),
        cpu: Duration::from_secs(10),
        ..Limits::quick()
    }
}

fn suite(code: &str, tests: &str) -> SuiteSpec {
    SuiteSpec::unittest_one_module(code, tests).with_limits(limits())
}

fn outcome(r: &SuiteResult, id: &str) -> Outcome {
    r.tests
        .iter()
        .find(|t| t.id == id)
        .unwrap_or_else(|| panic!("no {id} in {r:#?}"))
        .outcome
}

fn all_pass(r: &SuiteResult) -> bool {
    r.failure.is_none() && !r.tests.is_empty() && r.tests.iter().all(|t| t.outcome == Outcome::Pass)
}

/// Pids of the warm interpreter (the zygote, its launcher and their init), descendants of
/// this process.
fn zygotes() -> Vec<i32> {
    let me = std::process::id() as i32;
    let ppid = |pid: i32| -> Option<i32> {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        stat.rsplit_once(')')?
            .1
            .split_whitespace()
            .nth(1)?
            .parse()
            .ok()
    };
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let cmd = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        if !String::from_utf8_lossy(&cmd).contains("classlab warm interpreter") {
            continue;
        }
        let mut p = pid;
        for _ in 0..16 {
            match ppid(p) {
                Some(pp) if pp == me => {
                    out.push(pid);
                    break;
                }
                Some(pp) if pp > 1 => p = pp,
                _ => break,
            }
        }
    }
    out.sort_unstable();
    out
}

/// Whether the memory of process `pid` holds `needle` (read from outside, as root can).
fn memory_holds(pid: i32, needle: &[u8]) -> bool {
    use std::os::unix::fs::FileExt;
    let maps = std::fs::read_to_string(format!("/proc/{pid}/maps")).unwrap();
    let mem = std::fs::File::open(format!("/proc/{pid}/mem")).unwrap();
    let finder = memchr::memmem::Finder::new(needle);
    for line in maps.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if !f[1].starts_with('r') || f.get(5).is_some_and(|n| n.starts_with("[v")) {
            continue;
        }
        let Some((lo, hi)) = f[0].split_once('-') else {
            continue;
        };
        let (lo, hi) = (
            u64::from_str_radix(lo, 16).unwrap(),
            u64::from_str_radix(hi, 16).unwrap(),
        );
        let mut buf = vec![0u8; (hi - lo) as usize];
        if mem.read_exact_at(&mut buf, lo).is_ok() && finder.find(&buf).is_some() {
            return true;
        }
    }
    false
}

/// The warm interpreter's own Python process (not its launcher or their init).
fn zygote_python() -> Option<i32> {
    zygotes().into_iter().find(|pid| {
        let cmd = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        !String::from_utf8_lossy(&cmd).contains("__sandbox-launch")
    })
}

const CLS: &str = "class Thing:\n    def value(self):\n        return 1\n";

// ---------------------------------------------------------------------------------------------
// Requests of any size

/// A test module that checks the size of a data file beside it.
fn reads_data(name: &str, len: usize) -> String {
    format!(
        "import unittest\nclass T(unittest.TestCase):\n    def test_data(self):\n        with open({name:?}) as f:\n            self.assertEqual(len(f.read()), {len})\n        self.assertEqual(Thing().value(), 1)\n"
    )
}

#[test]
fn a_request_of_any_size_is_delivered_or_refused_for_that_suite_alone() {
    let _guard = serial();
    // A suite that is running while the large requests arrive.
    let busy = suite(
        CLS,
        "import time, unittest\nclass T(unittest.TestCase):\n    def test_busy(self):\n        time.sleep(2.5)\n        self.assertEqual(Thing().value(), 1)\n",
    );
    // Above the zygote socket's buffer (~212 KB), and far above it.
    let mut sizes = Vec::new();
    for len in [300_000usize, 6 << 20] {
        let mut s = suite(CLS, &reads_data("data.txt", len));
        s.files.push(("data.txt".into(), "x".repeat(len)));
        sizes.push(s);
    }
    // More than the suite's disk: refused, for this suite alone.
    let mut huge = suite(CLS, &reads_data("huge.txt", 20 << 20));
    huge.files.push(("huge.txt".into(), "y".repeat(20 << 20)));
    let _ = sandbox().run(&suite(CLS, &reads_data("test_classeval.py", 0))); // zygote up
    let before = zygotes();
    let (busy_r, big, refused) = std::thread::scope(|s| {
        let busy = s.spawn(|| sandbox().run(&busy));
        std::thread::sleep(Duration::from_millis(500));
        let big: Vec<SuiteResult> = sizes.iter().map(|spec| sandbox().run(spec)).collect();
        let refused = sandbox().run(&huge);
        (busy.join().unwrap(), big, refused)
    });
    assert!(all_pass(&busy_r), "the suite beside them: {busy_r:#?}");
    for r in &big {
        assert!(all_pass(r), "a large request: {r:#?}");
    }
    match &refused.failure {
        Some(classlab::model::SuiteFailure::Crashed { detail, .. }) => {
            assert!(detail.contains("do not fit"), "{detail}")
        }
        other => panic!("a request larger than the disk: {other:?}\n{refused:#?}"),
    }
    if warm() {
        assert_eq!(zygotes(), before, "the warm interpreter was replaced");
        assert!(!before.is_empty(), "no warm interpreter");
    }
}

// ---------------------------------------------------------------------------------------------
// Memory inherited from earlier suites

/// Code that reads its own memory (every readable mapping, through `/proc/self/mem`, made
/// dumpable first) for `CLASSLAB` `SECRET` followed by 32 hex digits, and prints what follows.
const SCAN: &str = r#"import ctypes, re
class Thing:
    def scan(self):
        ctypes.CDLL(None).prctl(4, 1, 0, 0, 0)  # PR_SET_DUMPABLE
        pat = re.compile(re.escape(('CLASSLAB' + 'SECRET').encode()) + rb'([0-9a-f]{32})')
        found, regions = set(), 0
        with open('/proc/self/maps') as maps, open('/proc/self/mem', 'rb', 0) as mem:
            for line in maps:
                f = line.split()
                if f[1][0] != 'r' or (len(f) > 5 and f[5] in ('[vvar]', '[vsyscall]', '[vvar_vclock]')):
                    continue
                lo, hi = (int(x, 16) for x in f[0].split('-'))
                try:
                    mem.seek(lo)
                    data = mem.read(hi - lo)
                except (OSError, OverflowError, ValueError):
                    continue
                regions += 1
                found.update(m.group(1).decode() for m in pat.finditer(data))
        print('regions', regions, 'found', sorted(found))
        return found
"#;

#[test]
fn an_earlier_suites_request_is_not_in_a_later_suites_memory() {
    let _guard = serial();
    // Earlier suites whose code, tests and data carry a secret (small enough, 130 KB, for a
    // socket buffer: what a zygote that read requests itself would have held).
    let secret = format!(
        "{:032x}",
        std::process::id() as u128 * 0x9e37_79b9_7f4a_7c15 + 7
    );
    for round in 0..3 {
        let code = format!("SECRET = 'CLASSLABSECRET{secret}'\n{CLS}");
        let tests = format!(
            "import unittest\n# CLASSLABSECRET{secret}\nclass T(unittest.TestCase):\n    def test_a(self):\n        self.assertEqual(Thing().value(), 1)\n"
        );
        let mut s = suite(&code, &tests);
        for k in 0..8 {
            s.files.push((
                format!("data{round}-{k}.txt"),
                format!("CLASSLABSECRET{secret}\n").repeat(1 + 97 * k),
            ));
        }
        let r = sandbox().run(&s);
        assert!(all_pass(&r), "{r:#?}");
    }
    let needle = format!("CLASSLABSECRET{secret}");
    if warm() && sandbox().isolation().root {
        // What every later suite inherits: the warm interpreter's memory.
        let z = zygote_python().expect("a warm interpreter");
        assert!(
            memory_holds(z, b"classlab warm interpreter"),
            "the scan of the warm interpreter's memory does not work"
        );
        assert!(
            !memory_holds(z, needle.as_bytes()),
            "the warm interpreter (pid {z}) holds an earlier suite's request"
        );
    }
    let tests = "import unittest\nclass T(unittest.TestCase):\n    def test_scan(self):\n        self.assertEqual(Thing().scan(), set())\n";
    let r = sandbox().run(&suite(SCAN, tests));
    assert!(
        !r.stdout.contains(&secret),
        "a later suite read an earlier suite's request from its own memory: {}",
        r.stdout
    );
    assert!(r.stdout.contains("regions"), "the scan did not run: {r:#?}");
    assert_eq!(outcome(&r, "T.test_scan"), Outcome::Pass, "{r:#?}");
}

// ---------------------------------------------------------------------------------------------
// Processes of other suites

/// The attacker: for three seconds, every process it can name (those in its `/proc` and the
/// pids around its own and 1..4096) gets a tiny file limit and address space, the lowest
/// priority, one CPU and the idle I/O class; so do its process group and its user. Prints
/// what succeeded on a process that is not its own.
const ATTACK: &str = r#"import ctypes, os, resource, time
libc = ctypes.CDLL(None, use_errno=True)
def ioprio_set(which, who):
    return libc.syscall(251, which, who, 3 << 13) == 0  # IOPRIO_CLASS_IDLE
class Thing:
    def attack(self):
        me = os.getpid()
        hits = set()
        t0 = time.time()
        while time.time() - t0 < 3:
            pids = {int(n) for n in os.listdir('/proc') if n.isdigit()}
            pids |= set(range(1, 4096)) | set(range(max(1, me - 300), me + 300))
            for pid in sorted(pids - {me}):
                for what, f in (
                    ('prlimit', lambda: resource.prlimit(pid, resource.RLIMIT_NOFILE, (3, 3))),
                    ('prlimit_as', lambda: resource.prlimit(pid, resource.RLIMIT_AS, (1 << 20, 1 << 20))),
                    ('setpriority', lambda: os.setpriority(os.PRIO_PROCESS, pid, 19)),
                    ('affinity', lambda: os.sched_setaffinity(pid, {0})),
                    ('ioprio', lambda: ioprio_set(1, pid) or (_ for _ in ()).throw(OSError())),
                ):
                    try:
                        f()
                        hits.add((what, pid))
                    except (OSError, ValueError):
                        pass
            for what, f in (
                ('setpriority_pgrp', lambda: os.setpriority(os.PRIO_PGRP, 0, 19)),
                ('setpriority_user', lambda: os.setpriority(os.PRIO_USER, 0, 19)),
                ('ioprio_pgrp', lambda: ioprio_set(2, 0) or (_ for _ in ()).throw(OSError())),
                ('ioprio_user', lambda: ioprio_set(3, 0) or (_ for _ in ()).throw(OSError())),
            ):
                try:
                    f()
                    hits.add((what, 0))
                except OSError:
                    pass
        print('hits', sorted(hits))
        return sorted(hits)
"#;

#[test]
fn one_suite_cannot_change_the_limits_or_priority_of_another() {
    let _guard = serial();
    let ds = classlab::dataset::load_path(&shared("classeval/ClassEval_data.json")).unwrap();
    // Correct references of three other tasks, run again and again while the attacker runs.
    let victims: Vec<SuiteSpec> = ["ClassEval_0", "ClassEval_1", "ClassEval_2"]
        .iter()
        .map(|id| {
            let t = ds.tasks.iter().find(|t| t.id == *id).unwrap();
            classlab::pipeline::eval::suite_for(t, &t.solution, Duration::from_secs(5), None)
        })
        .collect();
    let tests = "import unittest\nclass T(unittest.TestCase):\n    def test_attack(self):\n        self.assertEqual(Thing().attack(), [])\n";
    let attacker = suite(ATTACK, tests);
    let (attack, victims_r) = std::thread::scope(|s| {
        let a = s.spawn(|| sandbox().run(&attacker));
        std::thread::sleep(Duration::from_millis(300));
        let t0 = Instant::now();
        let mut results = Vec::new();
        while t0.elapsed() < Duration::from_secs(3) {
            for v in &victims {
                results.push(sandbox().run(v));
            }
        }
        (a.join().unwrap(), results)
    });
    assert!(
        attack.stdout.contains("hits"),
        "the attack did not run: {attack:#?}"
    );
    assert_eq!(
        outcome(&attack, "T.test_attack"),
        Outcome::Pass,
        "the attacker changed another process: {}\n{attack:#?}",
        attack.stdout
    );
    assert!(victims_r.len() >= 3, "{}", victims_r.len());
    for r in &victims_r {
        assert!(
            all_pass(r),
            "a correct reference beside the attacker: {r:#?}"
        );
    }
}

/// What the C library and Python pass for the calling process: allowed.
#[test]
fn calls_on_the_calling_process_still_work_and_on_its_own_child_do_not() {
    let _guard = serial();
    let code = r#"import ctypes, os, resource, signal, time
libc = ctypes.CDLL(None, use_errno=True)
class Thing:
    def own(self):
        me = os.getpid()
        os.nice(1)
        os.setpriority(os.PRIO_PROCESS, 0, 2)
        os.setpriority(os.PRIO_PROCESS, me, 3)
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft - 1, hard))
        resource.prlimit(me, resource.RLIMIT_NOFILE, (soft - 2, hard))
        resource.prlimit(0, resource.RLIMIT_NOFILE)
        cpus = os.sched_getaffinity(0)
        os.sched_setaffinity(0, cpus)
        os.sched_setaffinity(me, cpus)
        assert libc.syscall(251, 1, 0, 3 << 13) == 0, ctypes.get_errno()
        assert libc.syscall(251, 1, me, 2 << 13) == 0, ctypes.get_errno()
        return (os.getpriority(os.PRIO_PROCESS, 0), resource.getrlimit(resource.RLIMIT_NOFILE)[0] == soft - 2)
    def child(self):
        pid = os.fork()
        if pid == 0:
            time.sleep(30)
            os._exit(0)
        refused = []
        try:
            for what, f in (
                ('prlimit', lambda: resource.prlimit(pid, resource.RLIMIT_NOFILE, (3, 3))),
                ('setpriority', lambda: os.setpriority(os.PRIO_PROCESS, pid, 19)),
                ('affinity', lambda: os.sched_setaffinity(pid, os.sched_getaffinity(0))),
            ):
                try:
                    f()
                except PermissionError:
                    refused.append(what)
            if libc.syscall(251, 1, pid, 3 << 13) != 0 and ctypes.get_errno() == 1:
                refused.append('ioprio')
        finally:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        return refused
"#;
    // The scheduling calls are filtered only without a PID namespace per suite: with one,
    // they reach nothing but the suite's own processes, and libraries make them on their own
    // threads (libzmq's pthread_setschedparam aborts when refused).
    let refused = if sandbox().isolation().pid_namespace {
        "['prlimit', 'setpriority', 'ioprio']"
    } else {
        "['prlimit', 'setpriority', 'affinity', 'ioprio']"
    };
    let tests = format!(
        "import unittest\nclass T(unittest.TestCase):\n    def test_own(self):\n        self.assertEqual(Thing().own(), (3, True))\n    def test_child(self):\n        self.assertEqual(Thing().child(), {refused})\n"
    );
    let r = sandbox().run(&suite(code, &tests));
    assert_eq!(outcome(&r, "T.test_own"), Outcome::Pass, "{r:#?}");
    if sandbox().isolation().seccomp {
        // The child is the suite's own, same uid, same namespace: only the filter refuses.
        assert_eq!(outcome(&r, "T.test_child"), Outcome::Pass, "{r:#?}");
    }
}

/// What a suite sees of the machine's processes, and whom it runs as.
const LOOK: &str = r#"import os, time
class Thing:
    def look(self):
        time.sleep(1.0)
        pids = sorted(int(n) for n in os.listdir('/proc') if n.isdigit())
        print('uid', os.getuid(), 'pid', os.getpid(), 'pids', pids)
        return pids
"#;

#[test]
fn every_suite_has_its_own_pid_namespace_and_uid() {
    let _guard = serial();
    let tests = "import unittest, os\nclass T(unittest.TestCase):\n    def test_look(self):\n        self.assertEqual(Thing().look(), [1, os.getpid()])\n";
    let spec = suite(LOOK, tests);
    let results: Vec<SuiteResult> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..3).map(|_| s.spawn(|| sandbox().run(&spec))).collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut uids = Vec::new();
    for r in &results {
        assert_eq!(
            outcome(r, "T.test_look"),
            Outcome::Pass,
            "a suite saw processes not its own: {}\n{r:#?}",
            r.stdout
        );
        let uid: u32 = r
            .stdout
            .split_whitespace()
            .skip_while(|w| *w != "uid")
            .nth(1)
            .and_then(|u| u.parse().ok())
            .unwrap_or_else(|| panic!("{r:#?}"));
        uids.push(uid);
    }
    if let Some(first) = sandbox().isolation().run_as {
        uids.sort_unstable();
        uids.dedup();
        assert_eq!(
            uids.len(),
            3,
            "suites running at once shared a uid: {uids:?}"
        );
        assert!(uids.iter().all(|&u| u >= first), "{uids:?}");
    }
}

fn shared(rel: &str) -> std::path::PathBuf {
    let p = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/data")
        .join(rel);
    assert!(p.exists(), "{} is missing", p.display());
    p
}

/// A library schedules its own threads by their tids (libzmq's `pthread_setschedparam`, which
/// aborts the process when refused): with a PID namespace per suite, that works.
#[test]
fn a_library_may_schedule_its_own_threads() {
    let _guard = serial();
    let code = "import os, threading\nclass Thing:\n    def pin(self):\n        out = []\n        def run():\n            tid = threading.get_native_id()\n            os.sched_setaffinity(tid, os.sched_getaffinity(0))\n            os.sched_setscheduler(tid, os.SCHED_OTHER, os.sched_param(0))\n            out.append(True)\n        t = threading.Thread(target=run)\n        t.start()\n        t.join()\n        return out\n";
    let tests = "import unittest\nclass T(unittest.TestCase):\n    def test_pin(self):\n        self.assertEqual(Thing().pin(), [True])\n";
    let r = sandbox().run(&suite(code, tests));
    if sandbox().isolation().pid_namespace {
        assert_eq!(outcome(&r, "T.test_pin"), Outcome::Pass, "{r:#?}");
    }
}
