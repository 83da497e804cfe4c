//! The split harness's two processes through the real sandbox (issue 22, item 1's topology):
//! the code under test, in the host, cannot see the runner's processes or command line, cannot
//! read or list the tests, cannot signal or trace the runner, and runs as another uid; both
//! processes share the scratch directory; the host socket carries the suite; a host that dies
//! ends its suite's remaining tests, listed. Every case runs cold here and warm in
//! `sandbox_split_warm.rs`.

use std::sync::OnceLock;
use std::time::Duration;

use classlab::exec::{Harness, Limits, Sandbox, SandboxOptions, SuiteSpec};
use classlab::model::results::{Outcome, SuiteResult, TestResult};

/// `sandbox_split_warm.rs` includes this file to run every case warm.
fn warm() -> bool {
    module_path!().starts_with("sandbox_split_warm")
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

fn limits() -> Limits {
    Limits {
        wall: Duration::from_secs(20),
        cpu: Duration::from_secs(10),
        ..Limits::quick()
    }
}

fn run_split(code: &str, tests: &str) -> SuiteResult {
    let spec = SuiteSpec::unittest_one_module(code, tests)
        .with_limits(limits())
        .with_harness(Harness::Split);
    sandbox().run(&spec)
}

fn test<'a>(r: &'a SuiteResult, id: &str) -> &'a TestResult {
    r.tests
        .iter()
        .find(|t| t.id == id)
        .unwrap_or_else(|| panic!("no {id} in {r:#?}"))
}

fn passes(r: &SuiteResult, id: &str) {
    let t = test(r, id);
    assert_eq!(
        t.outcome,
        Outcome::Pass,
        "{id}: {t:#?}\nstdout: {}\nstderr: {}",
        r.stdout,
        r.stderr
    );
}

/// The code under test: what the host process sees and may do.
const LOOK: &str = r#"import os, signal
class Look:
    def pids(self):
        return sorted(int(n) for n in os.listdir('/proc') if n.isdigit())
    def cmdlines(self):
        out = []
        for n in os.listdir('/proc'):
            if n.isdigit():
                try:
                    with open('/proc/%s/cmdline' % n, 'rb') as f:
                        out.append(f.read().decode('utf-8', 'replace'))
                except OSError:
                    pass
        return '\n'.join(out)
    def uid(self):
        return os.getuid()
    def attempt(self, what, path):
        try:
            if what == 'read':
                with open(path) as f:
                    f.read()
            elif what == 'list':
                os.listdir(path)
            elif what == 'write':
                with open(path, 'w') as f:
                    f.write('x')
            return 'done'
        except OSError as e:
            return type(e).__name__
    def signal_all(self):
        hit = []
        for pid in range(1, 4096):
            if pid == os.getpid():
                continue
            try:
                os.kill(pid, 0)
                hit.append(pid)
            except OSError:
                pass
        return hit
    def trace(self, pid):
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.ptrace(16, pid, 0, 0) == 0  # PTRACE_ATTACH
    def write(self, name, text):
        with open(name, 'w') as f:
            f.write(text)
        return os.path.abspath(name)
    def read(self, name):
        with open(name) as f:
            return f.read()
    def cwd(self):
        return os.getcwd()
    def say(self, text):
        print(text, flush=True)
        return len(text)
    def die(self):
        os._exit(3)
    def write_into(self, d, name):
        with open(os.path.join(d, name), 'w') as f:
            f.write('from the code')
        return sorted(os.listdir(d))
    def private_dir(self):
        import tempfile
        d = tempfile.mkdtemp()
        with open(os.path.join(d, 'made.txt'), 'w') as f:
            f.write('code')
        return d
    def forked_warm(self):
        with open('/proc/self/cmdline', 'rb') as f:
            return b'classlab warm interpreter' in f.read()
"#;

