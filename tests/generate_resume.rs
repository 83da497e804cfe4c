//! Crash and resume: a TDD run over the sample dataset is killed (SIGKILL) at several points —
//! while a model call is in flight, at line counts spread over the run, right after a resume
//! started — and finished with `classlab run --resume`. The resumed session must tell the
//! same story as an uninterrupted run (the same events per task, numbered without gaps, the
//! same report), and no model call already recorded may be asked again.

mod common;

use std::collections::BTreeMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::thread;
use std::time::{Duration, Instant};

use classlab::llm::{Call, Purpose};
use common::mock_llm::{MockLlm, MockReply};
use common::reference_model::{
    ReferenceModel, events, only_session, read_events, run_report, sabotaged, with_first_statement,
};
use serde_json::{Value, json};

/// Longest wait for anything a run does.
const PATIENCE: Duration = Duration::from_secs(180);

/// A private config directory (no user config, profiles or prompt overrides) and sessions.
struct Sandbox {
    home: tempfile::TempDir,
    sessions: tempfile::TempDir,
}

impl Sandbox {
    fn new() -> Self {
        Sandbox {
            home: tempfile::tempdir().unwrap(),
            sessions: tempfile::tempdir().unwrap(),
        }
    }

    /// `classlab run <args> --json --sessions <dir>`; stdout and stderr go to the files
    /// `<name>.out` and `<name>.err` (read by [`finish`]).
    fn spawn(&self, args: &[String], name: &str) -> (Child, PathBuf) {
        let output = self.home.path().join(name);
        let child = Command::new(env!("CARGO_BIN_EXE_classlab"))
            .env("HOME", self.home.path())
            .env("XDG_CONFIG_HOME", self.home.path().join("config"))
            .env("NO_COLOR", "1")
            .arg("run")
            .args(args)
            .arg("--json")
            .arg("--sessions")
            .arg(self.sessions.path())
            .stdin(Stdio::null())
            .stdout(File::create(output.with_extension("out")).unwrap())
            .stderr(File::create(output.with_extension("err")).unwrap())
            .spawn()
            .expect("classlab starts");
        (child, output)
    }

    /// The session directory, once the run has created it.
    fn session(&self, child: &mut Child) -> PathBuf {
        poll(child, "the session directory", || {
            let dirs: Vec<PathBuf> = std::fs::read_dir(self.sessions.path())
                .ok()?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.join("events.jsonl").is_file())
                .collect();
            dirs.into_iter().next()
        })
    }
}

/// Poll `ready` until it gives a value; panics when `child` ends first or after PATIENCE.
fn poll<T>(child: &mut Child, what: &str, mut ready: impl FnMut() -> Option<T>) -> T {
    let start = Instant::now();
    loop {
        if let Some(v) = ready() {
            return v;
        }
        if let Some(status) = child.try_wait().unwrap() {
            panic!("the run ended ({status}) before {what}: pick an earlier kill point");
        }
        if start.elapsed() > PATIENCE {
            let _ = child.kill();
            let _ = child.wait();
            panic!("waited too long for {what}");
        }
        thread::sleep(Duration::from_millis(2));
    }
}

/// Complete lines of a session's event log so far.
fn lines(session: &Path) -> usize {
    std::fs::read(session.join("events.jsonl"))
        .map(|b| b.iter().filter(|&&c| c == b'\n').count())
        .unwrap_or(0)
}

/// Where to kill a run.
#[derive(Debug, Clone, Copy)]
enum KillAt {
    /// Once the event log holds this many complete lines.
    Lines(usize),
    /// Just after the resumed run recorded `run_resumed` (while it replays its journal).
    AfterResumed,
    /// While the mock holds a model request unanswered (see [`Hold`]).
    InFlight,
}

/// A request the mock holds unanswered, for [`KillAt::InFlight`]: once armed, the next
/// request that `matches` is answered only after a minute, and announced to the receiver
/// [`Hold::arm`] returns.
#[derive(Clone)]
struct Hold {
    matches: Arc<dyn Fn(&Call) -> bool + Send + Sync>,
    armed: Arc<AtomicBool>,
    announce: Arc<Mutex<Option<mpsc::Sender<String>>>>,
}

