//! Exec: run untrusted Python tests in a sandbox and return per-test outcomes.
//!
//! Model-generated code never runs in the classlab process. Each suite runs in a child Python
//! started through a *launcher* (classlab itself, re-executed in a hidden mode — see
//! [`maybe_launch`], which `main` calls first) that sets the sandbox up single-threaded:
//!
//! * a fresh work dir holding only the suite's files, on a private size-capped tmpfs
//!   (mount namespace), removed afterwards;
//! * network, mount, PID, IPC and UTS namespaces (no network at all; a PID namespace whose init
//!   takes every leftover process down with it; a private `/proc` and `/dev/shm`);
//! * per-suite cgroups below classlab's own: `pids.max`, a memory limit, and a kill that a
//!   double-forked daemon or a fork bomb cannot escape;
//! * rlimits: CPU time, address space, file size, open files, no core dumps;
//! * all capabilities dropped for good (securebits locked), `no_new_privs`;
//! * Landlock: reads only where the interpreter lives, the system libraries and a few `/etc`
//!   files; writes only in the work dir; no TCP; no signals or abstract sockets outside;
//! * a scrubbed environment, stdin `/dev/null`, output capped;
//! * results over a dedicated pipe, every record tagged with a per-run nonce and a sequence
//!   number, ended by a final record; the parent checks them against the test ids it parsed
//!   from the (trusted) test file itself.
//!
//! [`Sandbox::detect`] finds out which of these the machine allows and reports it in an
//! [`IsolationReport`]; what is missing is replaced by weaker means (rlimits, process groups)
//! with a warning, never silently. [`Pool`] runs suites concurrently. With
//! [`SandboxOptions::warm`], suites fork from a pre-started interpreter instead (see `warm.rs`:
//! it never reads a request, so no suite inherits another's data, and every suite still gets
//! its own PID namespace). As root, every running suite has a uid of its own (`uids.rs`).
//!
//! # Verdicts and their limits
//! The harness keeps private references to the unittest/pytest internals it uses, builds its
//! result object before importing the code under test, checks after every test that nothing it
//! relies on was replaced and that exactly one test ran, guards `assertEqual`/`assertIn` against
//! always-equal objects, and leaves with `os._exit` after its final record. The parent accepts
//! only records with the run's nonce, in sequence, once per test, followed by a final record and
//! a clean exit; anything else discards every pass of the suite (`SuiteFailure::Protocol`).
//! A skip the test file does not ask for becomes a failure (`exc_type = "SkipTest"`).
//!
//! Residual risk: the code under test runs in the harness's own process, so code written
//! *against this harness* can find the nonce and the emitting closure (through `gc`, frames or
//! ctypes) and forge a complete, well-formed run. No in-process harness can prevent that; the
//! checks above stop the generic tricks (forged stdout, `os._exit`, patched unittest/pytest
//! internals, `SkipTest`, always-equal objects), and the sandbox bounds what a forger can do
//! to the machine: nothing. The always-equal guard covers unittest assertions, not pytest's
//! rewritten `assert`. Python runs with `-s -P -B` (`-I` without `-E`: the environment is
//! ours, and `PYTHONHASHSEED` must apply).

mod cgroup;
mod config;
mod cpus;
mod idmap;
mod isolation;
mod launch;
mod mode;
mod pool;
mod probe;
mod program;
mod protocol;
mod rootfs;
mod seccomp;
mod service;
mod setup;
mod spec;
mod sys;
mod uids;
mod warm;

use std::fmt;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

pub use cgroup::CgroupBase;
pub use isolation::{IsolationReport, PythonInfo};
pub use launch::maybe_launch;
pub use mode::{DEFAULT_HARNESS, INPROC_CAVEAT, VALIDATE_HARNESS};
pub use pool::Pool;
pub use probe::{FileCoverage, Probe, ProbeReport};
pub use program::{PROGRAM_INPUT, Program, ProgramRun, ProgramStop};
pub use service::{Executor, SetupError};
pub use spec::{
    CodeRegion, HOST, Harness, Limits, Placement, SPLIT_RUNNER, SplitDirs, SuiteKind, SuiteSpec,
    pytest_expected, python_argv, unittest_expected,
};
pub use uids::FIRST_SUITE_UID;