const LOOK_TESTS: &str = r#"import os, sys, unittest
# The test module as written (tests/, the runner's alone); its `__file__` is in scratch/.
TEST_FILE = sys._getframe().f_code.co_filename
HERE = os.path.dirname(TEST_FILE)
class T(unittest.TestCase):
    def test_a_host_sees_only_its_own_processes(self):
        self.assertEqual(Look().pids(), [1])  # itself: PID 1 of a namespace of its own
    def test_b_no_runner_command_line(self):
        seen = Look().cmdlines()
        self.assertNotIn('test_classeval', seen)
        self.assertNotIn('tests_dir', seen)
        self.assertNotIn('test_b_no_runner_command_line', seen)
    def test_c_tests_unreadable(self):
        self.assertTrue(os.path.isfile(TEST_FILE))
        self.assertNotEqual(Look().attempt('read', TEST_FILE), 'done')
        self.assertNotEqual(Look().attempt('list', HERE), 'done')
        self.assertNotEqual(Look().attempt('write', os.path.join(HERE, 'planted.py')), 'done')
        # and the runner does not read the code's directory either
        with self.assertRaises(OSError):
            os.listdir(os.path.join(os.path.dirname(HERE), 'code'))
    def test_d_no_signal_no_trace(self):
        # Nothing: the host is alone in its namespace
        self.assertEqual(Look().signal_all(), [])
        self.assertFalse(Look().trace(1))
    def test_e_scratch_is_shared(self):
        path = Look().write('from_host.txt', 'host')
        self.assertEqual(os.path.dirname(path), os.getcwd())
        self.assertEqual(Look().cwd(), os.getcwd())
        with open('from_host.txt') as f:
            self.assertEqual(f.read(), 'host')
        with open('from_runner.txt', 'w') as f:
            f.write('runner')
        self.assertEqual(Look().read('from_runner.txt'), 'runner')
        os.remove('from_host.txt')
        self.assertFalse(os.path.exists('from_host.txt'))
    def test_h_private_directories_are_shared(self):
        import shutil, tempfile
        d = tempfile.mkdtemp()  # mode 0700, the runner's
        self.assertEqual(Look().write_into(d, 'x.txt'), ['x.txt'])
        with open(os.path.join(d, 'x.txt')) as f:
            self.assertEqual(f.read(), 'from the code')
        shutil.rmtree(d)
        theirs = Look().private_dir()  # mode 0700, the host's
        with open(os.path.join(theirs, 'made.txt')) as f:
            self.assertEqual(f.read(), 'code')
        shutil.rmtree(theirs)
        self.assertFalse(os.path.exists(theirs))
    def test_i_files_beside_the_tests_are_shared(self):
        # ClassEval_45's tests save an image at os.path.dirname(__file__) for the code to read.
        beside = os.path.join(os.path.dirname(__file__), 'beside.txt')
        with open(beside, 'w') as f:
            f.write('from the tests')
        self.assertEqual(Look().read(beside), 'from the tests')
        self.assertEqual(os.path.dirname(__file__), os.getcwd())
        self.assertFalse(os.path.exists(__file__))  # no test source in scratch/
        self.assertNotEqual(os.path.dirname(__file__), HERE)
    def test_g_host_output_is_captured(self):
        self.assertEqual(Look().say('said-by-the-host'), 16)
    def test_f_uids(self):
        print('uids', os.getuid(), Look().uid())
        with open('/proc/self/cmdline', 'rb') as f:
            print('warm', b'classlab warm interpreter' in f.read(), Look().forked_warm())
"#;