impl Hold {
    fn new(matches: impl Fn(&Call) -> bool + Send + Sync + 'static) -> Self {
        Hold {
            matches: Arc::new(matches),
            armed: Arc::default(),
            announce: Arc::default(),
        }
    }

    /// Arm the hold; the receiver hears of the request it holds.
    fn arm(&self) -> mpsc::Receiver<String> {
        let (tx, rx) = mpsc::channel();
        *self.announce.lock().unwrap() = Some(tx);
        self.armed.store(true, Ordering::SeqCst);
        rx
    }

    /// How the mock answers `call` (`answer` when not held).
    fn reply(&self, call: &Call, answer: String) -> MockReply {
        if (self.matches)(call) && self.armed.swap(false, Ordering::SeqCst) {
            if let Some(tx) = self.announce.lock().unwrap().as_ref() {
                let _ = tx.send(format!("{} {:?}", call.task_id, call.purpose));
            }
            // Long enough for the kill; the client is gone by then.
            return MockReply::slow(Duration::from_secs(60), MockReply::Text(answer));
        }
        MockReply::Text(answer)
    }
}

/// Wait for a child to finish: its report (stdout), checking its exit status and stderr.
fn finish((mut child, output): (Child, PathBuf)) -> Value {
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > PATIENCE {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the run did not finish within {PATIENCE:?}");
        }
        thread::sleep(Duration::from_millis(10));
    };
    let stderr = no_panic(&output);
    assert!(status.success(), "classlab run failed ({status}): {stderr}");
    run_report(&std::fs::read(output.with_extension("out")).unwrap())
}

/// A process's stderr, checked for panics.
fn no_panic(output: &Path) -> String {
    let stderr = std::fs::read_to_string(output.with_extension("err")).unwrap();
    assert!(!stderr.contains("panicked"), "a panic: {stderr}");
    stderr
}

/// What a whole run left: its report, its events and the model requests it made.
struct Finished {
    report: Value,
    events: Vec<Value>,
    requests: Vec<Value>,
    kills: usize,
}

/// Run once without interruption.
fn uninterrupted(args: &[String], llm: Option<&MockLlm>) -> Finished {
    let sandbox = Sandbox::new();
    let before = llm.map_or(0, |l| l.requests().len());
    let report = finish(sandbox.spawn(args, "whole"));
    Finished {
        report,
        events: events(&only_session(sandbox.sessions.path())),
        requests: bodies(llm, before),
        kills: 0,
    }
}

fn bodies(llm: Option<&MockLlm>, from: usize) -> Vec<Value> {
    llm.map(|l| {
        l.requests()[from..]
            .iter()
            .map(|r| normalized(&r.body))
            .collect()
    })
    .unwrap_or_default()
}