use crate::model::results::SuiteResult;
use launch::{CONFIG_ON_FD, LAUNCH_ARG, LAUNCH_ENV, ProbeResult};
use protocol::{Channel, Observed, Status, Stop};

/// The harness that runs inside the sandbox.
pub const HARNESS: &str = include_str!("../../assets/harness/runner.py");

/// Environment variable naming the launcher binary (a classlab build with the `maybe_launch`
/// hook); by default the running executable, or a `classlab` binary beside it.
pub const LAUNCHER_ENV: &str = "CLASSLAB_LAUNCHER";

/// Why a sandbox could not be set up at all.
#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    #[error("no Python interpreter: {0}")]
    Python(String),
    #[error(
        "no sandbox launcher: {0} (the classlab binary must call classlab::exec::maybe_launch() \
         first thing in main; set {LAUNCHER_ENV} to point at such a binary)"
    )]
    Launcher(String),
    #[error("{0}")]
    Io(#[from] io::Error),
}

/// Options for [`Sandbox::with_options`].
#[derive(Debug, Clone, Default)]
pub struct SandboxOptions {
    /// The interpreter (default: `python3` on `PATH`, resolved to the real binary).
    pub python: Option<PathBuf>,
    /// The launcher binary (default: see [`LAUNCHER_ENV`]).
    pub launcher: Option<PathBuf>,
    /// Extra trees the sandbox may read (e.g. an `nltk_data` directory).
    pub extra_read: Vec<PathBuf>,
    /// Extra environment variables for the sandboxed Python (e.g. `NLTK_DATA`).
    pub extra_env: Vec<(String, String)>,
    /// Fork suites from a warm interpreter (see the `warm` module docs) when the machine
    /// allows it with the same guarantees (root, namespaces, Landlock, a cgroup that can kill);
    /// otherwise cold, with a warning in the report.
    pub warm: bool,
}

/// A configured sandbox: the interpreter, the launcher and what isolation the machine allows.
pub struct Sandbox {
    report: IsolationReport,
    probe: ProbeResult,
    options: SandboxOptions,
    read_paths: Vec<PathBuf>,
    /// Where the suites' work dirs are made: a directory of this sandbox's own.
    work_root: PathBuf,
    /// seccomp programs (hex) for every suite.
    seccomp: Vec<String>,
    zygote: Mutex<Option<warm::Zygote>>,
    /// The user namespaces of warm split suites' idmapped scratch, by (runner, host) uid pair.
    idmaps: Mutex<std::collections::HashMap<(u32, u32), std::os::fd::OwnedFd>>,
    /// Uids of the suites running now (as root: one pair per suite).
    uids: uids::UidPool,
    /// The CPU each split suite's two processes share.
    cpus: cpus::CpuPool,
}

impl fmt::Debug for Sandbox {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sandbox")
            .field("report", &self.report)
            .finish_non_exhaustive()
    }
}

