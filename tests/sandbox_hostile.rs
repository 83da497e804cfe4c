//! Hostile programs through the real sandbox: each is classified correctly, nothing outside the
//! work dir is touched, and no process is left behind.
//!
//! The suites run one at a time (a lock) so that any sandboxed process found after a suite
//! returns is that suite's leftover. Needs a Linux machine and `python3`; the isolation
//! assertions that depend on a feature (namespaces, Landlock, cgroups) check the isolation
//! report first.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use classlab::exec::{Limits, Sandbox, SandboxOptions, SuiteSpec};
use classlab::model::results::{Outcome, SuiteFailure, SuiteResult};

/// `sandbox_warm.rs` includes this file to run every case again with warm interpreters.
fn warm() -> bool {
    module_path!().starts_with("sandbox_warm")
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

fn serial() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

/// Descendants of this test process that are still alive: none once a suite has returned,
/// except the warm interpreter (its launcher, the namespace's init and the zygote itself).
fn sandbox_processes() -> Vec<String> {
    let mut parent = std::collections::HashMap::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Ok(pid) = name.parse::<i32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
            continue;
        };
        // pid (comm) state ppid ...
        let Some(rest) = stat.rsplit_once(')').map(|(_, r)| r.to_string()) else {
            continue;
        };
        let mut w = rest.split_whitespace();
        let state = w.next().unwrap_or("");
        let ppid: i32 = w.next().and_then(|p| p.parse().ok()).unwrap_or(0);
        if state != "Z" && state != "X" {
            parent.insert(pid, ppid);
        }
    }
    let me = std::process::id() as i32;
    let mut found = Vec::new();
    for &pid in parent.keys() {
        let mut p = pid;
        let mut hops = 0;
        while let Some(&pp) = parent.get(&p) {
            if pp == me {
                let cmd = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
                let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
                found.push((pid, cmd));
                break;
            }
            p = pp;
            hops += 1;
            if hops > 64 {
                break;
            }
        }
    }
    // The warm interpreter, its launcher and their init (the launcher's configuration is on a
    // descriptor, not in its command line).
    let zygote = found
        .iter()
        .filter(|(_, c)| c.contains("classlab warm interpreter"))
        .count();
    let launchers = found
        .iter()
        .filter(|(_, c)| c.contains("__sandbox-launch"))
        .count();
    if warm() && zygote == 1 && launchers == 2 && found.len() == 3 {
        return Vec::new();
    }
    found
        .into_iter()
        .map(|(p, c)| format!("{p}: {}", &c[..c.len().min(80)]))
        .collect()
}

fn quick() -> Limits {
    Limits {
        wall: Duration::from_secs(6),
        cpu: Duration::from_secs(2),
        ..Limits::quick()
    }
}

/// Run a ClassEval-style suite (code + unittest tests as one module) and check the machine.
fn run_with(code: &str, tests: &str, limits: Limits) -> SuiteResult {
    let _guard = serial();
    let spec = SuiteSpec::unittest_one_module(code, tests).with_limits(limits);
    let t0 = Instant::now();
    let r = sandbox().run(&spec);
    let left = sandbox_processes();
    assert!(
        left.is_empty(),
        "sandboxed processes left behind: {left:?}\n{r:#?}"
    );
    assert!(
        t0.elapsed() < Duration::from_secs(20),
        "suite took {:?}",
        t0.elapsed()
    );
    r
}

fn run(code: &str, tests: &str) -> SuiteResult {
    run_with(code, tests, quick())
}

fn run_pytest(code: &str, tests: &str) -> SuiteResult {
    let _guard = serial();
    let spec = SuiteSpec::pytest_snippet("snippet_1", code, "tests/test_snippet_1.py", tests)
        .with_limits(quick());
    let r = sandbox().run(&spec);
    let left = sandbox_processes();
    assert!(left.is_empty(), "sandboxed processes left behind: {left:?}");
    r
}

fn outcome(r: &SuiteResult, id: &str) -> Outcome {
    r.tests
        .iter()
        .find(|t| t.id == id)
        .unwrap_or_else(|| panic!("no {id} in {r:#?}"))
        .outcome
}

fn test<'a>(r: &'a SuiteResult, id: &str) -> &'a classlab::model::results::TestResult {
    r.tests
        .iter()
        .find(|t| t.id == id)
        .unwrap_or_else(|| panic!("no {id} in {r:#?}"))
}

fn no_pass(r: &SuiteResult) {
    assert!(
        r.tests.iter().all(|t| t.outcome != Outcome::Pass),
        "a hostile test passed: {r:#?}"
    );
}

/// A directory outside the work dir with a canary file, removed on drop.
struct Canary {
    dir: PathBuf,
}

