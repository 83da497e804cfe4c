//! classlab's own overhead per generated method (class-level TDD), with the model and the
//! tests stubbed, beside what one public-test run in the sandbox costs.
//!
//! Every method of the corpus (the bundled sample; ClassEval too when
//! `../shared/data/classeval/ClassEval_data.json` is beside the checkout) is prepared once, in
//! the order a TDD run with the `reference` provider writes it: the partial class before it,
//! the reference reply, the events a run records for it. The benches then take the methods in
//! a fixed shuffled order, one method per iteration, so each reports a mean *per method*:
//!
//! - `tests_and_stub`: the method's stub and public tests (doctests) from the task;
//! - `prompt`: rendering the method prompt;
//! - `extract_method`: the method (and the helpers it brings) out of the reply;
//! - `splice_method`: splicing it into the partial class;
//! - `session_write`: appending the method's events to a session on disk (one fsync each,
//!   in `CARGO_TARGET_TMPDIR`, on the checkout's file system);
//! - `reduce`: folding those events into an `EvalState`;
//! - `per_method_step`: all of it composed, as the TDD loop does it, events through the
//!   pipeline's `Sink` (append + fold);
//! - `test_run`: for comparison, one public-test suite of that method (partial class + its
//!   tests) in the warm sandbox, as `classlab run` runs it.
//!
//! Run: `cargo bench --bench generate`, or `scripts/bench-generate.sh` for the ratio.

use std::path::PathBuf;
use std::sync::OnceLock;
use std::sync::atomic::AtomicBool;

use classlab::analysis::parse::parse_module;
use classlab::analysis::{self, splice};
use classlab::dataset::{self, Dataset};
use classlab::exec::{Sandbox, SandboxOptions, SuiteSpec};
use classlab::llm::{Call, Message, Params, Provider, Purpose};
use classlab::model::Task;
use classlab::model::results::{Outcome, SuiteResult, TestResult};
use classlab::pipeline::prompts::{MethodContext, Prompts};
use classlab::pipeline::providers::Reference;
use classlab::pipeline::public_tests::{self, PublicTests, PublicTestsMode};
use classlab::pipeline::run::Update;
use classlab::pipeline::task_io::Sink;
use classlab::pipeline::tdd::{method_and_helpers, public_suite, splice_all};
use classlab::session::store::{self, DatasetRef, Meta, SCHEMA};
use classlab::session::{EvalState, Event, EventBody, MethodStatus, Scope, SessionWriter};

fn main() {
    divan::main();
}

const CORPORA: &[&str] = &["sample", "classeval"];
const MODE: PublicTestsMode = PublicTestsMode::Doctest;
/// One method per iteration and sample (the pieces take microseconds, the writes a few
/// milliseconds): three times round ClassEval's 410 methods.
const PIECE_SAMPLES: u32 = 1230;
/// Every ClassEval method with public tests (379) once.
const RUN_SAMPLES: u32 = 380;

fn classeval_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/data/classeval/ClassEval_data.json")
}

/// One method of one task, as a TDD run with the reference provider meets it.
struct Step {
    task: usize,
    method: String,
    /// Position in the task's schedule.
    index: usize,
    /// The class with every earlier method spliced in.
    partial: String,
    /// The method's signature and docstring.
    stub: String,
    /// The model's reply (the reference's).
    reply: String,
    /// The method and its helpers, as extracted.
    code: String,
    /// `partial` with this method in.
    class: String,
    tests: Option<PublicTests>,
    /// What the stubbed test run returns: every public test passes.
    result: Option<SuiteResult>,
    /// The events a run records for this method, in order.
    events: Vec<EventBody>,
}

struct Corpus {
    dataset: Dataset,
    steps: Vec<Step>,
    /// Indices into `steps`, shuffled once: the order iterations take them in.
    order: Vec<usize>,
}