impl Sandbox {
    /// As root, the uids a suite or program runs as while it runs (`uids.rs`); as another
    /// user, none (the user namespace maps one).
    pub(crate) fn lease_uids(&self) -> io::Result<Option<uids::UidLease<'_>>> {
        match self.report.run_as {
            Some(_) => self
                .uids
                .lease()
                .map(Some)
                .ok_or_else(|| io::Error::other("no free uid for the suite")),
            None => Ok(None),
        }
    }

    pub fn isolation(&self) -> &IsolationReport {
        &self.report
    }

    /// Run one suite to completion.
    pub fn run(&self, spec: &SuiteSpec) -> SuiteResult {
        self.run_cancellable(spec, &AtomicBool::new(false))
    }

    /// Run one suite; setting `cancel` kills it (the result then says `cancelled`).
    pub fn run_cancellable(&self, spec: &SuiteSpec, cancel: &AtomicBool) -> SuiteResult {
        self.run_with(spec, cancel, None).0
    }

    /// Run one suite with the harness instrumented as `probe` says (see [`Probe`]).
    pub fn run_probed(
        &self,
        spec: &SuiteSpec,
        probe: &Probe,
        cancel: &AtomicBool,
    ) -> (SuiteResult, ProbeReport) {
        self.run_with(spec, cancel, Some(probe))
    }

    fn run_with(
        &self,
        spec: &SuiteSpec,
        cancel: &AtomicBool,
        probe: Option<&Probe>,
    ) -> (SuiteResult, ProbeReport) {
        let t0 = Instant::now();
        match self.run_inner(spec, cancel, t0, probe) {
            Ok(r) => r,
            Err(e) => (
                protocol::assemble(
                    spec,
                    Observed {
                        channel: Channel::new("", Box::new(String::new)),
                        status: Status {
                            setup_error: Some(e.to_string()),
                            ..Status::default()
                        },
                        stop: Stop::None,
                        oom_killed: false,
                        stdout: String::new(),
                        stderr: String::new(),
                        stdout_dropped: 0,
                        stderr_dropped: 0,
                        wall_s: t0.elapsed().as_secs_f64(),
                        leftovers: Vec::new(),
                    },
                ),
                ProbeReport::default(),
            ),
        }
    }

    fn run_inner(
        &self,
        spec: &SuiteSpec,
        cancel: &AtomicBool,
        t0: Instant,
        probe: Option<&Probe>,
    ) -> io::Result<(SuiteResult, ProbeReport)> {
        let warm =
            self.report.warm && spec.hash_seed.unwrap_or(0) == 0 && self.report.cgroup.is_some();
        let workdir = self.make_workdir(spec)?;
        let workdir_path = workdir.0.clone();
        // Without Landlock nothing stops writes outside the work dir: look for new entries in
        // the usual places afterwards (best effort; concurrent suites may be blamed for each
        // other's files).
        let outside =
            (self.report.landlock_abi == 0).then(|| OutsideSnapshot::take(&self.work_root));
        let mut cg = match &self.report.cgroup {
            Some(base) => Some(base.create(spec.limits.pids, spec.limits.memory_bytes)?),
            None => None,
        };
        let procs = cg.as_ref().map(|c| c.procs_files()).unwrap_or_default();
        let lease = self.lease_uids()?;
        let mut launch = self.suite_launch(spec, &workdir.0, procs, probe, lease.as_ref())?;
        let cpu = launch.config.host.as_ref().and_then(|_| self.cpus.lease());
        if let (Some(host), Some(cpu)) = (launch.config.host.as_mut(), &cpu) {
            host.cpu = Some(cpu.cpu());
        }

        let (out_r, out_w) = sys::pipe()?;
        let (err_r, err_w) = sys::pipe()?;
        let (res_r, res_w) = sys::pipe()?;
        // The token channel: a socket pair, so that classlab's writes can never raise SIGPIPE.
        let (non_r, non_w) = sys::socket_pair(libc::SOCK_STREAM)?;
        let (st_r, st_w) = sys::pipe()?;
        // The token pipe stays open: the nonce and the first token now, then one token per
        // accepted verdict (see protocol::Channel).
        let nonce = sys::random_hex();
        let mut channel = Channel::new(&nonce, Box::new(sys::random_hex));
        sys::send_all(&non_w, channel.greeting().as_bytes())?;

        let sent = warm
            && cg.is_some()
            && self
                .warm_request(
                    &launch,
                    spec,
                    [
                        out_w.as_raw_fd(),
                        err_w.as_raw_fd(),
                        res_w.as_raw_fd(),
                        non_r.as_raw_fd(),
                        st_w.as_raw_fd(),
                    ],
                )
                .is_ok();
        let mut child = None;
        if sent {
            drop((out_w, err_w, res_w, non_r, st_w));
        } else {
            Self::write_files(&launch, spec)?;
            // The configuration in a memory file: with the split harness's sources it is larger
            // than one argument may be.
            let config_json = serde_json::to_vec(&launch.config).map_err(io::Error::other)?;
            let config_fd = sys::sealed_memfd("classlab-launch", &config_json)?;
            let mut cmd = Command::new(&self.report.launcher);
            cmd.arg(LAUNCH_ARG)
                .arg(CONFIG_ON_FD)
                .env_clear()
                .env(LAUNCH_ENV, "run")
                .stdin(Stdio::null())
                .stdout(Stdio::from(out_w))
                .stderr(Stdio::from(err_w));
            let fds = [
                res_w.as_raw_fd(),
                non_r.as_raw_fd(),
                st_w.as_raw_fd(),
                config_fd.as_raw_fd(),
            ];
            sys::place_fds_at_3(&mut cmd, fds);
            child = Some(cmd.spawn()?);
            drop(cmd);
            drop((res_w, non_r, st_w, config_fd));
        }
        let launcher_pid = child.as_ref().map(|c| c.id() as i32);

        for fd in [&out_r, &err_r, &res_r, &st_r] {
            sys::set_nonblocking(fd)?;
        }
        let cap = spec.limits.output_bytes;
        let mut out = Capture::new(cap);
        let mut err = Capture::new(cap);
        let mut status_text = String::new();
        let mut status = Status::default();
        let mut stop = Stop::None;
        let deadline = t0 + spec.limits.wall;
        let mut ended_at: Option<Instant> = None;
        let mut killed_at: Option<Instant> = None;
        let mut open = [true; 4];
        let fds: [&OwnedFd; 4] = [&out_r, &err_r, &res_r, &st_r];
        let mut buf = vec![0u8; 256 * 1024];
        let mut leftovers = Vec::new();

        let kill_tree = |status: &Status| {
            if let Some(c) = &cg {
                c.kill_all();
            }
            if let Some(pid) = launcher_pid {
                sys::kill(pid, libc::SIGKILL);
            }
            if let Some(pid) = status.pid {
                sys::kill(-pid, libc::SIGKILL);
                sys::kill(pid, libc::SIGKILL);
            }
        };

        loop {
            let now = Instant::now();
            if stop == Stop::None && killed_at.is_none() {
                if cancel.load(Ordering::Relaxed) {
                    stop = Stop::Cancelled;
                } else if now >= deadline && !status.python_ended() {
                    stop = Stop::WallTimeout;
                }
                if stop != Stop::None {
                    kill_tree(&status);
                    killed_at = Some(now);
                }
            }
            if !open.iter().any(|&o| o) {
                break;
            }
            // Python is gone; give the pipes a moment, then whatever still holds them is a
            // leftover process.
            if let Some(t) = ended_at
                && now.duration_since(t) > Duration::from_millis(300)
                && killed_at.is_none()
            {
                if let Some(c) = &cg {
                    for pid in c.procs() {
                        leftovers.push(format!(
                            "process {pid} ({}) still running after the suite; killed",
                            comm(pid)
                        ));
                    }
                }
                kill_tree(&status);
                killed_at = Some(now);
            }
            if let Some(k) = killed_at
                && now.duration_since(k) > Duration::from_secs(2)
            {
                leftovers.push("output pipes still open 2 s after the sandbox was killed".into());
                break;
            }
            let raw: Vec<i32> = fds
                .iter()
                .zip(open)
                .map(|(fd, o)| if o { fd.as_raw_fd() } else { -1 })
                .collect();
            let ready = sys::poll_readable(&raw, 20)?;
            for i in 0..4 {
                if !open[i] || !ready[i] {
                    continue;
                }
                // Drain what is there (bounded per round so the clock is checked).
                let mut rounds = 0;
                loop {
                    match sys::read_some(fds[i], &mut buf) {
                        Ok(None) => {
                            open[i] = false;
                            break;
                        }
                        Ok(Some(0)) => break,
                        Ok(Some(n)) => {
                            let data = &buf[..n];
                            match i {
                                0 => out.push(data),
                                1 => err.push(data),
                                2 => {
                                    channel.feed(data);
                                    for token in channel.outbox.drain(..) {
                                        // A harness that stopped reading gets no more tokens.
                                        let _ =
                                            sys::send_all(&non_w, format!("{token}\n").as_bytes());
                                    }
                                }
                                _ => {
                                    status_text.push_str(&String::from_utf8_lossy(data));
                                    status = Status::parse(&status_text);
                                    if status.python_ended() && ended_at.is_none() {
                                        ended_at = Some(Instant::now());
                                    }
                                }
                            }
                        }
                        Err(_) => {
                            open[i] = false;
                            break;
                        }
                    }
                    rounds += 1;
                    if rounds >= 64 {
                        break;
                    }
                }
            }
        }
        channel.close();
        drop(non_w);
        let probe_report =
            ProbeReport::from_records(channel.records.iter().filter_map(|r| match r {
                protocol::Record::Probe(v) => Some(v),
                _ => None,
            }));
        // The launcher exits once its init is gone.
        if let Some(child) = child.as_mut()
            && !wait_timeout(child, Duration::from_secs(2))
        {
            kill_tree(&status);
            let _ = child.wait();
        }
        status = Status::parse(&status_text);
        for line in status_text.lines() {
            if let Some(rest) = line.strip_prefix("leftover ") {
                leftovers.push(format!(
                    "process {rest} still running after the suite; killed"
                ));
            }
        }
        let mut oom_killed = false;
        if let Some(c) = cg.as_mut() {
            // A warm suite's init may still be ending (its namespace's last processes are
            // reaped as it exits): give it a moment before calling anything a leftover.
            let t = Instant::now();
            let mut still = c.procs();
            while launcher_pid.is_none()
                && !still.is_empty()
                && t.elapsed() < Duration::from_millis(200)
            {
                std::thread::sleep(Duration::from_millis(1));
                still = c.procs();
            }
            if !still.is_empty() {
                for pid in &still {
                    leftovers.push(format!(
                        "process {pid} ({}) outlived the sandbox; killed",
                        comm(*pid)
                    ));
                }
                c.kill_all();
            }
            oom_killed = c.oom_killed();
            c.remove();
        }
        drop(cg);
        if let Some(before) = outside {
            leftovers.extend(before.new_entries());
        }
        let wall_s = t0.elapsed().as_secs_f64();
        if let Err(e) = workdir.remove() {
            leftovers.push(format!("work dir not removed: {e}"));
        }
        let obs = Observed {
            channel,
            status,
            stop,
            oom_killed,
            stdout: out.text(),
            stderr: err.text(),
            stdout_dropped: out.dropped,
            stderr_dropped: err.dropped,
            wall_s,
            leftovers,
        };
        let mut result = protocol::assemble(spec, obs);
        scrub_workdir(&mut result, &workdir_path);
        Ok((result, probe_report))
    }
}

