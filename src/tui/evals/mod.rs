//! State of the evaluation screens: the sessions list, one evaluation (live or replayed), a
//! task's test detail, the comparison of sessions and the new-evaluation dialog. Plain data and
//! pure folds: reading sessions happens in `jobs`, changes in `app_eval`, drawing in `views`.
//!
//! A live run and a replay are the same [`EvalSession`]: the events of a running evaluation are
//! applied one by one, exactly as a replay applies the ones read from disk.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, UNIX_EPOCH};

mod ui;

pub use ui::*;

use super::list::natural_cmp;
use crate::metrics::causes::{Cause, Failure, classify};
use crate::metrics::fingerprint::Bucket;
use crate::model::{Outcome, TestResult};
use crate::session::report::{intervals, session_outcomes};
use crate::session::{EvalState, Event, EventBody, Meta, RunEnd, SessionLog, TaskRun};
use crate::stats::outcomes::Interval;

/// Where a run stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunStatus {
    /// Being evaluated now, in this classlab.
    Live,
    Finished,
    /// Cancelled before the end (`--resume` finishes it).
    Stopped,
    /// Ended without a `run_finished` (killed, crashed, or still running elsewhere).
    Unfinished,
}

impl RunStatus {
    pub fn of(state: &EvalState, live: bool) -> RunStatus {
        match state.run_end() {
            RunEnd::Unfinished if live => RunStatus::Live,
            RunEnd::Finished => RunStatus::Finished,
            // Tasks not generated (failed model requests): `--resume` finishes it.
            RunEnd::Stopped | RunEnd::Incomplete => RunStatus::Stopped,
            RunEnd::Unfinished => RunStatus::Unfinished,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            RunStatus::Live => "running",
            RunStatus::Finished => "finished",
            RunStatus::Stopped => "stopped",
            RunStatus::Unfinished => "unfinished",
        }
    }
}

/// What a session is about, from its `meta.json` (or, live, from `run_started`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SessionInfo {
    pub id: String,
    /// `eval` (scoring existing outputs) or `run` (generating with a model).
    pub kind: String,
    pub dir: Option<PathBuf>,
    pub model: Option<String>,
    pub strategy: Option<String>,
    pub dataset: String,
    /// RFC 3339.
    pub created: String,
    /// The predictions file evaluated; for a generation run, the provider.
    pub source: Option<String>,
}

impl SessionInfo {
    pub fn from_meta(dir: &Path, meta: &Meta) -> SessionInfo {
        SessionInfo {
            id: meta.id.clone(),
            kind: meta.kind.clone(),
            dir: Some(dir.to_path_buf()),
            model: meta.model.clone(),
            strategy: meta.strategy.clone(),
            dataset: meta.dataset.name.clone(),
            created: meta.created.clone(),
            source: meta.source.clone(),
        }
    }

    /// The model's name, or the session id when the outputs named none.
    pub fn label(&self) -> &str {
        self.model.as_deref().unwrap_or(&self.id)
    }

    /// A session of model calls, shown on the run screen (not an evaluation): a generation
    /// run, or the questions `forge --llm` asked for tests.
    pub fn is_run(&self) -> bool {
        self.kind == "run" || self.is_forge()
    }

    /// The session of a `forge --llm`: each task's prompts and replies.
    pub fn is_forge(&self) -> bool {
        self.kind == "forge"
    }
}

/// `2026-11-21T20:47:44Z` → `2026-11-21 20:47`.
pub fn short_date(created: &str) -> String {
    created.replace('T', " ").chars().take(16).collect()
}

/// RFC 3339 of a Unix timestamp (seconds).
pub fn rfc3339(ts: f64) -> String {
    let d = Duration::try_from_secs_f64(ts.max(0.0)).unwrap_or_default();
    humantime::format_rfc3339_seconds(UNIX_EPOCH + d).to_string()
}

/// `42s`, `12m03s`, `2h05m`.
pub fn duration(secs: f64) -> String {
    let s = if secs.is_finite() {
        secs.max(0.0) as u64
    } else {
        0
    };
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m{:02}s", s / 60, s % 60),
        _ => format!("{}h{:02}m", s / 3600, s % 3600 / 60),
    }
}