/// Run, killing the run at each point of `kills` in turn (each kill ends one process; the
/// next point applies to `--resume`), then resume until finished.
fn interrupted(args: &[String], kills: &[KillAt], llm: Option<(&MockLlm, &Hold)>) -> Finished {
    let sandbox = Sandbox::new();
    let before = llm.map_or(0, |(l, _)| l.requests().len());
    let mut session: Option<PathBuf> = None;
    for (i, kill) in kills.iter().enumerate() {
        let resume_args = session
            .as_ref()
            .map(|s| vec!["--resume".to_string(), s.display().to_string()]);
        let lines_at_start = session.as_deref().map_or(0, lines);
        // Listen before arming: the held request is announced once.
        let held = match (kill, llm) {
            (KillAt::InFlight, Some((_, hold))) => Some(hold.arm()),
            (KillAt::InFlight, None) => panic!("KillAt::InFlight needs the mock"),
            _ => None,
        };
        let name = format!("killed-{i}");
        let (mut child, output) = sandbox.spawn(resume_args.as_deref().unwrap_or(args), &name);
        let dir = session
            .get_or_insert_with(|| sandbox.session(&mut child))
            .clone();
        match *kill {
            KillAt::Lines(n) => {
                assert!(
                    n > lines_at_start,
                    "kill point {n} lies before this process"
                );
                poll(&mut child, &format!("line {n}"), || {
                    (lines(&dir) >= n).then_some(())
                });
            }
            KillAt::AfterResumed => {
                assert!(lines_at_start > 0, "AfterResumed needs a resumed run");
                poll(&mut child, "run_resumed", || {
                    (lines(&dir) > lines_at_start).then_some(())
                });
            }
            KillAt::InFlight => {
                let listening = held.expect("listening");
                let held = poll(&mut child, "the request to hold", || {
                    listening.try_recv().ok()
                });
                // The request event is written (and synced) before the call starts.
                let (recorded, _) = read_events(&dir);
                let last = recorded.last().unwrap();
                assert_eq!(last["kind"], "llm_request", "in flight: {held}");
            }
        }
        child.kill().unwrap(); // SIGKILL
        let status = child.wait().unwrap();
        assert!(
            !status.success(),
            "kill {i} ({kill:?}) came after the run ended"
        );
        no_panic(&output);
        // Whatever the kill interrupted, every complete line is an event, numbered on.
        let (recorded, _torn) = read_events(&dir);
        for (n, e) in recorded.iter().enumerate() {
            assert_eq!(e["seq"], json!(n), "after kill {i}: seq numbers 0..n: {e}");
        }
        assert!(
            recorded.iter().all(|e| e["kind"] != "run_finished"),
            "a killed run records no end"
        );
    }
    let dir = session.expect("at least one kill");
    let resume = ["--resume".to_string(), dir.display().to_string()];
    let report = finish(sandbox.spawn(&resume, "final"));
    Finished {
        report,
        events: events(&dir),
        requests: bodies(llm.map(|(l, _)| l), before),
        kills: kills.len(),
    }
}