impl Corpus {
    /// The next step, round the shuffled order (for `with_inputs`).
    fn cycle<'a>(&'a self) -> impl FnMut() -> &'a Step + 'a {
        let mut i = 0;
        move || {
            let s = &self.steps[self.order[i % self.order.len()]];
            i += 1;
            s
        }
    }

    /// The steps that run public tests (the ones with a test run to compare with).
    fn tested(&self) -> Vec<&Step> {
        self.order
            .iter()
            .map(|&i| &self.steps[i])
            .filter(|s| s.tests.is_some())
            .collect()
    }

    fn task(&self, step: &Step) -> &Task {
        &self.dataset.tasks[step.task]
    }
}

fn corpus(name: &str) -> Option<&'static Corpus> {
    static SAMPLE: OnceLock<Corpus> = OnceLock::new();
    static CLASSEVAL: OnceLock<Option<Corpus>> = OnceLock::new();
    match name {
        "sample" => Some(SAMPLE.get_or_init(|| build_corpus(dataset::sample()))),
        _ => CLASSEVAL
            .get_or_init(|| {
                let path = classeval_path();
                if !path.is_file() {
                    eprintln!("{}: missing, ClassEval benches skipped", path.display());
                    return None;
                }
                Some(build_corpus(
                    dataset::load_path(&path).expect("ClassEval loads"),
                ))
            })
            .as_ref(),
    }
}

fn build_corpus(dataset: Dataset) -> Corpus {
    let prompts = Prompts::embedded();
    let reference = Reference::new(&dataset);
    let stop = AtomicBool::new(false);
    let mut steps = Vec::new();
    let mut skipped = 0;
    for (t, task) in dataset.tasks.iter().enumerate() {
        let analysis = analysis::analyze_task(task);
        // The reference predicts the true graph; the schedule is then its topological order.
        let order = analysis.graph.topo_order();
        let mut partial = if parse_module(&task.skeleton)
            .class(&task.class_name)
            .is_some()
        {
            task.skeleton.clone()
        } else {
            analysis.generated_skeleton.clone()
        };
        for (index, method) in order.iter().enumerate() {
            let tests = public_tests::public_tests(task, method, MODE);
            let stub = splice::method_stub(task, method).unwrap_or_default();
            let messages = prompts
                .method(&method_context(
                    task,
                    &partial,
                    method,
                    &stub,
                    tests.as_ref(),
                ))
                .expect("the method prompt renders");
            let call = Call {
                task_id: task.id.clone(),
                purpose: Purpose::Method {
                    method: method.clone(),
                },
                messages: messages.clone(),
                params: Params::default(),
            };
            let Ok(answer) = reference.complete(&call, &mut |_| {}, &stop) else {
                skipped += 1;
                continue;
            };
            let reply = answer.text;
            let Ok(code) = method_and_helpers(&reply, task, method) else {
                skipped += 1;
                continue;
            };
            let Ok(class) = splice_all(&partial, &task.class_name, method, "", &code) else {
                skipped += 1;
                continue;
            };
            let result = tests.as_ref().map(passing);
            let events = method_events(
                task,
                method,
                index,
                messages,
                &reply,
                &code,
                result.as_ref(),
            );
            steps.push(Step {
                task: t,
                method: method.clone(),
                index,
                partial: std::mem::replace(&mut partial, class.clone()),
                stub,
                reply,
                code,
                class,
                tests,
                result,
                events,
            });
        }
    }
    let mut order: Vec<usize> = (0..steps.len()).collect();
    fastrand::Rng::with_seed(4).shuffle(&mut order);
    let events: usize = steps.iter().map(|s| s.events.len()).sum();
    eprintln!(
        "corpus {}: {} tasks, {} methods ({} with public tests, {skipped} left out: reply not \
         extracted or spliced), {:.2} events per method",
        dataset.name,
        dataset.tasks.len(),
        steps.len(),
        steps.iter().filter(|s| s.tests.is_some()).count(),
        events as f64 / steps.len().max(1) as f64,
    );
    Corpus {
        dataset,
        steps,
        order,
    }
}

fn method_context<'a>(
    task: &'a Task,
    partial: &'a str,
    method: &'a str,
    stub: &'a str,
    tests: Option<&'a PublicTests>,
) -> MethodContext<'a> {
    MethodContext {
        class_name: &task.class_name,
        partial_class: partial,
        method_name: method,
        signature_and_docstring: stub,
        public_tests: tests.map(|t| t.code.as_str()),
    }
}