/// One row of the sessions screen, summarised off the UI thread.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionRow {
    pub info: SessionInfo,
    pub done: usize,
    pub total: usize,
    pub status: RunStatus,
    pub class_success: Option<f64>,
    pub fun_success: Option<f64>,
    /// Lines of the log that could not be used (a torn tail, unknown kinds).
    pub problems: usize,
    /// The log could not be read at all.
    pub error: Option<String>,
}

impl SessionRow {
    pub fn summarize(dir: &Path, meta: &Meta, log: Result<SessionLog, String>) -> SessionRow {
        let info = SessionInfo::from_meta(dir, meta);
        match log {
            Ok(log) => {
                let state = EvalState::from_events(&log.events);
                let (done, total) = state.progress();
                let m = state.metrics();
                SessionRow {
                    info,
                    done,
                    total,
                    status: RunStatus::of(&state, false),
                    class_success: m.class_success,
                    fun_success: m.fun_success,
                    problems: log.problems.len(),
                    error: None,
                }
            }
            Err(e) => SessionRow {
                info,
                done: 0,
                total: 0,
                status: RunStatus::Unfinished,
                class_success: None,
                fun_success: None,
                problems: 0,
                error: Some(e),
            },
        }
    }
}

/// One evaluation: a replayed session or the live one.
#[derive(Debug, Clone, Default)]
pub struct EvalSession {
    pub info: SessionInfo,
    pub state: EvalState,
    /// Lines of the log that could not be used, and notices of the live run.
    pub problems: Vec<String>,
    pub first_ts: Option<f64>,
    pub last_ts: Option<f64>,
    /// Model requests sent and not answered yet.
    pub in_flight: usize,
    /// Fed by a running evaluation.
    pub live: bool,
    /// Events applied so far: what caches derived from the state are keyed by.
    pub applied: usize,
    /// The 95 % interval of every metric, computed at most once per change of the state
    /// (emptied by [`EvalSession::apply`]), never per frame.
    intervals: OnceLock<BTreeMap<&'static str, Interval>>,
    /// The rows' order (all; not `Perfect` only), built at most once per change of the state:
    /// the screens ask for it on every frame and every event.
    row_keys: [OnceLock<Vec<(String, u32)>>; 2],
}

/// A task row of an evaluation.
#[derive(Debug, Clone, Copy)]
pub struct TaskRef<'a> {
    pub task_id: &'a str,
    pub sample: u32,
    pub run: &'a TaskRun,
}

impl TaskRef<'_> {
    pub fn outcome(&self) -> Option<Bucket> {
        self.run.summary.as_ref().and_then(|s| s.outcome)
    }
}

impl EvalSession {
    pub fn from_log(log: SessionLog) -> EvalSession {
        let mut s = EvalSession {
            info: SessionInfo::from_meta(&log.dir, &log.meta),
            problems: log.problems,
            ..EvalSession::default()
        };
        for e in &log.events {
            s.apply(e);
        }
        s
    }

    /// A live evaluation about to start: what is known before its first event.
    pub fn live(predictions: &str, dataset: &str) -> EvalSession {
        EvalSession {
            info: SessionInfo {
                id: "live".into(),
                kind: "eval".into(),
                dataset: dataset.into(),
                source: Some(predictions.into()),
                ..SessionInfo::default()
            },
            live: true,
            ..EvalSession::default()
        }
    }

    /// A live generation run about to start: what the dialog chose.
    pub fn live_run(strategy: &str, provider: &str, dataset: &str) -> EvalSession {
        EvalSession {
            info: SessionInfo {
                id: "live".into(),
                kind: "run".into(),
                strategy: Some(strategy.into()),
                dataset: dataset.into(),
                source: Some(provider.into()),
                ..SessionInfo::default()
            },
            live: true,
            ..EvalSession::default()
        }
    }

