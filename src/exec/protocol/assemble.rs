//! The suite's result assembled from what was observed of its run: the harness's records,
//! how the process ended ([`Status`]) and why it was stopped ([`Stop`]).

use std::collections::{BTreeSet, HashMap};

use super::{Channel, Record};
use crate::exec::spec::SuiteSpec;
use crate::model::results::{Outcome, SuiteFailure, SuiteResult, TestResult};

/// How the Python process ended, from the launcher's status lines.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Status {
    pub exit_code: Option<i32>,
    pub signal: Option<i32>,
    pub cpu_s: Option<f64>,
    pub max_rss_kb: Option<u64>,
    /// Host pid of the Python process (`pid` line), to kill its group on teardown.
    pub pid: Option<i32>,
    /// The launcher failed to set the sandbox up (or to start Python).
    pub setup_error: Option<String>,
    /// The launcher saw its in-namespace init die without a Python status.
    pub init_died: Option<String>,
    /// Suite files the launcher found changed after the run (they are mounted read-only).
    pub tampered: Vec<String>,
}

impl Status {
    pub fn parse(text: &str) -> Status {
        let mut st = Status::default();
        for line in text.lines() {
            let mut w = line.split_whitespace();
            match (w.next(), w.next()) {
                (Some("pid"), Some(p)) => st.pid = p.parse().ok(),
                (Some("python"), Some(kind)) if st.exit_code.is_none() && st.signal.is_none() => {
                    let n: Option<i32> = w.next().and_then(|x| x.parse().ok());
                    match kind {
                        "exit" => st.exit_code = n,
                        "signal" => st.signal = n,
                        _ => {}
                    }
                    let ut: Option<f64> = w.next().and_then(|x| x.parse().ok());
                    let stime: Option<f64> = w.next().and_then(|x| x.parse().ok());
                    if let (Some(u), Some(s)) = (ut, stime) {
                        st.cpu_s = Some((u + s) / 1e6);
                    }
                    st.max_rss_kb = w.next().and_then(|x| x.parse().ok());
                }
                (Some("error"), _) => {
                    let msg = line.trim_start_matches("error").trim().to_string();
                    st.setup_error.get_or_insert(msg);
                }
                (Some("tampered"), Some(_)) => {
                    st.tampered
                        .push(line["tampered".len()..].trim().to_string());
                }
                (Some("init"), Some(_)) => {
                    st.init_died
                        .get_or_insert(line["init".len()..].trim().to_string());
                }
                _ => {}
            }
        }
        st
    }

    /// Python's end was reported (exit or signal).
    pub fn python_ended(&self) -> bool {
        self.exit_code.is_some() || self.signal.is_some()
    }
}

/// Why the parent stopped the suite, if it did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Stop {
    None,
    WallTimeout,
    Cancelled,
}

/// Everything the run loop observed, for [`assemble`].
#[derive(Debug)]
pub(crate) struct Observed {
    pub channel: Channel,
    pub status: Status,
    pub stop: Stop,
    /// The memory cgroup recorded an OOM kill (or a limit hit that killed the process).
    pub oom_killed: bool,
    pub stdout: String,
    pub stderr: String,
    pub stdout_dropped: u64,
    pub stderr_dropped: u64,
    pub wall_s: f64,
    pub leftovers: Vec<String>,
}

fn signal_name(sig: i32) -> &'static str {
    match sig {
        libc::SIGKILL => "SIGKILL",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGFPE => "SIGFPE",
        libc::SIGILL => "SIGILL",
        libc::SIGXCPU => "SIGXCPU",
        libc::SIGXFSZ => "SIGXFSZ",
        libc::SIGTERM => "SIGTERM",
        libc::SIGPIPE => "SIGPIPE",
        libc::SIGINT => "SIGINT",
        _ => "signal",
    }
}