impl Canary {
    fn new(tag: &str) -> Canary {
        let dir =
            std::env::temp_dir().join(format!("classlab-canary-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("canary.txt"), "precious").unwrap();
        Canary { dir }
    }
    fn file(&self) -> PathBuf {
        self.dir.join("canary.txt")
    }
    fn intact(&self) -> bool {
        std::fs::read_to_string(self.file()).is_ok_and(|s| s == "precious")
            && std::fs::read_dir(&self.dir).unwrap().count() == 1
    }
}

impl Drop for Canary {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

const CLS: &str = "class Thing:\n    def value(self):\n        return 1\n";

// ---------------------------------------------------------------------------------------------
// Runaway resources

#[test]
fn infinite_loop_is_a_timeout() {
    let tests = "import unittest\nclass T(unittest.TestCase):\n    def test_a(self):\n        self.assertEqual(Thing().value(), 1)\n    def test_loop(self):\n        while True:\n            pass\n";
    let r = run(CLS, tests);
    assert!(
        matches!(r.failure, Some(SuiteFailure::Timeout { .. })),
        "{r:#?}"
    );
    assert_eq!(
        outcome(&r, "T.test_a"),
        Outcome::Pass,
        "results before the loop are kept"
    );
    assert_eq!(outcome(&r, "T.test_loop"), Outcome::NotRun);
    assert!(
        r.wall_s < 7.5,
        "CPU limit (2 s) should end it: {}",
        r.wall_s
    );
}

#[test]
fn sleeping_forever_hits_the_wall_clock() {
    let tests = "import unittest, time\nclass T(unittest.TestCase):\n    def test_sleep(self):\n        time.sleep(1000)\n";
    let limits = Limits {
        wall: Duration::from_millis(1500),
        ..quick()
    };
    let r = run_with(CLS, tests, limits);
    assert_eq!(
        r.failure,
        Some(SuiteFailure::Timeout { limit_s: 1.5 }),
        "{r:#?}"
    );
    assert!(r.wall_s < 4.0, "{}", r.wall_s);
}

#[test]
fn infinite_loop_at_import_is_a_timeout() {
    let r = run(
        "while True:\n    pass\n",
        "import unittest\nclass T(unittest.TestCase):\n    def test_a(self):\n        pass\n",
    );
    assert!(
        matches!(r.failure, Some(SuiteFailure::Timeout { .. })),
        "{r:#?}"
    );
    assert_eq!(outcome(&r, "T.test_a"), Outcome::NotRun);
}

#[test]
fn fork_bomb_is_contained() {
    let tests = "import unittest, os\nclass T(unittest.TestCase):\n    def test_bomb(self):\n        while True:\n            try:\n                os.fork()\n            except OSError:\n                pass\n";
    let r = run(CLS, tests);
    assert!(r.failure.is_some(), "{r:#?}");
    no_pass(&r);
    if sandbox()
        .isolation()
        .cgroup
        .as_ref()
        .is_some_and(|c| c.pids.is_some())
    {
        assert!(
            matches!(r.failure, Some(SuiteFailure::Timeout { .. })),
            "{:?}",
            r.failure
        );
    }
}

#[test]
fn memory_bomb_single_allocation_is_a_memory_error() {
    let tests = "import unittest\nclass T(unittest.TestCase):\n    def test_big(self):\n        x = bytearray(8 << 30)\n        self.assertTrue(x)\n";
    let r = run(CLS, tests);
    assert_eq!(r.failure, None, "{r:#?}");
    let t = test(&r, "T.test_big");
    assert_eq!(t.outcome, Outcome::Error);
    assert_eq!(t.exc_type.as_deref(), Some("MemoryError"));
}

#[test]
fn memory_bomb_gradual_is_killed_as_memory() {
    let tests = "import unittest\nclass T(unittest.TestCase):\n    def test_grow(self):\n        keep = []\n        while True:\n            keep.append(bytearray(16 << 20))\n";
    let r = run(CLS, tests);
    no_pass(&r);
    let f = r.failure.clone();
    // cgroup memory limit (256 MiB) hits first: OOM kill. Without cgroups, RLIMIT_AS (1 GiB)
    // gives a MemoryError inside the test, unless zero-filling 1 GiB takes longer than the CPU
    // limit (2 s) on a slow machine.
    if sandbox()
        .isolation()
        .cgroup
        .as_ref()
        .is_some_and(|c| c.memory.is_some())
    {
        assert_eq!(f, Some(SuiteFailure::Memory), "{r:#?}");
    } else if !matches!(f, Some(SuiteFailure::Timeout { .. })) {
        assert_eq!(
            test(&r, "T.test_grow").exc_type.as_deref(),
            Some("MemoryError")
        );
    }
}

#[test]
fn disk_filler_hits_the_file_size_limit() {
    let tests = "import unittest\nclass T(unittest.TestCase):\n    def test_fill(self):\n        with open('big.bin', 'wb') as f:\n            while True:\n                f.write(b'x' * (1 << 20))\n";
    let r = run(CLS, tests);
    assert_eq!(r.failure, None, "{r:#?}");
    let t = test(&r, "T.test_fill");
    assert_eq!(t.outcome, Outcome::Error);
    assert!(
        t.message
            .as_deref()
            .unwrap_or("")
            .contains("File too large"),
        "{t:#?}"
    );
}

#[test]
fn disk_filler_with_many_files_hits_the_tmpfs_cap() {
    if !sandbox().isolation().private_tmpfs {
        eprintln!("skipped: no private tmpfs here");
        return;
    }
    let tests = "import unittest\nclass T(unittest.TestCase):\n    def test_fill(self):\n        i = 0\n        while True:\n            with open('f%d.bin' % i, 'wb') as f:\n                f.write(b'x' * (4 << 20))\n            i += 1\n";
    let r = run(CLS, tests);
    assert_eq!(r.failure, None, "{r:#?}");
    let t = test(&r, "T.test_fill");
    assert_eq!(t.outcome, Outcome::Error);
    assert!(
        t.message.as_deref().unwrap_or("").contains("No space left"),
        "{t:#?}"
    );
}

#[test]
fn too_many_open_files() {
    let tests = "import unittest\nclass T(unittest.TestCase):\n    def test_fds(self):\n        keep = []\n        while True:\n            keep.append(open('/dev/null'))\n";
    let r = run(CLS, tests);
    assert_eq!(r.failure, None);
    assert!(
        test(&r, "T.test_fds")
            .message
            .as_deref()
            .unwrap_or("")
            .contains("Too many open files")
    );
}

#[test]
fn hundred_megabytes_of_output_are_capped() {
    let tests = "import unittest, sys\nclass T(unittest.TestCase):\n    def test_spam(self):\n        chunk = 'x' * (1 << 20)\n        for _ in range(100):\n            sys.stdout.write(chunk)\n        sys.stdout.flush()\n        self.assertEqual(Thing().value(), 1)\n";
    let r = run(CLS, tests);
    assert_eq!(r.failure, None, "{:?}", r.failure);
    assert_eq!(outcome(&r, "T.test_spam"), Outcome::Pass);
    assert_eq!(r.stdout.len(), quick().output_bytes);
    assert_eq!(r.stdout.len() as u64 + r.stdout_dropped, 100 << 20);
}

#[test]
fn recursion_bomb_crashes_cleanly() {
    let tests = "import unittest, sys\nsys.setrecursionlimit(10 ** 7)\ndef f(n):\n    return f(n + 1) + 1\nclass T(unittest.TestCase):\n    def test_deep(self):\n        f(0)\n";
    let r = run(CLS, tests);
    no_pass(&r);
    // Python's own RecursionError, a stack overflow (SIGSEGV), or (Python 3.11 keeps frames on
    // the heap) the memory limit.
    match &r.failure {
        None => assert_eq!(
            test(&r, "T.test_deep").exc_type.as_deref(),
            Some("RecursionError")
        ),
        Some(
            SuiteFailure::Crashed {
                signal: Some(11), ..
            }
            | SuiteFailure::Memory,
        ) => {}
        other => panic!("{other:?}"),
    }
}

// ---------------------------------------------------------------------------------------------
// The file system

#[test]
fn deleting_files_outside_the_work_dir_fails() {
    let c = Canary::new("delete");
    let code = format!(
        "import os, shutil\nclass Thing:\n    def wipe(self):\n        os.remove({f:?})\n    def wipe_tree(self):\n        shutil.rmtree({d:?})\n",
        f = c.file().to_str().unwrap(),
        d = c.dir.to_str().unwrap()
    );
    let tests = "import unittest\nclass T(unittest.TestCase):\n    def test_rm(self):\n        Thing().wipe()\n    def test_rmtree(self):\n        Thing().wipe_tree()\n";
    let r = run(&code, tests);
    assert!(c.intact(), "canary damaged");
    no_pass(&r);
    if sandbox().isolation().landlock_abi > 0 {
        for id in ["T.test_rm", "T.test_rmtree"] {
            let t = test(&r, id);
            assert!(
                matches!(
                    t.exc_type.as_deref(),
                    Some("PermissionError" | "FileNotFoundError")
                ),
                "{t:#?}"
            );
        }
    }
}

#[test]
fn writing_files_outside_the_work_dir_fails() {
    let c = Canary::new("write");
    let target = c.dir.join("planted.txt");
    let code = format!(
        "class Thing:\n    def plant(self):\n        with open({t:?}, 'w') as f:\n            f.write('pwned')\n    def overwrite(self):\n        with open({f:?}, 'w') as f:\n            f.write('pwned')\n    def etc(self):\n        with open('/etc/classlab-pwned', 'w') as f:\n            f.write('x')\n    def tmp(self):\n        with open('/tmp/classlab-pwned-{pid}', 'w') as f:\n            f.write('x')\n",
        t = target.to_str().unwrap(),
        f = c.file().to_str().unwrap(),
        pid = std::process::id()
    );
    // /tmp inside the sandbox is its own: writing there works and reaches nothing outside.
    let tests = "import unittest\nclass T(unittest.TestCase):\n    def test_plant(self):\n        Thing().plant()\n    def test_overwrite(self):\n        Thing().overwrite()\n    def test_etc(self):\n        Thing().etc()\n    def test_tmp(self):\n        Thing().tmp()\n        self.fail('reached')\n";
    let r = run(&code, tests);
    assert!(c.intact(), "canary damaged");
    assert!(!target.exists());
    assert!(!Path::new("/etc/classlab-pwned").exists());
    let tmp = format!("/tmp/classlab-pwned-{}", std::process::id());
    let planted = Path::new(&tmp).exists();
    let _ = std::fs::remove_file(&tmp);
    assert!(!planted, "wrote to /tmp");
    no_pass(&r);
    for t in r.tests.iter().filter(|t| t.id != "T.test_tmp") {
        assert!(
            matches!(
                t.exc_type.as_deref(),
                Some("PermissionError" | "OSError" | "FileNotFoundError")
            ),
            "{t:#?}"
        );
    }
}

#[test]
fn reading_the_users_home_fails() {
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| "/root".into());
    let secret = home.join(format!(".classlab-canary-secret-{}", std::process::id()));
    std::fs::write(&secret, "TOP-SECRET-TOKEN").unwrap();
    let code = format!(
        "import os\nclass Thing:\n    def steal(self):\n        with open({s:?}) as f:\n            data = f.read()\n        print(data)\n        return data\n    def listing(self):\n        return os.listdir({h:?})\n",
        s = secret.to_str().unwrap(),
        h = home.to_str().unwrap()
    );
    let tests = "import unittest\nclass T(unittest.TestCase):\n    def test_steal(self):\n        self.assertIn('SECRET', Thing().steal())\n    def test_list(self):\n        print(Thing().listing())\n";
    let r = run(&code, tests);
    let _ = std::fs::remove_file(&secret);
    if sandbox().isolation().landlock_abi == 0 {
        eprintln!("skipped: no Landlock here");
        return;
    }
    assert!(
        !r.stdout.contains("TOP-SECRET"),
        "secret leaked: {}",
        r.stdout
    );
    assert!(
        !r.stdout.contains(".classlab-canary"),
        "home listed: {}",
        r.stdout
    );
    // Not even there: the sandbox's root holds no home directory.
    for t in &r.tests {
        assert!(
            matches!(
                t.exc_type.as_deref(),
                Some("PermissionError" | "FileNotFoundError")
            ),
            "{t:#?}"
        );
    }
}

#[test]
fn privileged_operations_fail() {
    // Capabilities are dropped even though the sandbox runs as uid 0 here.
    let code = "import os, ctypes, socket\nclass Thing:\n    def mknod(self):\n        os.mknod('dev', 0o600 | 0o020000, os.makedev(1, 3))\n    def clock(self):\n        libc = ctypes.CDLL(None, use_errno=True)\n        class TV(ctypes.Structure):\n            _fields_ = [('s', ctypes.c_long), ('us', ctypes.c_long)]\n        if libc.settimeofday(ctypes.byref(TV(0, 0)), None) != 0:\n            raise PermissionError(ctypes.get_errno(), 'settimeofday refused')\n    def sysctl(self):\n        with open('/proc/sys/kernel/hostname', 'w') as f:\n            f.write('pwned')\n    def chroot(self):\n        os.chroot('.')\n";
    let tests = "import unittest\nclass T(unittest.TestCase):\n    def test_mknod(self):\n        Thing().mknod()\n    def test_clock(self):\n        Thing().clock()\n    def test_sysctl(self):\n        Thing().sysctl()\n    def test_chroot(self):\n        Thing().chroot()\n";
    let r = run(code, tests);
    no_pass(&r);
    for t in &r.tests {
        assert!(
            matches!(t.exc_type.as_deref(), Some("PermissionError" | "OSError")),
            "{t:#?}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// The network

#[test]
fn network_connections_fail() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    listener.set_nonblocking(true).unwrap();
    let code = format!(
        "import socket\nclass Thing:\n    def call_home(self):\n        s = socket.create_connection(('127.0.0.1', {port}), timeout=2)\n        s.sendall(b'stolen')\n        return True\n    def udp(self):\n        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n        s.sendto(b'x', ('8.8.8.8', 53))\n        return True\n"
    );
    let tests = "import unittest\nclass T(unittest.TestCase):\n    def test_tcp(self):\n        self.assertTrue(Thing().call_home())\n    def test_udp(self):\n        self.assertTrue(Thing().udp())\n";
    let r = run(&code, tests);
    let mut got = Vec::new();
    if let Ok((mut s, _)) = listener.accept() {
        let _ = s.read_to_end(&mut got);
    }
    assert!(got.is_empty(), "the sandbox reached the listener");
    assert_eq!(outcome(&r, "T.test_tcp"), Outcome::Error, "{r:#?}");
    if sandbox().isolation().network_namespace {
        assert_eq!(outcome(&r, "T.test_udp"), Outcome::Error, "{r:#?}");
    }
}

// ---------------------------------------------------------------------------------------------
// Leaving early

#[test]
fn os_exit_before_tests_is_a_crash() {
    let r = run(
        "import os\nos._exit(0)\n",
        "import unittest\nclass T(unittest.TestCase):\n    def test_a(self):\n        pass\n",
    );
    let Some(SuiteFailure::Crashed {
        exit_code: Some(0),
        detail,
        ..
    }) = &r.failure
    else {
        panic!("{r:#?}")
    };
    assert!(detail.contains("final record"), "{detail}");
    assert_eq!(outcome(&r, "T.test_a"), Outcome::NotRun);
}

#[test]
fn os_exit_during_a_test_is_a_crash() {
    let tests = "import unittest, os\nclass T(unittest.TestCase):\n    def test_a(self):\n        pass\n    def test_b(self):\n        os._exit(0)\n    def test_c(self):\n        pass\n";
    let r = run(CLS, tests);
    assert!(
        matches!(
            r.failure,
            Some(SuiteFailure::Crashed {
                exit_code: Some(0),
                ..
            })
        ),
        "{r:#?}"
    );
    assert_eq!(outcome(&r, "T.test_a"), Outcome::Pass);
    assert_eq!(outcome(&r, "T.test_b"), Outcome::NotRun);
    assert_eq!(outcome(&r, "T.test_c"), Outcome::NotRun);
}

#[test]
fn sys_exit_before_tests_is_an_import_failure() {
    let r = run(
        "import sys\nsys.exit(0)\n",
        "import unittest\nclass T(unittest.TestCase):\n    def test_a(self):\n        pass\n",
    );
    let Some(SuiteFailure::Import { exc_type, line, .. }) = &r.failure else {
        panic!("{r:#?}")
    };
    assert_eq!(exc_type, "SystemExit");
    assert_eq!(*line, Some(2));
    assert_eq!(outcome(&r, "T.test_a"), Outcome::NotRun);
}

#[test]
fn sys_exit_during_a_test_errors_that_test_only() {
    let tests = "import unittest, sys\nclass T(unittest.TestCase):\n    def test_a(self):\n        sys.exit(0)\n    def test_b(self):\n        self.assertEqual(Thing().value(), 1)\n";
    let r = run(CLS, tests);
    assert_eq!(r.failure, None, "{r:#?}");
    assert_eq!(test(&r, "T.test_a").exc_type.as_deref(), Some("SystemExit"));
    assert_eq!(outcome(&r, "T.test_b"), Outcome::Pass);
}

#[test]
fn keyboard_interrupt_errors_that_test_only() {
    let tests = "import unittest\nclass T(unittest.TestCase):\n    def test_a(self):\n        raise KeyboardInterrupt\n    def test_b(self):\n        pass\n";
    let r = run(CLS, tests);
    assert_eq!(r.failure, None, "{r:#?}");
    assert_eq!(
        test(&r, "T.test_a").exc_type.as_deref(),
        Some("KeyboardInterrupt")
    );
    assert_eq!(outcome(&r, "T.test_b"), Outcome::Pass);
}

#[test]
fn segfault_through_ctypes_is_a_crash() {
    let tests = "import unittest, ctypes\nclass T(unittest.TestCase):\n    def test_a(self):\n        pass\n    def test_segv(self):\n        ctypes.string_at(0)\n";
    let r = run(CLS, tests);
    assert!(
        matches!(
            r.failure,
            Some(SuiteFailure::Crashed {
                signal: Some(11),
                ..
            })
        ),
        "{r:#?}"
    );
    assert_eq!(outcome(&r, "T.test_a"), Outcome::Pass);
    assert_eq!(outcome(&r, "T.test_segv"), Outcome::NotRun);
}

#[test]
fn killing_the_parent_does_not_escape() {
    let me = std::process::id();
    let tests = format!(
        "import unittest, os, signal\nclass T(unittest.TestCase):\n    def test_kill(self):\n        for pid in (os.getppid(), 1, {me}):\n            try:\n                os.kill(pid, signal.SIGKILL)\n            except OSError:\n                pass\n        try:\n            os.kill(-1, signal.SIGKILL)\n        except OSError:\n            pass\n        self.assertEqual(Thing().value(), 1)\n    def test_after(self):\n        pass\n"
    );
    let r = run(CLS, &tests);
    // We are still here; with a PID namespace the sandbox's init ignores the kill.
    if sandbox().isolation().pid_namespace {
        assert_eq!(r.failure, None, "{r:#?}");
        assert_eq!(outcome(&r, "T.test_after"), Outcome::Pass);
    } else {
        assert!(r.failure.is_some() || outcome(&r, "T.test_after") == Outcome::Pass);
    }
}

#[test]
fn reading_stdin_gets_end_of_file() {
    let tests = "import unittest, sys\nclass T(unittest.TestCase):\n    def test_input(self):\n        input('name? ')\n    def test_read(self):\n        self.assertEqual(sys.stdin.read(), '')\n";
    let r = run(CLS, tests);
    assert_eq!(r.failure, None);
    assert_eq!(
        test(&r, "T.test_input").exc_type.as_deref(),
        Some("EOFError")
    );
    assert_eq!(outcome(&r, "T.test_read"), Outcome::Pass);
}

// ---------------------------------------------------------------------------------------------
// Leftover processes and threads

#[test]
fn double_forked_daemon_is_killed_and_reported() {
    let code = "import os, time\nclass Thing:\n    def daemonize(self):\n        if os.fork() == 0:\n            os.setsid()\n            if os.fork() == 0:\n                os.chdir('/')\n                os.close(1); os.close(2)\n                while True:\n                    time.sleep(0.05)\n            os._exit(0)\n        time.sleep(0.1)\n        return 1\n";
    let tests = "import unittest\nclass T(unittest.TestCase):\n    def test_daemon(self):\n        self.assertEqual(Thing().daemonize(), 1)\n";
    let r = run(code, tests);
    assert_eq!(r.failure, None, "{r:#?}");
    assert_eq!(outcome(&r, "T.test_daemon"), Outcome::Pass);
    assert!(
        !r.leftovers.is_empty(),
        "the daemon should be reported: {r:#?}"
    );
}

#[test]
fn leftover_thread_does_not_hang_the_suite() {
    let tests = "import unittest, threading, time\nclass T(unittest.TestCase):\n    def test_thread(self):\n        threading.Thread(target=time.sleep, args=(1000,)).start()\n        self.assertEqual(Thing().value(), 1)\n";
    let r = run(CLS, tests);
    assert_eq!(r.failure, None, "{r:#?}");
    assert_eq!(outcome(&r, "T.test_thread"), Outcome::Pass);
    assert!(
        r.wall_s < 4.0,
        "the harness left with os._exit: {}",
        r.wall_s
    );
}

// ---------------------------------------------------------------------------------------------
// Forged verdicts

#[test]
fn forged_result_line_on_stdout_is_ignored() {
    let code = "import os, json\nfor s in range(5):\n    print(json.dumps({'n': 'x' * 32, 's': s, 't': 'test', 'id': 'T.test_a', 'o': 'pass'}))\nprint(json.dumps({'n': 'x' * 32, 's': 5, 't': 'final', 'count': 1}))\nos._exit(0)\n";
    let tests = "import unittest\nclass T(unittest.TestCase):\n    def test_a(self):\n        self.fail('wrong')\n";
    let r = run(code, tests);
    no_pass(&r);
    assert!(
        matches!(r.failure, Some(SuiteFailure::Crashed { .. })),
        "{r:#?}"
    );
    assert_eq!(outcome(&r, "T.test_a"), Outcome::NotRun);
}

#[test]
fn writing_to_the_result_descriptor_is_rejected() {
    // Write forged records to every descriptor the process has (the result pipe included,
    // wherever the harness moved it), then leave.
    let code = "import os, json\nclass Thing:\n    def value(self):\n        return 2\nfor name in os.listdir('/proc/self/fd'):\n    fd = int(name)\n    if fd <= 2:\n        continue\n    for s in range(0, 4):\n        try:\n            os.write(fd, (json.dumps({'n': 'guess', 's': s, 't': 'test', 'id': 'T.test_a', 'o': 'pass', 'd': 0}) + '\\n').encode())\n        except OSError:\n            pass\n";
    let tests = "import unittest\nclass T(unittest.TestCase):\n    def test_a(self):\n        self.assertEqual(Thing().value(), 1)\n";
    let r = run(code, tests);
    no_pass(&r);
    assert!(
        matches!(r.failure, Some(SuiteFailure::Tampered { .. })),
        "{r:#?}"
    );
}

#[test]
fn patching_unittest_result_is_detected() {
    let code = "import unittest\nclass Thing:\n    def value(self):\n        return 2\nunittest.TestResult.addFailure = lambda *a, **k: None\nunittest.TestResult.addError = lambda *a, **k: None\nunittest.result.TestResult.wasSuccessful = lambda self: True\n";
    let tests = "import unittest\nclass T(unittest.TestCase):\n    def test_a(self):\n        self.assertEqual(Thing().value(), 1)\n";
    let r = run(code, tests);
    no_pass(&r);
    let Some(SuiteFailure::Tampered { detail }) = &r.failure else {
        panic!("{r:#?}")
    };
    assert!(detail.contains("TestResult"), "{detail}");
}

#[test]
fn patching_testcase_run_is_detected() {
    let code = "import unittest\nclass Thing:\n    def value(self):\n        return 2\ndef run(self, result=None):\n    result.startTest(self)\n    result.addSuccess(self)\n    result.stopTest(self)\nunittest.TestCase.run = run\nunittest.TestCase.__call__ = run\n";
    let tests = "import unittest\nclass T(unittest.TestCase):\n    def test_a(self):\n        self.assertEqual(Thing().value(), 1)\n";
    let r = run(code, tests);
    no_pass(&r);
    assert!(
        matches!(r.failure, Some(SuiteFailure::Tampered { .. })),
        "{r:#?}"
    );
}

#[test]
fn patching_assertions_is_detected() {
    let code = "import unittest\nclass Thing:\n    def value(self):\n        unittest.TestCase.assertEqual = lambda *a, **k: None\n        return 2\n";
    let tests = "import unittest\nclass T(unittest.TestCase):\n    def test_a(self):\n        self.assertEqual(Thing().value(), 1)\n    def test_b(self):\n        self.assertEqual(Thing().value(), 1)\n";
    let r = run(code, tests);
    no_pass(&r);
    assert!(
        matches!(r.failure, Some(SuiteFailure::Tampered { .. })),
        "{r:#?}"
    );
}

#[test]
fn replacing_the_unittest_module_is_detected() {
    let code = "import sys, types, unittest\nfake = types.ModuleType('unittest')\nclass TestCase:\n    pass\nfake.TestCase = TestCase\nsys.modules['unittest'] = fake\nclass Thing:\n    def value(self):\n        return 2\n";
    let tests = "import unittest\nclass T(unittest.TestCase):\n    def test_a(self):\n        self.assertEqual(Thing().value(), 1)\n";
    let r = run(code, tests);
    no_pass(&r);
    let Some(SuiteFailure::Tampered { detail }) = &r.failure else {
        panic!("{r:#?}")
    };
    assert!(detail.contains("sys.modules['unittest']"), "{detail}");
}

#[test]
fn patching_pytest_hooks_is_detected() {
    let code = "import _pytest.python, _pytest.runner\n_pytest.python.Function.runtest = lambda self: None\nclass G:\n    def f(self):\n        return 2\n";
    let tests = "import pytest\nimport snippet_1 as module_0\n\ndef test_case_0():\n    assert module_0.G().f() == 1\n";
    let r = run_pytest(code, tests);
    no_pass(&r);
    assert!(
        matches!(r.failure, Some(SuiteFailure::Tampered { .. })),
        "{r:#?}"
    );
}

#[test]
fn registering_a_pytest_plugin_is_detected() {
    let code = "import gc\nclass Cheat:\n    def pytest_runtest_call(self, item):\n        pass\nimport _pytest.config\nfor o in gc.get_objects():\n    if type(o).__name__ == 'PytestPluginManager':\n        o.register(Cheat(), 'cheat')\n        break\nclass G:\n    def f(self):\n        return 2\n";
    let tests = "import pytest\nimport snippet_1 as module_0\n\ndef test_case_0():\n    assert module_0.G().f() == 1\n";
    let r = run_pytest(code, tests);
    no_pass(&r);
}

#[test]
fn raising_skiptest_counts_as_a_failure() {
    let code = "import unittest\nclass Thing:\n    def value(self):\n        raise unittest.SkipTest('not today')\n";
    let tests = "import unittest\nclass T(unittest.TestCase):\n    def test_a(self):\n        self.assertEqual(Thing().value(), 1)\n    @unittest.skip('the file skips this one')\n    def test_b(self):\n        pass\n";
    let r = run(code, tests);
    let t = test(&r, "T.test_a");
    assert_eq!(t.outcome, Outcome::Fail);
    assert_eq!(t.exc_type.as_deref(), Some("SkipTest"));
    assert_eq!(
        outcome(&r, "T.test_b"),
        Outcome::Skip,
        "a skip the file asks for stays a skip"
    );
}

#[test]
fn pytest_skip_in_code_counts_as_a_failure() {
    let code = "import pytest\nclass G:\n    def f(self):\n        pytest.skip('nope')\n";
    let tests = "import pytest\nimport snippet_1 as module_0\n\ndef test_case_0():\n    assert module_0.G().f() == 1\n";
    let r = run_pytest(code, tests);
    assert_eq!(outcome(&r, "test_case_0"), Outcome::Fail, "{r:#?}");
}

#[test]
fn always_equal_object_does_not_pass() {
    let code = "class Anything:\n    def __eq__(self, other):\n        return True\n    def __ne__(self, other):\n        return False\n    __hash__ = object.__hash__\nclass Thing:\n    def value(self):\n        return Anything()\n    def values(self):\n        return [Anything(), Anything()]\n";
    let tests = "import unittest\nclass T(unittest.TestCase):\n    def test_a(self):\n        self.assertEqual(Thing().value(), 42)\n    def test_b(self):\n        self.assertEqual(Thing().values(), [1, 2])\n    def test_c(self):\n        self.assertEqual(42, Thing().value())\n";
    let r = run(code, tests);
    for id in ["T.test_a", "T.test_b", "T.test_c"] {
        assert_eq!(outcome(&r, id), Outcome::Fail, "{id}: {r:#?}");
    }
}

#[test]
fn signalling_outside_processes_fails() {
    let me = std::process::id();
    let code = format!(
        "import os, signal\nclass Thing:\n    def poke(self):\n        os.kill({me}, signal.SIGTERM)\n        return 1\n"
    );
    let tests = "import unittest\nclass T(unittest.TestCase):\n    def test_poke(self):\n        self.assertEqual(Thing().poke(), 1)\n";
    let r = run(&code, tests);
    // Still alive (SIGTERM would have ended this test binary).
    assert_ne!(outcome(&r, "T.test_poke"), Outcome::Pass, "{r:#?}");
}

#[test]
fn the_work_dir_is_fresh_and_private() {
    // Nothing from the previous suite, and sibling dirs are invisible.
    let code = "import os\nclass Thing:\n    def look(self):\n        with open('mark.txt', 'a') as f:\n            f.write('x')\n        return sorted(os.listdir('.'))\n    def siblings(self):\n        return [n for n in os.listdir('..') if n != os.path.basename(os.getcwd())]\n";
    let tests = "import unittest\nclass T(unittest.TestCase):\n    def test_fresh(self):\n        self.assertEqual(Thing().look(), ['mark.txt', 'test_classeval.py'])\n    def test_siblings(self):\n        self.assertEqual(Thing().siblings(), [])\n";
    for _ in 0..2 {
        let r = run(code, tests);
        assert_eq!(outcome(&r, "T.test_fresh"), Outcome::Pass, "{r:#?}");
        if sandbox().isolation().landlock_abi > 0 || sandbox().isolation().minimal_root {
            // Unreadable, or (in its own root) holding nothing but this suite's dir.
            let t = test(&r, "T.test_siblings");
            assert!(
                t.outcome == Outcome::Pass || t.exc_type.as_deref() == Some("PermissionError"),
                "{t:#?}"
            );
        }
    }
}

#[test]
fn machine_is_unharmed_after_everything() {
    // A sanity suite after the hostile ones (in whatever order they ran): the sandbox works.
    let r = run(
        CLS,
        "import unittest\nclass T(unittest.TestCase):\n    def test_a(self):\n        self.assertEqual(Thing().value(), 1)\n",
    );
    assert_eq!(r.failure, None);
    assert_eq!(outcome(&r, "T.test_a"), Outcome::Pass);
    let _ = std::io::stdout().flush();
}

// ---------------------------------------------------------------------------------------------
// Escapes found by the attack round: host services behind UNIX sockets, root-only secrets

/// Whether a listener got a connection (it is non-blocking).
fn connected(l: &std::os::unix::net::UnixListener) -> bool {
    match l.accept() {
        Ok(_) => true,
        Err(e) => {
            assert_eq!(e.kind(), std::io::ErrorKind::WouldBlock, "{e}");
            false
        }
    }
}

#[test]
fn host_unix_sockets_are_unreachable() {
    use std::os::linux::net::SocketAddrExt;
    use std::os::unix::net::{SocketAddr, UnixListener};
    let pid = std::process::id();
    // A host service on a pathname socket (like a tmux server or a container daemon) …
    let path = std::env::temp_dir().join(format!("classlab-host-service-{pid}.sock"));
    let _ = std::fs::remove_file(&path);
    let pathname = UnixListener::bind(&path).unwrap();
    pathname.set_nonblocking(true).unwrap();
    // … and one on an abstract socket.
    let name = format!("classlab-host-abstract-{pid}");
    let abstract_ =
        UnixListener::bind_addr(&SocketAddr::from_abstract_name(&name).unwrap()).unwrap();
    abstract_.set_nonblocking(true).unwrap();
    let code = format!(
        "import socket\nclass Thing:\n    def pathname(self):\n        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\n        s.connect({p:?})\n        return 'connected'\n    def abstract(self):\n        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\n        s.connect('\\0{name}')\n        return 'connected'\n    def netlink(self):\n        socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)\n        return 'connected'\n",
        p = path.to_str().unwrap()
    );
    let tests = "import unittest\nclass T(unittest.TestCase):\n    def test_pathname(self):\n        self.assertEqual(Thing().pathname(), 'connected')\n    def test_abstract(self):\n        self.assertEqual(Thing().abstract(), 'connected')\n    def test_netlink(self):\n        self.assertEqual(Thing().netlink(), 'connected')\n";
    let r = run(&code, tests);
    let reached = (connected(&pathname), connected(&abstract_));
    let _ = std::fs::remove_file(&path);
    assert_eq!(reached, (false, false), "a host socket was reached: {r:#?}");
    no_pass(&r);
    if sandbox().isolation().seccomp {
        for t in &r.tests {
            assert_eq!(t.exc_type.as_deref(), Some("PermissionError"), "{t:#?}");
        }
    }
}

#[test]
fn root_only_secrets_are_unreadable() {
    if !sandbox().isolation().root {
        eprintln!("skipped: needs root to plant a root-only file");
        return;
    }
    use std::os::unix::fs::PermissionsExt;
    let pid = std::process::id();
    let secret = PathBuf::from(format!("/etc/classlab-secret-{pid}.key"));
    std::fs::write(&secret, format!("-----BEGIN PRIVATE KEY----- CANARY{pid}")).unwrap();
    std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o600)).unwrap();
    let snakeoil = "/etc/ssl/private/ssl-cert-snakeoil.key";
    let code = "class Thing:\n    def read(self, path):\n        with open(path) as f:\n            data = f.read()\n        print(data)\n        raise ValueError(data)\n";
    let tests = format!(
        "import unittest\nclass T(unittest.TestCase):\n    def test_planted(self):\n        Thing().read({s:?})\n    def test_snakeoil(self):\n        Thing().read({snakeoil:?})\n    def test_shadow(self):\n        Thing().read('/etc/shadow')\n",
        s = secret.to_str().unwrap()
    );
    let r = run(code, &tests);
    let _ = std::fs::remove_file(&secret);
    let everything = format!("{r:?}");
    assert!(
        !everything.contains(&format!("CANARY{pid}")) && !everything.contains("PRIVATE KEY"),
        "a secret reached the result: {r:#?}"
    );
    for t in &r.tests {
        assert!(
            matches!(
                t.exc_type.as_deref(),
                Some("FileNotFoundError" | "PermissionError")
            ),
            "{t:#?}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Forged verdicts, on real benchmark tasks: each trick against its honest twin (the same class
// without the trick) must not score better.

fn shared(rel: &str) -> PathBuf {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/data")
        .join(rel);
    assert!(p.exists(), "{} is missing", p.display());
    p
}

fn task(dataset: &str, id_part: &str) -> classlab::model::Task {
    static CACHE: OnceLock<Mutex<std::collections::HashMap<String, classlab::dataset::Dataset>>> =
        OnceLock::new();
    let mut cache = CACHE
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    let ds = cache
        .entry(dataset.to_string())
        .or_insert_with(|| classlab::dataset::load_path(&shared(dataset)).unwrap());
    ds.tasks
        .iter()
        .find(|t| t.id == id_part || t.id.ends_with(id_part))
        .unwrap_or_else(|| panic!("no task {id_part} in {dataset}"))
        .clone()
}

fn run_task(t: &classlab::model::Task, code: &str) -> SuiteResult {
    let _guard = serial();
    let spec = classlab::pipeline::eval::suite_for(t, code, Duration::from_secs(5), None);
    let r = sandbox().run(&spec);
    let left = sandbox_processes();
    assert!(left.is_empty(), "sandboxed processes left behind: {left:?}");
    r
}

fn passed(r: &SuiteResult) -> usize {
    r.tests
        .iter()
        .filter(|t| matches!(t.outcome, Outcome::Pass | Outcome::Xfail))
        .count()
}

/// The trick (code appended to the task's skeleton) scores no better than the skeleton.
fn no_better(t: &classlab::model::Task, trick: &str, what: &str) -> SuiteResult {
    let honest = run_task(t, &t.skeleton);
    let forged = run_task(t, &format!("{}\n{trick}\n", t.skeleton));
    assert!(
        passed(&forged) <= passed(&honest),
        "{what} on {}: {} passed with the trick, {} without\n{forged:#?}",
        t.id,
        passed(&forged),
        passed(&honest)
    );
    forged
}

fn tampered(r: &SuiteResult) -> bool {
    matches!(r.failure, Some(SuiteFailure::Tampered { .. }))
}

const CLASSEVAL: &str = "classeval/ClassEval_data.json";
/// ClassEval_0 (AccessGatewayFilter) and ClassEval_1 (AreaCalculator): assertEqual and
/// assertAlmostEqual on return values.
const CE_TASKS: [&str; 2] = ["ClassEval_0", "ClassEval_1"];

#[test]
fn forged_should_stop_is_tampering() {
    for id in CE_TASKS {
        let r = no_better(
            &task(CLASSEVAL, id),
            "import unittest.case\nunittest.case._ShouldStop = Exception\n",
            "_ShouldStop = Exception",
        );
        assert!(tampered(&r), "{r:#?}");
    }
}

#[test]
fn forged_expecting_failure_is_tampering() {
    for id in CE_TASKS {
        let r = no_better(
            &task(CLASSEVAL, id),
            "import unittest\nunittest.TestCase.__unittest_expecting_failure__ = True\n",
            "__unittest_expecting_failure__",
        );
        assert!(tampered(&r), "{r:#?}");
    }
}

const BUILD_CLASS_HOOK: &str = "import builtins, functools\n_orig = builtins.__build_class__\ndef _wrap(f):\n    @functools.wraps(f)\n    def w(*a, **k):\n        try:\n            return f(*a, **k)\n        except BaseException:\n            return None\n    return w\ndef _hook(func, name, *bases, **kw):\n    cls = _orig(func, name, *bases, **kw)\n    for k, v in list(vars(cls).items()):\n        if k.startswith('test') and callable(v):\n            setattr(cls, k, _wrap(v))\n    if name.endswith('Test') or 'Test' in name:\n        pass\n    return cls\nbuiltins.__build_class__ = _hook\n";

#[test]
fn forged_build_class_hook_is_tampering() {
    for id in CE_TASKS {
        let r = no_better(
            &task(CLASSEVAL, id),
            BUILD_CLASS_HOOK,
            "__build_class__ hook",
        );
        assert!(tampered(&r), "{r:#?}");
        // The same hook taking itself out after wrapping (builtins look untouched): the test
        // methods no longer run the test file's code.
        let sneaky = BUILD_CLASS_HOOK.replace(
            "    return cls\nbuiltins",
            "    if any(k.startswith('test') for k in vars(cls)):\n        builtins.__build_class__ = _orig\n    return cls\nbuiltins",
        );
        let r = no_better(&task(CLASSEVAL, id), &sneaky, "self-removing hook");
        assert!(tampered(&r), "{r:#?}");
    }
}

#[test]
fn forged_module_class_is_tampering() {
    let trick = "import sys, types, unittest\nclass _M(types.ModuleType):\n    def __getattribute__(self, name):\n        v = types.ModuleType.__getattribute__(self, name)\n        if isinstance(v, type) and issubclass(v, unittest.TestCase) and v is not unittest.TestCase:\n            return type(name, (unittest.TestCase,), {n: (lambda self: None) for n in dir(v) if n.startswith('test')})\n        return v\nsys.modules[__name__].__class__ = _M\n";
    for id in CE_TASKS {
        let r = no_better(&task(CLASSEVAL, id), trick, "module __class__");
        assert!(tampered(&r), "{r:#?}");
    }
}

#[test]
fn forged_records_through_the_harness_emit_fail() {
    // Find the harness's emit (and the expected ids) through gc, write a pass for every test,
    // then leave before the harness can speak.
    let trick = "import gc, os\ndef _forge():\n    emit, ids = None, []\n    for o in gc.get_objects():\n        if callable(o) and getattr(o, '__name__', '') == 'emit' and getattr(o, '__closure__', None):\n            emit = o\n        if isinstance(o, dict) and isinstance(o.get('expected'), list):\n            ids = o['expected']\n    for i in ids:\n        emit('test', id=i, o='pass', d=0.0)\n    emit('final', count=len(ids))\n    os._exit(0)\n_orig_init = None\nfor _n, _c in list(globals().items()):\n    if isinstance(_c, type) and _c.__module__ == __name__:\n        _c.__init__ = lambda self, *a, **k: _forge()\n        break\n";
    for id in CE_TASKS {
        let r = no_better(&task(CLASSEVAL, id), trick, "gc emit + os._exit");
        assert!(tampered(&r), "{r:#?}");
    }
}

#[test]
fn forged_equality_against_the_guard_fails() {
    // Equal to everything but the old guard's sentinel type; close to every number.
    let trick = "class _Any:\n    def __eq__(self, o):\n        return type(o).__name__ != 'Sentinel'\n    def __ne__(self, o):\n        return not self.__eq__(o)\n    def __sub__(self, o):\n        return 0\n    __rsub__ = __sub__\n    def __abs__(self):\n        return 0\n    def __round__(self, n=None):\n        return 0\n    __hash__ = object.__hash__\nfor _n, _c in list(globals().items()):\n    if isinstance(_c, type) and _c.__module__ == __name__ and _c is not _Any:\n        for _k, _v in list(vars(_c).items()):\n            if callable(_v) and not _k.startswith('__'):\n                setattr(_c, _k, lambda *a, **k: _Any())\n        break\n";
    // Return values checked with assertAlmostEqual, assertEqual, assertIn.
    for id in ["ClassEval_1", "ClassEval_3", "ClassEval_12"] {
        no_better(&task(CLASSEVAL, id), trick, "always-equal (guard-aware)");
    }
}

const REALCLASSEVAL: &str = "realclasseval/csn";

#[test]
fn forged_pytest_module_in_sys_modules_is_tampering() {
    let t = task(REALCLASSEVAL, "16");
    let trick = "import sys, types, os, re\ndef _plant():\n    here = os.path.dirname(os.path.abspath(__file__))\n    path = os.path.join(here, 'tests', 'test_snippet_16.py')\n    names = re.findall(r'^def (test\\w+)', open(path).read(), re.M)\n    m = types.ModuleType('test_snippet_16')\n    m.__file__ = path\n    for n in names:\n        exec('def %s():\\n    pass\\n' % n, m.__dict__)\n    sys.modules['test_snippet_16'] = m\n_plant()\n";
    let r = no_better(&t, trick, "fake test module in sys.modules");
    assert!(passed(&r) == 0 || tampered(&r), "{r:#?}");
}

#[test]
fn rewriting_the_pytest_file_fails() {
    let t = task(REALCLASSEVAL, "16");
    let trick = "import os, re\ndef _rewrite():\n    here = os.path.dirname(os.path.abspath(__file__))\n    path = os.path.join(here, 'tests', 'test_snippet_16.py')\n    names = re.findall(r'^def (test\\w+)', open(path).read(), re.M)\n    try:\n        with open(path, 'w') as f:\n            f.write(''.join('def %s():\\n    pass\\n' % n for n in names))\n    except OSError:\n        pass\n_rewrite()\n";
    no_better(&t, trick, "rewriting the test file");
}