    /// Fold one event (the reducer's `apply`, plus the timing and, live, the header). The
    /// reducer alone derives the state (it forwards public test runs to the trace too).
    pub fn apply(&mut self, event: &Event) {
        self.state.apply(event);
        self.applied += 1;
        self.intervals = OnceLock::new();
        self.row_keys = Default::default();
        match &event.body {
            EventBody::LlmRequest { .. } => self.in_flight += 1,
            EventBody::LlmResponse { .. } => self.in_flight = self.in_flight.saturating_sub(1),
            EventBody::RunFinished { .. } => self.in_flight = 0,
            _ => {}
        }
        if event.ts.is_finite() {
            self.first_ts.get_or_insert(event.ts);
            self.last_ts = Some(event.ts);
        }
        if let EventBody::RunStarted { config, .. } = &event.body
            && self.live
        {
            let text = |k: &str| config.get(k).and_then(|v| v.as_str()).map(str::to_string);
            self.info.model = text("model").or(self.info.model.take());
            self.info.strategy = text("strategy").or(self.info.strategy.take());
            if self.info.is_run() {
                self.info.source = text("provider").or(self.info.source.take());
            }
            if self.info.created.is_empty() {
                self.info.created = rfc3339(event.ts);
            }
        }
    }

    pub fn status(&self) -> RunStatus {
        RunStatus::of(&self.state, self.live)
    }

    /// The 95 % interval of each metric (Wilson for the class-level ones, clustered by task
    /// for the test-class-level ones), cached until the next event.
    pub fn intervals(&self) -> &BTreeMap<&'static str, Interval> {
        self.intervals
            .get_or_init(|| intervals(&session_outcomes(&self.state)))
    }

    /// Seconds from the first event to the last one.
    pub fn elapsed(&self) -> Option<f64> {
        Some(self.last_ts? - self.first_ts?)
    }

    /// Every (task, sample) in run order (then any the run did not announce), optionally
    /// only those finished with an outcome other than `Perfect`.
    pub fn task_rows(&self, imperfect_only: bool) -> Vec<TaskRef<'_>> {
        let keys = self.row_keys[usize::from(imperfect_only)]
            .get_or_init(|| self.row_order(imperfect_only));
        let runs = self.state.runs();
        keys.iter()
            .filter_map(|key| {
                let ((task_id, sample), run) = runs.get_key_value(key)?;
                Some(TaskRef {
                    task_id,
                    sample: *sample,
                    run,
                })
            })
            .collect()
    }

    /// The rows' keys in order (what [`Self::task_rows`] caches).
    fn row_order(&self, imperfect_only: bool) -> Vec<(String, u32)> {
        self.compute_task_rows(imperfect_only)
            .into_iter()
            .map(|r| (r.task_id.to_string(), r.sample))
            .collect()
    }

    fn compute_task_rows(&self, imperfect_only: bool) -> Vec<TaskRef<'_>> {
        let st = &self.state;
        let mut out: Vec<TaskRef> = Vec::with_capacity(st.runs().len());
        let mut seen: BTreeSet<&str> = BTreeSet::new();
        for id in &st.task_ids {
            if !seen.insert(id.as_str()) {
                continue;
            }
            let range = (id.clone(), 0)..=(id.clone(), u32::MAX);
            out.extend(st.runs().range(range).map(|((t, s), run)| TaskRef {
                task_id: t,
                sample: *s,
                run,
            }));
        }
        let mut extra: Vec<TaskRef> = st
            .runs()
            .iter()
            .filter(|((t, _), _)| !seen.contains(t.as_str()))
            .map(|((t, s), run)| TaskRef {
                task_id: t,
                sample: *s,
                run,
            })
            .collect();
        extra.sort_by(|a, b| natural_cmp(a.task_id, b.task_id).then(a.sample.cmp(&b.sample)));
        out.extend(extra);
        if imperfect_only {
            out.retain(|r| r.run.summary.is_some() && r.outcome() != Some(Bucket::Perfect));
        }
        out
    }

    /// Samples per task, as the rows should show them.
    pub fn multi_sample(&self) -> bool {
        self.state.samples > 1
    }
}

/// Tasks whose outcome (first sample) is not the same in every session, in natural order.
pub fn differing_tasks(sessions: &[EvalSession]) -> Vec<String> {
    let states: Vec<&EvalState> = sessions.iter().map(|s| &s.state).collect();
    crate::session::differing_tasks(&states)
}

/// A test outcome that counts against the code (what the detail jumps to).
pub fn is_failing(outcome: Outcome) -> bool {
    matches!(
        outcome,
        Outcome::Fail | Outcome::Error | Outcome::Xpass | Outcome::NotRun | Outcome::Tampered
    )
}

/// The tests of a task's final suite, if it ran.
pub fn tests_of(run: &TaskRun) -> &[TestResult] {
    run.private.as_ref().map_or(&[], |r| r.tests.as_slice())
}