/// The stubbed test run: every public test passes, in about a millisecond.
fn passing(tests: &PublicTests) -> SuiteResult {
    let mut result = SuiteResult::new(
        tests
            .ids()
            .into_iter()
            .map(|id| TestResult {
                duration_s: 0.001,
                ..TestResult::new(id, Outcome::Pass)
            })
            .collect(),
        None,
    );
    result.wall_s = 0.03;
    result
}

/// What `tdd::write_class` / `write_method` and `TaskIo::ask` / `run_suite` record for one
/// method whose first try passes its public tests (or has none).
fn method_events(
    task: &Task,
    method: &str,
    index: usize,
    messages: Vec<Message>,
    reply: &str,
    code: &str,
    result: Option<&SuiteResult>,
) -> Vec<EventBody> {
    let (task_id, sample) = (task.id.clone(), 0);
    let call = index as u32 + 1; // call 0 is the dependency analysis
    let mut events = vec![
        EventBody::MethodStarted {
            task_id: task_id.clone(),
            sample,
            method: method.to_string(),
            index,
        },
        EventBody::LlmRequest {
            task_id: task_id.clone(),
            sample,
            call,
            purpose: Purpose::Method {
                method: method.to_string(),
            },
            provider: "reference".into(),
            model: "reference".into(),
            messages,
            params: Params::default(),
        },
        EventBody::LlmResponse {
            task_id: task_id.clone(),
            sample,
            call,
            text: reply.to_string(),
            usage: None,
            finish_reason: Some("stop".into()),
            latency_s: 0.0,
            retries: 0,
            retry_log: Vec::new(),
            failure: None,
            prompt_changed: false,
        },
        EventBody::CodeExtracted {
            task_id: task_id.clone(),
            sample,
            code: code.to_string(),
            notes: Vec::new(),
            method: Some(method.to_string()),
            round: Some(0),
        },
    ];
    if let Some(result) = result {
        events.push(EventBody::TestRun {
            task_id: task_id.clone(),
            sample,
            scope: Scope::Public,
            method: Some(method.to_string()),
            round: Some(0),
            result: result.clone(),
        });
    }
    events.push(EventBody::MethodFinished {
        task_id,
        sample,
        method: method.to_string(),
        status: if result.is_some() {
            MethodStatus::Passed
        } else {
            MethodStatus::Untested
        },
        repairs: 0,
    });
    events
}

/// A fresh session for the corpus in `CARGO_TARGET_TMPDIR` (the checkout's file system, where
/// `./sessions` would be), its run and tasks started, and the fold of those events.
fn session(corpus: &Corpus) -> (tempfile::TempDir, SessionWriter, EvalState) {
    let root = tempfile::Builder::new()
        .prefix("bench-generate-")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .expect("a temporary directory");
    let ds = &corpus.dataset;
    let meta = Meta {
        schema: SCHEMA,
        id: store::new_id("run", "bench-generate"),
        kind: "run".into(),
        created: store::now_rfc3339(),
        tool_version: env!("CARGO_PKG_VERSION").into(),
        dataset: DatasetRef {
            origin: ds.origin.clone(),
            name: ds.name.clone(),
            tasks: ds.tasks.len(),
            digest: dataset::digest(ds),
        },
        model: Some("reference".into()),
        strategy: Some("tdd".into()),
        source: None,
        harness: None,
        harness_caveat: None,
    };
    let mut writer = SessionWriter::create(root.path(), &meta).expect("session created");
    let tasks: Vec<String> = ds.tasks.iter().map(|t| t.id.clone()).collect();
    let mut state = EvalState::default();
    let mut start = vec![EventBody::RunStarted {
        tool_version: env!("CARGO_PKG_VERSION").into(),
        tasks: tasks.clone(),
        samples: 1,
        config: serde_json::json!({ "strategy": "tdd", "provider": "reference" }),
    }];
    start.extend(
        tasks
            .into_iter()
            .map(|task_id| EventBody::TaskStarted { task_id, sample: 0 }),
    );
    for body in start {
        state.apply(&writer.append(body).expect("event appended"));
    }
    (root, writer, state)
}