fn wait_timeout(child: &mut std::process::Child, limit: Duration) -> bool {
    let t0 = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => return true,
            Ok(None) if t0.elapsed() < limit => std::thread::sleep(Duration::from_millis(1)),
            _ => return false,
        }
    }
}

fn comm(pid: i32) -> String {
    std::fs::read_to_string(format!("/proc/{pid}/comm"))
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| "?".into())
}

/// Work dirs of classlab processes that no longer exist (killed before cleaning up).
fn remove_stale_workdirs(root: &Path) {
    let Ok(rd) = std::fs::read_dir(root) else {
        return;
    };
    for e in rd.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(rest) = name.strip_prefix("classlab-sbx-") else {
            continue;
        };
        let Some(pid) = rest.split('-').next().and_then(|p| p.parse::<u32>().ok()) else {
            continue;
        };
        if !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}

/// Names in the shared writable places (temp dirs, `/dev/shm`, the home directory) before a
/// suite, to report what appeared during it when Landlock is not there to prevent it.
struct OutsideSnapshot {
    dirs: Vec<(PathBuf, std::collections::BTreeSet<std::ffi::OsString>)>,
}

impl OutsideSnapshot {
    fn take(work_root: &Path) -> OutsideSnapshot {
        let mut places: Vec<PathBuf> = vec![
            work_root.to_path_buf(),
            "/tmp".into(),
            "/var/tmp".into(),
            "/dev/shm".into(),
        ];
        if let Some(h) = std::env::var_os("HOME") {
            places.push(PathBuf::from(h));
        }
        places.sort();
        places.dedup();
        let dirs = places
            .into_iter()
            .filter_map(|d| {
                let names = std::fs::read_dir(&d)
                    .ok()?
                    .flatten()
                    .map(|e| e.file_name())
                    .collect();
                Some((d, names))
            })
            .collect();
        OutsideSnapshot { dirs }
    }

