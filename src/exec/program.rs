//! Run a *trusted* Python program in the sandbox: classlab's own drivers (mutation analysis,
//! test exploration) that import and run the code of a task themselves. Same isolation as a
//! suite (launcher, namespaces, own root, unprivileged user, seccomp, Landlock, cgroups,
//! rlimits, capped output, wall clock); no test harness, no verdict protocol: the program
//! writes JSON lines on descriptor 3, and the parent hands each parsed line to the caller as
//! it arrives.
//!
//! The program reads its input from the JSON file named by `sys.argv[1]` (in its work dir,
//! which is also its working directory); the work dir is not on `sys.path` (`-P`), so a
//! program that imports the task's modules inserts it itself. It always starts cold (a fresh
//! interpreter through the launcher): a driver that forks per unit of work warms itself.
//!
//! Trust: the program is classlab's, but what it imports and runs is the task's, so nothing it
//! reports is more than evidence — the caller decides what a record means.

use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::Value;

use super::launch::{LAUNCH_ARG, LAUNCH_ENV};
use super::protocol::{Status, Stop};
use super::spec::{Limits, SuiteKind, SuiteSpec};
use super::{Capture, Harness, OutsideSnapshot, Sandbox, comm, sys, wait_timeout};

/// Name of the input file in the work dir (its path is `sys.argv[1]`).
pub const PROGRAM_INPUT: &str = "classlab-input.json";

/// Largest program text (it is passed as `python -c`, one argument: Linux caps one at 128 KiB).
const MAX_SOURCE: usize = 120 * 1024;

/// Most bytes of JSON lines accepted from one run; the rest is counted as dropped.
const MAX_RECORD_BYTES: usize = 64 << 20;

/// One program to run.
#[derive(Debug, Clone, PartialEq)]
pub struct Program {
    /// The program's source, run as `python -s -P -B -c SOURCE INPUT`.
    pub source: String,
    /// Files to create in the fresh work dir: (relative path, content). Read-only to the
    /// program (a change is reported in [`ProgramRun::tampered`]); new files may be written.
    pub files: Vec<(String, String)>,
    /// Written to [`PROGRAM_INPUT`] in the work dir.
    pub input: Value,
    pub limits: Limits,
    /// `PYTHONHASHSEED`; `None` = 0.
    pub hash_seed: Option<u32>,
}

/// Why the parent stopped the program, if it did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ProgramStop {
    None,
    WallTimeout,
    Cancelled,
}

/// How one run ended. Records went to the caller's callback as they arrived.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ProgramRun {
    pub exit_code: Option<i32>,
    pub signal: Option<i32>,
    pub stop: Option<ProgramStop>,
    /// The memory cgroup killed something.
    pub oom_killed: bool,
    /// The sandbox could not be set up, or Python not started.
    pub setup_error: Option<String>,
    /// JSON lines received and handed on.
    pub records: usize,
    /// Lines on descriptor 3 that were not JSON (first 200 bytes of each of the first few), a
    /// trailing partial line, or bytes dropped over the cap.
    pub bad_lines: Vec<String>,
    pub stdout: String,
    pub stderr: String,
    pub stdout_dropped: u64,
    pub stderr_dropped: u64,
    pub wall_s: f64,
    pub cpu_s: Option<f64>,
    pub max_rss_kb: Option<u64>,
    /// Processes left behind, files changed outside the work dir, a work dir not removed.
    pub leftovers: Vec<String>,
    /// Given files the program changed (they are mounted read-only).
    pub tampered: Vec<String>,
}

impl ProgramRun {
    /// The program exited with status 0 on its own, with nothing malformed on its channel.
    pub fn ok(&self) -> bool {
        self.exit_code == Some(0)
            && self.stop.is_none()
            && self.setup_error.is_none()
            && self.bad_lines.is_empty()
    }