/// The sandbox directories of test suites (`classlab-sbx-<pid>-<n>-<nonce>`, named in
/// tracebacks and so in repair prompts) as one name.
fn without_sandbox_dirs(text: &str) -> String {
    const MARK: &str = "classlab-sbx-";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(MARK) {
        out.push_str(&rest[..at]);
        out.push_str("classlab-sbx-*");
        rest = &rest[at + MARK.len()..];
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
            .unwrap_or(rest.len());
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// Keys whose values legitimately differ between two runs of the same work: numbering,
/// clocks, durations, and where the session lives.
const UNSTABLE: [&str; 6] = [
    "seq",
    "ts",
    "latency_s",
    "wall_s",
    "duration_s",
    "session_dir",
];

/// A value without what legitimately differs between two runs of the same work: the
/// [`UNSTABLE`] keys and where suites ran.
fn normalized(value: &Value) -> Value {
    fn strip(v: &mut Value) {
        match v {
            Value::Object(map) => {
                for key in UNSTABLE {
                    map.remove(key);
                }
                map.values_mut().for_each(strip);
            }
            Value::Array(items) => items.iter_mut().for_each(strip),
            Value::String(s) if s.contains("classlab-sbx-") => *s = without_sandbox_dirs(s),
            _ => {}
        }
    }
    let mut v = value.clone();
    strip(&mut v);
    v
}

/// Events by task (in order), and the run-level events, `run_resumed` left out.
fn by_task(events: &[Value]) -> (BTreeMap<String, Vec<Value>>, Vec<Value>) {
    let mut tasks: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    let mut run = Vec::new();
    for e in events.iter().filter(|e| e["kind"] != "run_resumed") {
        match e["task_id"].as_str() {
            Some(t) if e["kind"] != "error" => {
                tasks.entry(t.to_string()).or_default().push(normalized(e))
            }
            _ => run.push(normalized(e)),
        }
    }
    (tasks, run)
}

/// The report without latency figures.
fn comparable(report: &Value) -> Value {
    let mut r = report.clone();
    r.as_object_mut().unwrap().remove("session");
    r["usage"].as_object_mut().unwrap().remove("seconds");
    r
}

fn assert_same_story(whole: &Finished, resumed: &Finished) {
    let resumes = |f: &Finished| {
        f.events
            .iter()
            .filter(|e| e["kind"] == "run_resumed")
            .count()
    };
    assert_eq!(resumes(whole), 0);
    assert_eq!(
        resumes(resumed),
        resumed.kills,
        "one run_resumed per resume"
    );
    for (i, e) in resumed.events.iter().enumerate() {
        assert_eq!(e["seq"], json!(i), "seq numbers 0..n without gaps: {e}");
    }
    let last = resumed.events.last().unwrap();
    assert_eq!(
        (&last["kind"], &last["cancelled"]),
        (&json!("run_finished"), &json!(false))
    );
    assert!(
        resumed.events.iter().all(|e| e["kind"] != "error"),
        "no error events: {:#?}",
        resumed
            .events
            .iter()
            .filter(|e| e["kind"] == "error")
            .collect::<Vec<_>>()
    );
    let (want_tasks, want_run) = by_task(&whole.events);
    let (got_tasks, got_run) = by_task(&resumed.events);
    assert_eq!(got_run, want_run, "run-level events");
    assert_eq!(
        got_tasks.keys().collect::<Vec<_>>(),
        want_tasks.keys().collect::<Vec<_>>()
    );
    for (task, want) in &want_tasks {
        let got = &got_tasks[task];
        if let Some(i) = (0..want.len().max(got.len())).find(|&i| want.get(i) != got.get(i)) {
            panic!(
                "{task}: event {i} differs (uninterrupted {} events, resumed {}):\n\
                 uninterrupted: {:#}\nresumed: {:#}",
                want.len(),
                got.len(),
                want.get(i).unwrap_or(&Value::Null),
                got.get(i).unwrap_or(&Value::Null)
            );
        }
    }
    assert_eq!(
        comparable(&resumed.report),
        comparable(&whole.report),
        "report"
    );
}

/// The class a model request is about (every prompt names it as "class `NAME`").
fn class_of(body: &Value) -> String {
    let text = body.to_string();
    let from = text.find("class `").expect("a prompt names its class") + "class `".len();
    let len = text[from..].find('`').expect("a closing backtick");
    text[from..from + len].to_string()
}

/// Model requests by class, in order.
fn requests_by_class(requests: &[Value]) -> BTreeMap<String, Vec<&Value>> {
    let mut by: BTreeMap<String, Vec<&Value>> = BTreeMap::new();
    for r in requests {
        by.entry(class_of(r)).or_default().push(r);
    }
    by
}

/// The model requests of the interrupted runs are those of the uninterrupted run, class by
/// class in the same order, except that a request a kill interrupted was asked again (at
/// most one per kill).
fn assert_no_call_asked_twice(whole: &Finished, resumed: &Finished) {
    let want = requests_by_class(&whole.requests);
    let got = requests_by_class(&resumed.requests);
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        want.keys().collect::<Vec<_>>()
    );
    let mut repeats = 0;
    for (class, asked) in &got {
        let mut deduplicated: Vec<&Value> = Vec::new();
        for &body in asked {
            if deduplicated.last() == Some(&body) {
                repeats += 1;
            } else {
                deduplicated.push(body);
            }
        }
        assert!(
            deduplicated == want[class],
            "{class}: the interrupted runs asked {} requests ({} without repeats), the \
             uninterrupted run {}",
            asked.len(),
            deduplicated.len(),
            want[class].len()
        );
    }
    assert!(
        repeats <= resumed.kills,
        "{repeats} requests asked again after {} kills",
        resumed.kills
    );
    assert_eq!(
        resumed.requests.len(),
        whole.requests.len() + repeats,
        "requests: uninterrupted {}, interrupted {}",
        whole.requests.len(),
        resumed.requests.len()
    );
}

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| s.to_string()).collect()
}