    fn new_entries(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (d, before) in &self.dirs {
            let Ok(rd) = std::fs::read_dir(d) else {
                continue;
            };
            for e in rd.flatten() {
                let name = e.file_name();
                let s = name.to_string_lossy();
                if !before.contains(&name)
                    && !s.starts_with("classlab-sbx-")
                    && !s.starts_with("classlab-")
                {
                    out.push(format!(
                        "{} appeared outside the work dir during the suite",
                        e.path().display()
                    ));
                }
            }
        }
        out
    }
}

/// A suite's work dir, removed on drop if `remove` was not called.
pub(crate) struct WorkDir(PathBuf);

impl WorkDir {
    fn remove(mut self) -> io::Result<()> {
        let p = std::mem::take(&mut self.0);
        std::fs::remove_dir_all(&p)
    }
}

impl Drop for WorkDir {
    fn drop(&mut self) {
        if !self.0.as_os_str().is_empty() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

/// Output kept up to a cap; the rest counted.
struct Capture {
    kept: Vec<u8>,
    cap: usize,
    dropped: u64,
}

impl Capture {
    fn new(cap: usize) -> Capture {
        Capture {
            kept: Vec::new(),
            cap,
            dropped: 0,
        }
    }
    fn push(&mut self, data: &[u8]) {
        let room = self.cap.saturating_sub(self.kept.len());
        let take = room.min(data.len());
        self.kept.extend_from_slice(&data[..take]);
        self.dropped += (data.len() - take) as u64;
    }
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.kept).into_owned()
    }
}

/// Paths inside the suite's work directory, made relative: the directory's name is random,
/// and results (tracebacks a repair prompt quotes, messages) must not change from run to run.
fn scrub_workdir(result: &mut SuiteResult, workdir: &Path) {
    let prefix = format!("{}/", workdir.display());
    let scrub = |text: Option<&mut String>| {
        if let Some(text) = text.filter(|t| t.contains(&prefix)) {
            *text = text.replace(&prefix, "");
        }
    };
    for t in &mut result.tests {
        scrub(t.message.as_mut());
        scrub(t.traceback.as_mut());
    }
    if let Some(crate::model::SuiteFailure::Import {
        message, traceback, ..
    }) = &mut result.failure
    {
        scrub(Some(message));
        scrub(traceback.as_mut());
    }
    scrub(Some(&mut result.stdout));
    scrub(Some(&mut result.stderr));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capture_caps_and_counts() {
        let mut c = Capture::new(4);
        c.push(b"ab");
        c.push(b"cdef");
        c.push(b"gh");
        assert_eq!(c.text(), "abcd");
        assert_eq!(c.dropped, 4);
    }

    #[test]
    fn harness_is_embedded() {
        assert!(HARNESS.contains("def _harness()"));
    }
}