/// Why each of a run's tests failed, in [`tests_of`] order: the classified cause of a failing
/// test whose exception is `AttributeError`, `TypeError`, `NameError` or `ImportError` (read
/// off its traceback and the code that ran), with the name it is about when the message
/// quotes one. `unexplained` is left out: there is nothing to show.
pub fn test_causes(run: &TaskRun) -> Vec<Option<(Cause, Option<String>)>> {
    let code = run.code.as_deref().unwrap_or("");
    tests_of(run)
        .iter()
        .map(|t| {
            if !is_failing(t.outcome) {
                return None;
            }
            let exc = t.exc_type.as_deref()?;
            let message = t.message.as_deref().unwrap_or("");
            let cause = classify(&Failure {
                exc_type: exc,
                message,
                traceback: t.traceback.as_deref().unwrap_or(""),
                code,
                ..Failure::default()
            })
            .filter(|c| *c != Cause::Unexplained)?;
            Some((cause, cause_name(exc, message)))
        })
        .collect()
}

/// The name a failure is about: the missing attribute, name or module (the last quoted
/// identifier), or the callable of a `TypeError` (`f() takes …`).
fn cause_name(exc: &str, message: &str) -> Option<String> {
    let message = message.split(". Did you mean").next().unwrap_or(message);
    let ident = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == '.')
    };
    if exc.ends_with("TypeError") {
        let head = message.split("()").next()?;
        let name = head.rsplit([' ', ':']).next()?;
        return (message.contains("()") && ident(name)).then(|| name.to_string());
    }
    let quoted: Vec<&str> = message.split('\'').skip(1).step_by(2).collect();
    quoted.last().filter(|n| ident(n)).map(|n| n.to_string())
}

/// Whether a test's outcome is not the same in every session (absent counts as an outcome).
pub fn test_differs(sessions: &[EvalSession], task_id: &str, test_id: &str) -> bool {
    let outcomes: Vec<Option<Outcome>> = sessions
        .iter()
        .map(|s| {
            let run = s.state.run(task_id, 0)?;
            run.test(test_id).map(|t| t.outcome)
        })
        .collect();
    outcomes.windows(2).any(|w| w[0] != w[1])
}