#[divan::bench(args = CORPORA, sample_count = PIECE_SAMPLES)]
fn tests_and_stub(bencher: divan::Bencher, name: &str) {
    let Some(c) = corpus(name) else { return };
    bencher.with_inputs(c.cycle()).bench_local_values(|s| {
        let task = c.task(s);
        (
            public_tests::public_tests(task, &s.method, MODE),
            splice::method_stub(task, &s.method),
        )
    });
}

#[divan::bench(args = CORPORA, sample_count = PIECE_SAMPLES)]
fn prompt(bencher: divan::Bencher, name: &str) {
    let Some(c) = corpus(name) else { return };
    let prompts = Prompts::embedded();
    bencher.with_inputs(c.cycle()).bench_local_values(|s| {
        prompts
            .method(&method_context(
                c.task(s),
                &s.partial,
                &s.method,
                &s.stub,
                s.tests.as_ref(),
            ))
            .unwrap()
    });
}

#[divan::bench(args = CORPORA, sample_count = PIECE_SAMPLES)]
fn extract_method(bencher: divan::Bencher, name: &str) {
    let Some(c) = corpus(name) else { return };
    bencher
        .with_inputs(c.cycle())
        .bench_local_values(|s| method_and_helpers(&s.reply, c.task(s), &s.method).unwrap());
}

#[divan::bench(args = CORPORA, sample_count = PIECE_SAMPLES)]
fn splice_method(bencher: divan::Bencher, name: &str) {
    let Some(c) = corpus(name) else { return };
    bencher.with_inputs(c.cycle()).bench_local_values(|s| {
        splice_all(&s.partial, &c.task(s).class_name, &s.method, "", &s.code).unwrap()
    });
}

#[divan::bench(args = CORPORA, sample_count = PIECE_SAMPLES)]
fn session_write(bencher: divan::Bencher, name: &str) {
    let Some(c) = corpus(name) else { return };
    let (_root, mut writer, _) = session(c);
    let mut next = c.cycle();
    bencher
        .with_inputs(|| next().events.clone())
        .bench_local_values(|events| {
            for body in events {
                writer.append(body).unwrap();
            }
        });
}

#[divan::bench(args = CORPORA, sample_count = PIECE_SAMPLES)]
fn reduce(bencher: divan::Bencher, name: &str) {
    let Some(c) = corpus(name) else { return };
    let (_root, _writer, base) = session(c);
    let mut next = c.cycle();
    // Events as read back from the log, numbered after the run's start.
    bencher
        .with_inputs(|| {
            let events: Vec<Event> = next()
                .events
                .iter()
                .enumerate()
                .map(|(i, body)| Event {
                    seq: base.events + i as u64,
                    ts: store::now_ts(),
                    body: body.clone(),
                })
                .collect();
            (base.clone(), events)
        })
        .bench_local_values(|(mut state, events)| {
            for e in &events {
                state.apply(e);
            }
            (state, events)
        });
}