/// A one-job TDD run against the scripted model served at `base_url`, plus `extra`.
fn tdd_with(base_url: &str, extra: &[&str]) -> Vec<String> {
    let mut args = strings(&[
        "--strategy",
        "tdd",
        "--provider",
        "openai",
        "--base-url",
        base_url,
        "--model",
        "scripted",
        "--jobs",
        "1",
    ]);
    args.extend(strings(extra));
    args
}

/// The scripted model: the reference's answers, except that methods with a name of even
/// length are wrong at first (one repair), and those with a name length divisible by 4 are
/// wrong in the first repair too (two repairs). Deterministic, so every run asks the same.
fn scripted_model(hold: Hold) -> MockLlm {
    let reference = ReferenceModel::sample();
    MockLlm::start(move |req| {
        let (call, answer) = reference.call_and_answer(req);
        let text = match &call.purpose {
            Purpose::Method { method } if method.len() % 2 == 0 => sabotaged(&answer, method),
            Purpose::Repair { method, round: 1 } if method.len() % 4 == 0 => {
                sabotaged(&answer, method)
            }
            _ => answer,
        };
        hold.reply(&call, text)
    })
}

#[test]
fn killed_scripted_run_resumes_to_the_same_session_without_asking_again() {
    let hold = Hold::new(|call| matches!(call.purpose, Purpose::Repair { .. }));
    let llm = scripted_model(hold.clone());
    let args = tdd_with(&llm.base_url(), &[]);
    let whole = uninterrupted(&args, Some(&llm));
    let n = whole.events.len();
    let repaired = &whole.report["repair"];
    assert!(
        repaired["methods_repaired"].as_u64().unwrap() >= 8,
        "the script makes repairs happen: {repaired}"
    );
    let kills = [
        KillAt::InFlight,
        KillAt::Lines(n / 2),
        KillAt::AfterResumed,
        KillAt::Lines(n * 17 / 20),
    ];
    let resumed = interrupted(&args, &kills, Some((&llm, &hold)));
    assert_same_story(&whole, &resumed);
    assert_no_call_asked_twice(&whole, &resumed);
    assert!(
        resumed.requests.len() > whole.requests.len(),
        "the request held in flight was asked again"
    );
}

#[test]
fn killed_reference_run_resumes_to_the_same_session() {
    let args = strings(&[
        "--strategy",
        "tdd",
        "--provider",
        "reference",
        "--jobs",
        "1",
    ]);
    let whole = uninterrupted(&args, None);
    let n = whole.events.len();
    let kills = [
        KillAt::Lines(2),
        KillAt::Lines(n / 4),
        KillAt::AfterResumed,
        KillAt::Lines(n * 3 / 5),
        KillAt::Lines(n - 3),
    ];
    let resumed = interrupted(&args, &kills, None);
    assert_same_story(&whole, &resumed);
}

/// The tasks of a session's last resumed process, in the order their events came.
fn tasks_after_last_resume(events: &[Value]) -> Vec<String> {
    let from = events
        .iter()
        .rposition(|e| e["kind"] == "run_resumed")
        .expect("a resumed session");
    events[from..]
        .iter()
        .filter_map(|e| e["task_id"].as_str().map(str::to_string))
        .collect()
}

/// `--resume` keeps the recorded `--jobs`: a run started with `--jobs 1` goes on one task at
/// a time, so each task's events stay together. (On a one-core machine the default is one
/// task at a time anyway and this test cannot tell.)
#[test]
fn resume_keeps_the_recorded_jobs() {
    let args = strings(&[
        "--strategy",
        "tdd",
        "--provider",
        "reference",
        "--jobs",
        "1",
        "--tasks",
        "Sample_0,Sample_1,Sample_2",
    ]);
    let whole = uninterrupted(&args, None);
    let resumed = interrupted(&args, &[KillAt::Lines(2)], None);
    let order = tasks_after_last_resume(&resumed.events);
    let mut blocks: Vec<&String> = Vec::new();
    for t in &order {
        if blocks.last() != Some(&t) {
            blocks.push(t);
        }
    }
    assert_eq!(
        blocks,
        ["Sample_0", "Sample_1", "Sample_2"],
        "the resumed run interleaved tasks: it ignored the recorded --jobs 1"
    );
    assert_same_story(&whole, &resumed);
}