/// Every test id of a task over the sessions, in first-seen order.
pub fn test_ids(sessions: &[EvalSession], task_id: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut seen: BTreeSet<&str> = BTreeSet::new();
    for s in sessions {
        if let Some(run) = s.state.run(task_id, 0) {
            for t in tests_of(run) {
                if seen.insert(t.id.as_str()) {
                    out.push(t.id.clone());
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::TaskSummary;
    use crate::tui::action::Action;

    fn ev(seq: u64, ts: f64, body: EventBody) -> Event {
        Event { seq, ts, body }
    }

    fn finished(task: &str, bucket: Bucket) -> EventBody {
        EventBody::TaskFinished {
            task_id: task.into(),
            sample: 0,
            summary: TaskSummary {
                outcome: Some(bucket),
                passed: 1,
                judged: 1,
                test_classes: Vec::new(),
                exceptions: Default::default(),
                env_exceptions: Default::default(),
                methods: Vec::new(),
                method_tests: Vec::new(),
            },
        }
    }

    fn session(events: Vec<EventBody>) -> EvalSession {
        let mut s = EvalSession::default();
        for (i, body) in events.into_iter().enumerate() {
            s.apply(&ev(i as u64, 100.0 + i as f64, body));
        }
        s
    }

    fn started(tasks: &[&str]) -> EventBody {
        EventBody::RunStarted {
            tool_version: "t".into(),
            tasks: tasks.iter().map(|t| t.to_string()).collect(),
            samples: 1,
            config: serde_json::json!({"model": "M", "strategy": "holistic"}),
        }
    }

    #[test]
    fn rows_follow_the_run_order_then_the_rest() {
        let s = session(vec![
            started(&["T_10", "T_2"]),
            finished("T_2", Bucket::Perfect),
            finished("X_1", Bucket::Fail),
        ]);
        let ids: Vec<&str> = s.task_rows(false).iter().map(|r| r.task_id).collect();
        assert_eq!(ids, ["T_10", "T_2", "X_1"]);
        let ids: Vec<&str> = s.task_rows(true).iter().map(|r| r.task_id).collect();
        assert_eq!(ids, ["X_1"]);
        assert_eq!(s.elapsed(), Some(2.0));
        assert_eq!(s.status(), RunStatus::Unfinished);
    }

    #[test]
    fn live_sessions_take_their_header_from_run_started() {
        let mut s = EvalSession::live("p.json", "ClassEval");
        assert_eq!(s.status(), RunStatus::Live);
        s.apply(&ev(0, 0.0, started(&["A"])));
        assert_eq!(s.info.model.as_deref(), Some("M"));
        assert_eq!(s.info.created, "1970-01-01T00:00:00Z");
        s.apply(&ev(1, 5.0, EventBody::RunFinished { cancelled: true }));
        assert_eq!(s.status(), RunStatus::Stopped);
    }

    #[test]
    fn differing_tasks_include_missing_ones() {
        let a = session(vec![
            started(&["A", "B", "C"]),
            finished("A", Bucket::Perfect),
            finished("B", Bucket::Fail),
        ]);
        let b = session(vec![
            started(&["A", "B"]),
            finished("A", Bucket::Perfect),
            finished("B", Bucket::Weak),
        ]);
        assert_eq!(differing_tasks(&[a.clone(), b]), ["B"]);
        let c = session(vec![started(&["A"]), finished("A", Bucket::Perfect)]);
        // B: Fail vs nothing; C: nothing in either.
        assert_eq!(differing_tasks(&[a, c]), ["B"]);
    }

    #[test]
    fn cursor_moves_and_stays_visible() {
        let mut c = Cursor::default();
        assert!(c.navigate(&Action::Bottom, 50, 10));
        assert_eq!((c.selected, c.offset), (49, 40));
        assert!(!c.navigate(&Action::Open, 50, 10));
        c.keep_visible(5, 10);
        assert_eq!((c.selected, c.offset), (4, 0));
        c.keep_visible(0, 10);
        assert_eq!((c.selected, c.offset), (0, 0));
    }

    #[test]
    fn dialog_candidates() {
        let mut d = NewEvalState {
            files: vec!["a/GPT.json".into(), "b/llama.csv".into()],
            ..NewEvalState::default()
        };
        assert_eq!(d.candidates().len(), 2);
        d.input = "gpt".into();
        assert_eq!(d.candidates(), ["a/GPT.json", "gpt"]);
        d.input = "a/GPT.json".into();
        assert_eq!(d.candidates(), ["a/GPT.json"]);
    }

    #[test]
    fn durations_read_well() {
        assert_eq!(duration(42.4), "42s");
        assert_eq!(duration(723.0), "12m03s");
        assert_eq!(duration(7500.0), "2h05m");
        assert_eq!(duration(f64::NAN), "0s");
        assert_eq!(short_date("2026-11-21T20:47:44Z"), "2026-11-21 20:47");
    }

    #[test]
    fn the_name_a_cause_is_about() {
        let name = |e: &str, m: &str| cause_name(e, m);
        assert_eq!(
            name("AttributeError", "'Shop' object has no attribute 'total'").as_deref(),
            Some("total")
        );
        assert_eq!(
            name(
                "AttributeError",
                "'Shop' object has no attribute 'x'. Did you mean: '_x'?"
            )
            .as_deref(),
            Some("x")
        );
        assert_eq!(
            name("NameError", "name 'json' is not defined").as_deref(),
            Some("json")
        );
        assert_eq!(
            name(
                "builtins.TypeError",
                "Shop.add() takes 2 positional arguments but 3 were given"
            )
            .as_deref(),
            Some("Shop.add")
        );
        assert_eq!(name("TypeError", "unsupported operand"), None);
    }

    #[test]
    fn intervals_follow_the_events() {
        let mut s = session(vec![started(&["A", "B"])]);
        assert!(s.intervals().is_empty());
        let applied = s.applied;
        s.apply(&ev(9, 9.0, finished("A", Bucket::Perfect)));
        assert_eq!(s.applied, applied + 1);
        assert!(
            s.intervals().contains_key("class_success"),
            "{:?}",
            s.intervals()
        );
    }
}

pub mod detail;
pub mod flow;
pub use flow::{compare_title, title};