    /// One line saying how the run ended, for error messages.
    pub fn describe(&self) -> String {
        if let Some(e) = &self.setup_error {
            return format!("sandbox setup failed: {e}");
        }
        match self.stop {
            Some(ProgramStop::WallTimeout) => {
                return format!("killed at the wall-clock limit ({:.1} s)", self.wall_s);
            }
            Some(ProgramStop::Cancelled) => return "cancelled".into(),
            _ => {}
        }
        if self.oom_killed {
            return "killed at the memory limit".into();
        }
        let tail = self.stderr.trim_end().lines().last().unwrap_or("").trim();
        match (self.exit_code, self.signal) {
            (Some(0), _) if !self.bad_lines.is_empty() => {
                format!("malformed output: {}", self.bad_lines[0])
            }
            (Some(0), _) => "exited normally".into(),
            (Some(c), _) => format!("exited with status {c}: {tail}"),
            (_, Some(s)) => format!("killed by signal {s}: {tail}"),
            _ => format!("ended without a status: {tail}"),
        }
    }
}

/// JSON lines from the result pipe.
struct Lines {
    buf: Vec<u8>,
    total: usize,
    records: usize,
    bad: Vec<String>,
}

impl Lines {
    fn feed(&mut self, data: &[u8], on_record: &mut dyn FnMut(Value)) {
        self.total += data.len();
        if self.total > MAX_RECORD_BYTES {
            if self.bad.len() < 5 {
                self.bad
                    .push(format!("more than {MAX_RECORD_BYTES} bytes of records"));
            }
            return;
        }
        self.buf.extend_from_slice(data);
        let mut start = 0;
        while let Some(off) = memchr::memchr(b'\n', &self.buf[start..]) {
            let line = &self.buf[start..start + off];
            start += off + 1;
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            match serde_json::from_slice::<Value>(line) {
                Ok(v) => {
                    self.records += 1;
                    on_record(v);
                }
                Err(e) if self.bad.len() < 5 => {
                    let text = String::from_utf8_lossy(&line[..line.len().min(200)]);
                    self.bad.push(format!("{text} ({e})"));
                }
                Err(_) => {}
            }
        }
        self.buf.drain(..start);
    }

    fn close(&mut self) {
        if !self.buf.iter().all(u8::is_ascii_whitespace) && self.bad.len() < 5 {
            let text = String::from_utf8_lossy(&self.buf[..self.buf.len().min(200)]);
            self.bad.push(format!("partial last line: {text}"));
        }
    }
}

impl Sandbox {
    /// Run `program` to its end, handing each JSON line it writes on descriptor 3 to
    /// `on_record` as it arrives. Setting `cancel` kills it.
    pub fn run_program(
        &self,
        program: &Program,
        cancel: &AtomicBool,
        on_record: &mut dyn FnMut(Value),
    ) -> ProgramRun {
        let t0 = Instant::now();
        match self.program_inner(program, cancel, on_record, t0) {
            Ok(run) => run,
            Err(e) => ProgramRun {
                setup_error: Some(e.to_string()),
                wall_s: t0.elapsed().as_secs_f64(),
                ..ProgramRun::default()
            },
        }
    }