/// The whole per-method step of the TDD loop minus the model and the tests: stub and public
/// tests, prompt, (stubbed reply), extraction, splice, the public suite's spec, (stubbed
/// result), and the method's events appended (fsync) and folded through the pipeline's `Sink`.
#[divan::bench(args = CORPORA, sample_count = PIECE_SAMPLES)]
fn per_method_step(bencher: divan::Bencher, name: &str) {
    let Some(c) = corpus(name) else { return };
    let prompts = Prompts::embedded();
    let (_root, writer, state) = session(c);
    let on_update = |_: Update<'_>| {};
    let sink = Sink::new(writer, state, &on_update);
    bencher.with_inputs(c.cycle()).bench_local_values(|s| {
        let task = c.task(s);
        let method = s.method.as_str();
        let (task_id, sample) = (task.id.clone(), 0);
        let call = s.index as u32 + 1;
        sink.emit(EventBody::MethodStarted {
            task_id: task_id.clone(),
            sample,
            method: method.to_string(),
            index: s.index,
        })
        .unwrap();
        let tests = public_tests::public_tests(task, method, MODE);
        let stub = splice::method_stub(task, method).unwrap_or_default();
        let messages = prompts
            .method(&method_context(
                task,
                &s.partial,
                method,
                &stub,
                tests.as_ref(),
            ))
            .unwrap();
        let purpose = Purpose::Method {
            method: method.to_string(),
        };
        sink.emit(EventBody::LlmRequest {
            task_id: task_id.clone(),
            sample,
            call,
            purpose: purpose.clone(),
            provider: "reference".into(),
            model: "reference".into(),
            messages: messages.clone(),
            params: Params::default(),
        })
        .unwrap();
        // The model, stubbed: the call is built as `TaskIo::ask` builds it, the reply is the
        // reference's.
        let _call = divan::black_box(Call {
            task_id: task_id.clone(),
            purpose,
            messages,
            params: Params::default(),
        });
        let text = s.reply.clone();
        sink.emit(EventBody::LlmResponse {
            task_id: task_id.clone(),
            sample,
            call,
            text: text.clone(),
            usage: None,
            finish_reason: Some("stop".into()),
            latency_s: 0.0,
            retries: 0,
            retry_log: Vec::new(),
            failure: None,
            prompt_changed: false,
        })
        .unwrap();
        let code = method_and_helpers(&text, task, method);
        let candidate = code
            .as_ref()
            .map_err(String::clone)
            .and_then(|c| splice_all(&s.partial, &task.class_name, method, "", c));
        sink.emit(EventBody::CodeExtracted {
            task_id: task_id.clone(),
            sample,
            code: code.clone().unwrap_or_default(),
            notes: candidate.as_ref().err().cloned().into_iter().collect(),
            method: Some(method.to_string()),
            round: Some(0),
        })
        .unwrap();
        let status = match (&candidate, &tests) {
            (Ok(class), Some(t)) => {
                divan::black_box(public_suite(class, t));
                // The tests, stubbed: they all pass.
                let result = s.result.clone().expect("tests have a result");
                sink.emit(EventBody::TestRun {
                    task_id: task_id.clone(),
                    sample,
                    scope: Scope::Public,
                    method: Some(method.to_string()),
                    round: Some(0),
                    result,
                })
                .unwrap();
                MethodStatus::Passed
            }
            (Ok(_), None) => MethodStatus::Untested,
            (Err(_), _) => MethodStatus::NoCode,
        };
        sink.emit(EventBody::MethodFinished {
            task_id,
            sample,
            method: method.to_string(),
            status,
            repairs: 0,
        })
        .unwrap();
        candidate
    });
}

/// For comparison: one public-test suite of a method (the partial class with the method in,
/// and its public tests) in the warm sandbox, as `classlab run` (default: warm) runs it.
#[divan::bench(args = CORPORA, sample_count = RUN_SAMPLES)]
fn test_run(bencher: divan::Bencher, name: &str) {
    let Some(c) = corpus(name) else { return };
    let Some(sandbox) = sandbox() else { return };
    let specs: Vec<SuiteSpec> = c
        .tested()
        .into_iter()
        .map(|s| public_suite(&s.class, s.tests.as_ref().expect("tested")))
        .collect();
    let Some(first) = specs.first() else { return };
    // Start the warm interpreter before timing.
    sandbox.run(first);
    let mut i = 0;
    bencher
        .with_inputs(|| {
            let spec = &specs[i % specs.len()];
            i += 1;
            spec
        })
        .bench_local_values(|spec| sandbox.run(spec));
}

fn sandbox() -> Option<&'static Sandbox> {
    static SB: OnceLock<Option<Sandbox>> = OnceLock::new();
    SB.get_or_init(|| {
        let options = SandboxOptions {
            launcher: Some(PathBuf::from(env!("CARGO_BIN_EXE_classlab"))),
            warm: true,
            ..SandboxOptions::default()
        };
        match Sandbox::with_options(options) {
            Ok(sb) => {
                for w in &sb.isolation().warnings {
                    eprintln!("sandbox: warning: {w}");
                }
                eprintln!("sandbox: warm = {}", sb.isolation().warm);
                Some(sb)
            }
            Err(e) => {
                eprintln!("no sandbox, test_run skipped: {e}");
                None
            }
        }
    })
    .as_ref()
}