#[test]
fn the_host_cannot_reach_the_runner_or_the_tests() {
    let r = run_split(LOOK, LOOK_TESTS);
    assert_eq!(r.failure, None, "{r:#?}");
    for id in [
        "T.test_a_host_sees_only_its_own_processes",
        "T.test_b_no_runner_command_line",
        "T.test_c_tests_unreadable",
        "T.test_d_no_signal_no_trace",
        "T.test_e_scratch_is_shared",
        "T.test_f_uids",
        "T.test_g_host_output_is_captured",
        "T.test_i_files_beside_the_tests_are_shared",
    ] {
        passes(&r, id);
    }
    // Through the host's idmapped view of the scratch directory (when the machine has it).
    if sandbox().isolation().scratch_idmap || sandbox().isolation().run_as.is_none() {
        passes(&r, "T.test_h_private_directories_are_shared");
    }
    let uids: Vec<u32> = r
        .stdout
        .split_whitespace()
        .skip_while(|w| *w != "uids")
        .skip(1)
        .take(2)
        .filter_map(|u| u.parse().ok())
        .collect();
    assert_eq!(uids.len(), 2, "{}", r.stdout);
    if let Some(first) = sandbox().isolation().run_as {
        assert_ne!(uids[0], uids[1], "runner and host share a uid");
        assert!(uids.iter().all(|&u| u >= first), "{uids:?}");
    }
    assert!(r.leftovers.is_empty(), "{:?}", r.leftovers);
    assert!(r.stdout.contains("said-by-the-host"), "{}", r.stdout);
    // Both processes came the way the sandbox was asked for (warm: forked from the zygote).
    let expect = format!("warm {} {}", py_bool(warm()), py_bool(warm()));
    assert!(r.stdout.contains(&expect), "{expect:?} in {}", r.stdout);
}

fn py_bool(b: bool) -> &'static str {
    if b { "True" } else { "False" }
}

#[test]
fn a_dying_host_fails_the_remaining_tests_listed() {
    let tests = "import unittest\nclass T(unittest.TestCase):\n    def test_a(self):\n        self.assertEqual(Look().cwd(), __import__('os').getcwd())\n    def test_b(self):\n        Look().die()\n    def test_c(self):\n        self.assertEqual(Look().uid(), 0)\n";
    let r = run_split(LOOK, tests);
    passes(&r, "T.test_a");
    for id in ["T.test_b", "T.test_c"] {
        let t = test(&r, id);
        assert_eq!(t.outcome, Outcome::Error, "{id}: {t:#?}\n{r:#?}");
        assert!(
            matches!(t.exc_type.as_deref(), Some("HostDied" | "Timeout")),
            "{id}: {t:#?}"
        );
    }
}

#[test]
fn a_host_that_leaves_a_process_behind_is_reported() {
    let code = "import os, time\nclass D:\n    def spawn(self):\n        if os.fork() == 0:\n            time.sleep(60)\n            os._exit(0)\n        return 1\n";
    let tests = "import unittest\nclass T(unittest.TestCase):\n    def test_a(self):\n        self.assertEqual(D().spawn(), 1)\n";
    let r = run_split(code, tests);
    passes(&r, "T.test_a");
    assert!(
        r.leftovers.iter().any(|l| l.contains("still running")),
        "the host's child was not reported: {:?}",
        r.leftovers
    );
}

/// The host imports the code as soon as it starts, before the runner asks: an import that
/// fails or never ends is reported as the import's, within the import's limit, as it was when
/// the runner's request started the import.
#[test]
fn the_code_s_import_fails_or_times_out_as_the_import() {
    let tests = "import unittest\nclass T(unittest.TestCase):\n    def test_a(self):\n        self.assertTrue(True)\n";
    for (code, want) in [
        ("raise ValueError('bad at import')\n", "ValueError"),
        ("while True:\n    pass\n", "Timeout"),
    ] {
        let spec = SuiteSpec::unittest_one_module(code, tests)
            .with_limits(Limits {
                import_timeout: Some(Duration::from_secs(2)),
                ..limits()
            })
            .with_harness(Harness::Split);
        let t0 = std::time::Instant::now();
        let r = sandbox().run(&spec);
        assert!(t0.elapsed() < Duration::from_secs(15), "{r:#?}");
        let failure = format!("{:?}", r.failure);
        assert!(failure.contains(want), "{want}: {failure}");
    }
}