/// Turn what was observed into the suite's result: one entry per expected id (missing ones
/// `NotRun`), then extras; the suite failure classified; distrust applied.
pub(crate) fn assemble(spec: &SuiteSpec, obs: Observed) -> SuiteResult {
    let Observed {
        channel,
        status,
        stop,
        oom_killed,
        ..
    } = &obs;
    let mut violations = channel.violations.clone();
    let mut tamper: Vec<String> = Vec::new();
    let mut import: Option<SuiteFailure> = None;
    let mut import_env = false;
    let mut reported: Vec<TestResult> = Vec::new();
    let mut final_count = None;
    let mut evidence = Vec::new();
    let mut seen = BTreeSet::new();
    // Tests whose first record failed (a further failing record of theirs is accepted).
    let mut failed: BTreeSet<String> = BTreeSet::new();
    for r in &channel.records {
        match r {
            Record::Start => {}
            Record::Test(t) => {
                if !seen.insert(t.id.clone()) {
                    // unittest counts every error of a test (the test's, then tearDown's):
                    // a further fail/error record for it is accepted, since it can only make
                    // the result worse. Anything else repeated is a forgery.
                    let worse = |o: Outcome| {
                        matches!(o, Outcome::Fail | Outcome::Error | Outcome::Tampered)
                    };
                    let first_failed = failed.contains(&t.id);
                    if first_failed && worse(t.outcome) {
                        reported.push(t.clone());
                    } else {
                        violations.push(format!("test {} reported twice", t.id));
                    }
                    continue;
                }
                if matches!(
                    t.outcome,
                    Outcome::Fail | Outcome::Error | Outcome::Tampered
                ) {
                    failed.insert(t.id.clone());
                }
                reported.push(t.clone());
            }
            Record::Import {
                exc_type,
                message,
                line,
                traceback,
                env,
                origin,
            } => {
                import_env = *env;
                import.get_or_insert(SuiteFailure::Import {
                    exc_type: exc_type.clone(),
                    message: message.clone(),
                    line: *line,
                    traceback: traceback.clone(),
                    origin: *origin,
                });
            }
            Record::Missing { .. } => {}
            Record::Tamper(d) => tamper.extend(d.iter().cloned()),
            Record::Evidence(e) => evidence.extend(e.iter().cloned()),
            Record::Probe(_) => {}
            Record::Final { count } => final_count = Some(*count),
        }
    }
    if let Some(c) = final_count
        && c != seen.len() as u64
        && import.is_none()
    {
        violations.push(format!(
            "final record counts {c} tests, {} were reported",
            seen.len()
        ));
    }

    // Skips and expected failures the test file did not ask for count as failures (code can
    // mark every test as expected to fail, or raise SkipTest).
    for t in &mut reported {
        if spec.allowed_skips.contains(&t.id) {
            continue;
        }
        if t.outcome == Outcome::Skip {
            t.outcome = Outcome::Fail;
            t.exc_type = Some("SkipTest".into());
            let reason = t.message.take().unwrap_or_default();
            t.message = Some(format!("unexpected skip (counts as a failure): {reason}"));
        } else if t.outcome == Outcome::Xfail {
            t.outcome = Outcome::Fail;
            let reason = t.message.take().unwrap_or_default();
            t.message = Some(format!(
                "expected failure the test file does not ask for (counts as a failure): {reason}"
            ));
        }
    }
    if tamper.is_empty()
        && let Some(t) = reported.iter().find(|t| t.outcome == Outcome::Tampered)
    {
        // Say which test and what was seen there (a forged comparison, a guess found out):
        // the suite's verdicts are discarded for it.
        tamper.push(match t.message.as_deref().filter(|m| !m.is_empty()) {
            Some(m) => format!(
                "a test run was tampered with ({}: {})",
                t.id,
                crate::text::shorten(m, 240)
            ),
            None => format!("a test run was tampered with ({})", t.id),
        });
    }

    // Order: expected ids first (pytest parametrisations `id[...]` in place of `id`), then
    // anything else the harness reported.
    let mut by_id: HashMap<&str, usize> = HashMap::new();
    for (i, t) in reported.iter().enumerate() {
        by_id.insert(t.id.as_str(), i);
    }
    let mut used = vec![false; reported.len()];
    let mut tests = Vec::with_capacity(spec.expected.len());
    for id in &spec.expected {
        if let Some(&i) = by_id.get(id.as_str()) {
            used[i] = true;
            tests.push(reported[i].clone());
            continue;
        }
        let prefix = format!("{id}[");
        let params: Vec<usize> = (0..reported.len())
            .filter(|&i| !used[i] && reported[i].id.starts_with(&prefix))
            .collect();
        if params.is_empty() {
            tests.push(TestResult {
                id: id.clone(),
                outcome: Outcome::NotRun,
                exc_type: None,
                message: None,
                traceback: None,
                code_line: None,
                duration_s: 0.0,
                origin: None,
            });
        } else {
            for i in params {
                used[i] = true;
                tests.push(reported[i].clone());
            }
        }
    }
    for (i, t) in reported.into_iter().enumerate() {
        if !used[i] {
            tests.push(t);
        }
    }

    // Classify how the suite ended.
    let finished = channel.finished;
    let clean_exit = status.exit_code == Some(0) && status.signal.is_none();
    let cpu_limit = spec.limits.cpu.as_secs_f64();
    let failure = if let Some(e) = &status.setup_error {
        Some(SuiteFailure::Crashed {
            signal: None,
            exit_code: status.exit_code,
            detail: format!("sandbox setup failed: {e}"),
        })
    } else if *stop == Stop::WallTimeout {
        Some(SuiteFailure::Timeout {
            limit_s: spec.limits.wall.as_secs_f64(),
        })
    } else if *stop == Stop::Cancelled {
        Some(SuiteFailure::Crashed {
            signal: None,
            exit_code: None,
            detail: "cancelled".into(),
        })
    } else if status.signal == Some(libc::SIGXCPU)
        || (status.signal == Some(libc::SIGKILL)
            && status.cpu_s.is_some_and(|c| c >= cpu_limit * 0.98))
    {
        Some(SuiteFailure::Timeout { limit_s: cpu_limit })
    } else if *oom_killed && !(finished && clean_exit) {
        Some(SuiteFailure::Memory)
    } else if let Some(imp) = import.clone() {
        match &imp {
            SuiteFailure::Import { exc_type, .. } if exc_type == "MemoryError" => {
                Some(SuiteFailure::Memory)
            }
            _ => Some(imp),
        }
    } else if !finished || !clean_exit {
        let detail = match (status.signal, status.exit_code, finished) {
            (Some(sig), _, _) => format!("killed by {} ({sig})", signal_name(sig)),
            (None, Some(code), true) => format!("exited with status {code} after its final record"),
            (None, Some(code @ 119..=122), false) => {
                format!("the harness itself failed (status {code}; its error is on stderr)")
            }
            (None, Some(code), false) => {
                format!("exited with status {code} before the harness's final record")
            }
            (None, None, _) => match &status.init_died {
                Some(d) => format!("the sandbox died ({d}) before Python reported"),
                None => "no exit status from the sandbox".to_string(),
            },
        };
        Some(SuiteFailure::Crashed {
            signal: status.signal,
            exit_code: status.exit_code,
            detail,
        })
    } else {
        None
    };

    let mut distrust = Vec::new();
    if !violations.is_empty() {
        distrust.push(format!("result channel: {}", violations.join("; ")));
    }
    for f in &status.tampered {
        tamper.push(format!("the suite file {f} was changed"));
    }
    if !tamper.is_empty() {
        let mut t: Vec<String> = tamper.clone();
        t.sort();
        t.dedup();
        distrust.push(format!("harness tampered with: {}", t.join("; ")));
    }
    let failure = if distrust.is_empty() {
        failure
    } else {
        // Something other than the harness spoke, or the harness was patched: no verdict
        // stands, and that is the code's failure (whatever else happened).
        for t in &mut tests {
            // A test found tampering keeps what was seen there; the others' verdicts go.
            if !matches!(
                t.outcome,
                Outcome::Fail | Outcome::Error | Outcome::Xpass | Outcome::Tampered
            ) {
                t.outcome = Outcome::Tampered;
                t.exc_type = Some("Tampered".into());
                t.message = Some("verdict discarded: the test run was tampered with".into());
            }
        }
        Some(SuiteFailure::Tampered {
            detail: distrust.join(" | "),
        })
    };
    let _ = import_env;
    let leftovers = obs.leftovers.clone();
    SuiteResult {
        tests,
        failure,
        stdout: obs.stdout,
        stderr: obs.stderr,
        stdout_dropped: obs.stdout_dropped,
        stderr_dropped: obs.stderr_dropped,
        wall_s: obs.wall_s,
        leftovers,
        evidence,
    }
}