/// `--resume` keeps the recorded `--timeout` (the time budget of each private test class):
/// `reset` sleeps 0.5 s and its test class calls it three times, so under `--timeout 1` the
/// class times out. A kill while the last method is asked leaves the private tests to the
/// resumed process, which must judge them with the same budget.
#[test]
fn resume_keeps_the_recorded_test_budget() {
    let hold = Hold::new(|call| {
        call.purpose
            == Purpose::Method {
                method: "remaining".into(),
            }
    });
    let reference = ReferenceModel::sample();
    let model_hold = hold.clone();
    let llm = MockLlm::start(move |req| {
        let (call, answer) = reference.call_and_answer(req);
        let text = match &call.purpose {
            Purpose::Method { method } if method == "reset" => {
                with_first_statement(&answer, method, "__import__('time').sleep(0.5)")
            }
            _ => answer,
        };
        model_hold.reply(&call, text)
    });
    let args = tdd_with(&llm.base_url(), &["--tasks", "Sample_7", "--timeout", "1"]);
    let whole = uninterrupted(&args, Some(&llm));
    let summary = |f: &Finished| {
        f.events
            .iter()
            .find(|e| e["kind"] == "task_finished")
            .map(|e| e["summary"]["methods"].clone())
            .unwrap()
    };
    assert_eq!(
        summary(&whole),
        json!([
            ["allow", "Perfect"],
            ["remaining", "Perfect"],
            ["reset", "Timeout"],
            ["_prune", "Perfect"]
        ]),
        "under --timeout 1 the class of `reset` times out"
    );
    let resumed = interrupted(&args, &[KillAt::InFlight], Some((&llm, &hold)));
    assert_eq!(
        summary(&resumed),
        summary(&whole),
        "the resumed run judged the private tests with another budget than the recorded --timeout 1"
    );
    assert_same_story(&whole, &resumed);
    assert_no_call_asked_twice(&whole, &resumed);
}

/// `--resume` keeps the recorded `--prompts` templates: the resumed run renders the same
/// prompts as the journal holds, so it neither records an `error` about differing requests
/// nor asks the model again with other templates.
#[test]
fn resume_keeps_the_recorded_prompt_templates() {
    let prompts = tempfile::tempdir().unwrap();
    let embedded = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/prompts/method.jinja");
    let template = std::fs::read_to_string(embedded).unwrap();
    std::fs::write(
        prompts.path().join("method.jinja"),
        format!("{}\nKeep the method short.\n", template.trim_end()),
    )
    .unwrap();
    let args = strings(&[
        "--strategy",
        "tdd",
        "--provider",
        "reference",
        "--jobs",
        "1",
        "--tasks",
        "Sample_0",
        "--prompts",
        &prompts.path().display().to_string(),
    ]);
    let whole = uninterrupted(&args, None);
    let asked = |f: &Finished| {
        f.events
            .iter()
            .filter(|e| e["kind"] == "llm_request" && e["purpose"]["purpose"] == "method")
            .all(|e| e.to_string().contains("Keep the method short."))
    };
    assert!(
        asked(&whole),
        "the method prompts use the --prompts template"
    );
    // Killed after the first method's request and response (see the event order in
    // `killed_reference_run_resumes_to_the_same_session`).
    let resumed = interrupted(&args, &[KillAt::Lines(12)], None);
    assert!(
        asked(&resumed),
        "the resumed run rendered the method prompts with the embedded templates, not the \
         recorded --prompts ones"
    );
    assert_same_story(&whole, &resumed);
}