    fn program_inner(
        &self,
        program: &Program,
        cancel: &AtomicBool,
        on_record: &mut dyn FnMut(Value),
        t0: Instant,
    ) -> io::Result<ProgramRun> {
        if program.source.len() > MAX_SOURCE {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "program source of {} bytes (at most {MAX_SOURCE})",
                    program.source.len()
                ),
            ));
        }
        if program.files.iter().any(|(f, _)| f == PROGRAM_INPUT) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("a program file may not be named {PROGRAM_INPUT}"),
            ));
        }
        // The suite machinery makes the work dir and the launch configuration; a program is a
        // suite without a harness.
        let mut files = program.files.clone();
        files.push((PROGRAM_INPUT.into(), program.input.to_string()));
        let as_suite = SuiteSpec {
            files,
            kind: SuiteKind::Unittest {
                module: String::new(),
            },
            code_modules: Vec::new(),
            code: Vec::new(),
            expected: Vec::new(),
            allowed_skips: Vec::new(),
            limits: program.limits.clone(),
            hash_seed: program.hash_seed,
            harness: Harness::Inproc,
            globals_module: None,
        };
        let workdir = self.make_workdir(&as_suite)?;
        let workdir_path = workdir.0.clone();
        // The files in the work dir, as a cold suite's (the launcher takes them from there).
        for (rel, content) in &as_suite.files {
            let path = workdir_path.join(rel);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(&path, content)?;
        }
        let outside =
            (self.report.landlock_abi == 0).then(|| OutsideSnapshot::take(&self.work_root));
        let mut cg = match &self.report.cgroup {
            Some(base) => Some(base.create(program.limits.pids, program.limits.memory_bytes)?),
            None => None,
        };
        let procs = cg.as_ref().map(|c| c.procs_files()).unwrap_or_default();
        // As root, a uid of its own while it runs, as every suite has (`uids.rs`).
        let lease = self.lease_uids()?;
        let run_as = lease.as_ref().map(|u| (u.runner(), u.runner()));
        let mut config = self.launch_config(&as_suite, &workdir_path, procs, run_as);
        let python = config.python.to_string_lossy().into_owned();
        config.argv = vec![
            python,
            "-s".into(),
            "-P".into(),
            "-B".into(),
            "-c".into(),
            program.source.clone(),
            workdir_path
                .join(PROGRAM_INPUT)
                .to_string_lossy()
                .into_owned(),
        ];
        let config_json = serde_json::to_string(&config).map_err(io::Error::other)?;

        let (out_r, out_w) = sys::pipe()?;
        let (err_r, err_w) = sys::pipe()?;
        let (res_r, res_w) = sys::pipe()?;
        // Descriptor 4 (the suites' token channel) is an empty pipe here.
        let (none_r, none_w) = sys::pipe()?;
        drop(none_w);
        let (st_r, st_w) = sys::pipe()?;
        let mut cmd = Command::new(&self.report.launcher);
        cmd.arg(LAUNCH_ARG)
            .arg(&config_json)
            .env_clear()
            .env(LAUNCH_ENV, "run")
            .stdin(Stdio::null())
            .stdout(Stdio::from(out_w))
            .stderr(Stdio::from(err_w));
        sys::place_fds_at_3(
            &mut cmd,
            [res_w.as_raw_fd(), none_r.as_raw_fd(), st_w.as_raw_fd()],
        );
        let mut child = cmd.spawn()?;
        drop(cmd);
        drop((res_w, none_r, st_w));
        let launcher_pid = child.id() as i32;

        for fd in [&out_r, &err_r, &res_r, &st_r] {
            sys::set_nonblocking(fd)?;
        }
        let cap = program.limits.output_bytes;
        let mut out = Capture::new(cap);
        let mut err = Capture::new(cap);
        let mut lines = Lines {
            buf: Vec::new(),
            total: 0,
            records: 0,
            bad: Vec::new(),
        };
        let mut status_text = String::new();
        let mut status = Status::default();
        let mut stop = Stop::None;
        let deadline = t0 + program.limits.wall;
        let mut ended_at: Option<Instant> = None;
        let mut killed_at: Option<Instant> = None;
        let mut leftovers = Vec::new();
        let fds: [&OwnedFd; 4] = [&out_r, &err_r, &res_r, &st_r];
        let mut open = [true; 4];
        let mut buf = vec![0u8; 256 * 1024];
        let kill_tree = |status: &Status| {
            if let Some(c) = &cg {
                c.kill_all();
            }
            sys::kill(launcher_pid, libc::SIGKILL);
            if let Some(pid) = status.pid {
                sys::kill(-pid, libc::SIGKILL);
                sys::kill(pid, libc::SIGKILL);
            }
        };
        while open.iter().any(|&o| o) {
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
            // Python is gone: whatever still holds the pipes a moment later is left behind.
            if let Some(t) = ended_at
                && killed_at.is_none()
                && now.duration_since(t) > Duration::from_millis(300)
            {
                if let Some(c) = &cg {
                    for pid in c.procs() {
                        leftovers.push(format!(
                            "process {pid} ({}) still running after the program; killed",
                            comm(pid)
                        ));
                    }
                }
                kill_tree(&status);
                killed_at = Some(now);
            }
            if killed_at.is_some_and(|k| now.duration_since(k) > Duration::from_secs(2)) {
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
                for _ in 0..64 {
                    match sys::read_some(fds[i], &mut buf) {
                        Ok(Some(0)) => break,
                        Ok(Some(n)) => match i {
                            0 => out.push(&buf[..n]),
                            1 => err.push(&buf[..n]),
                            2 => lines.feed(&buf[..n], on_record),
                            _ => {
                                status_text.push_str(&String::from_utf8_lossy(&buf[..n]));
                                status = Status::parse(&status_text);
                                if status.python_ended() && ended_at.is_none() {
                                    ended_at = Some(Instant::now());
                                }
                            }
                        },
                        Ok(None) | Err(_) => {
                            open[i] = false;
                            break;
                        }
                    }
                }
            }
        }
        lines.close();
        if !wait_timeout(&mut child, Duration::from_secs(2)) {
            kill_tree(&status);
            let _ = child.wait();
        }
        let status = Status::parse(&status_text);
        for line in status_text.lines() {
            if let Some(rest) = line.strip_prefix("leftover ") {
                leftovers.push(format!(
                    "process {rest} still running after the program; killed"
                ));
            }
        }
        let mut oom_killed = false;
        if let Some(c) = cg.as_mut() {
            for pid in c.procs() {
                leftovers.push(format!(
                    "process {pid} ({}) outlived the sandbox; killed",
                    comm(pid)
                ));
            }
            c.kill_all();
            oom_killed = c.oom_killed();
            c.remove();
        }
        drop(cg);
        if let Some(before) = outside {
            leftovers.extend(before.new_entries());
        }
        if let Err(e) = workdir.remove() {
            leftovers.push(format!("work dir not removed: {e}"));
        }
        Ok(ProgramRun {
            exit_code: status.exit_code,
            signal: status.signal,
            stop: match stop {
                Stop::None => None,
                Stop::WallTimeout => Some(ProgramStop::WallTimeout),
                Stop::Cancelled => Some(ProgramStop::Cancelled),
            },
            oom_killed,
            setup_error: status.setup_error,
            records: lines.records,
            bad_lines: lines.bad,
            stdout: out.text(),
            stderr: err.text(),
            stdout_dropped: out.dropped,
            stderr_dropped: err.dropped,
            wall_s: t0.elapsed().as_secs_f64(),
            cpu_s: status.cpu_s,
            max_rss_kb: status.max_rss_kb,
            leftovers,
            tampered: status.tampered,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feed_all(chunks: &[&[u8]]) -> (Vec<Value>, Lines) {
        let mut got = Vec::new();
        let mut l = Lines {
            buf: Vec::new(),
            total: 0,
            records: 0,
            bad: Vec::new(),
        };
        for c in chunks {
            l.feed(c, &mut |v| got.push(v));
        }
        l.close();
        (got, l)
    }

    #[test]
    fn lines_split_across_reads_are_joined() {
        let (got, l) = feed_all(&[b"{\"a\":", b" 1}\n{\"b\"", b":2}\n\n"]);
        assert_eq!(
            got,
            vec![serde_json::json!({"a": 1}), serde_json::json!({"b": 2})]
        );
        assert_eq!(l.records, 2);
        assert!(l.bad.is_empty());
    }

    #[test]
    fn garbage_and_a_partial_last_line_are_reported() {
        let (got, l) = feed_all(&[b"not json\n{\"ok\":true}\n{\"cut"]);
        assert_eq!(got.len(), 1);
        assert_eq!(l.bad.len(), 2);
        assert!(l.bad[0].starts_with("not json"), "{:?}", l.bad);
        assert!(l.bad[1].starts_with("partial last line"), "{:?}", l.bad);
    }
}
