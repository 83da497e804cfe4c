//! One task of a generation run, start to finish: the strategy writes the class (holistic,
//! incremental and compositional here, TDD in `tdd`), then the private tests judge it with
//! the evaluation's machinery, so every run has ClassEval metrics and a fingerprint.

use super::prompts::{CompositionalContext, HolisticContext, IncrementalContext};
use super::run::RunError;
use super::task_io::TaskIo;
use super::{eval, reference};
use crate::analysis::{extract, splice};
use crate::llm::{Completion, Failure, FailureKind, Purpose};
use crate::metrics::fingerprint::ReferenceEvidence;
use crate::model::Strategy;
use crate::session::event::{EventBody, MethodStatus, Scope};

/// The class a strategy produced, or `None` when the run was cancelled meanwhile.
pub type Written = Option<(String, Vec<String>)>;

/// Run one task. Cancellation leaves it unfinished (no `task_finished`), so `--resume`
/// picks it up; only a session that cannot be written is an error.
pub fn run_task(io: &mut TaskIo<'_, '_>) -> Result<(), RunError> {
    if io.cancelled() {
        return Ok(());
    }
    io.emit(EventBody::TaskStarted {
        task_id: io.task.id.clone(),
        sample: io.sample,
    })?;
    let written = match io.req.strategy {
        Strategy::Holistic => holistic(io),
        Strategy::Incremental | Strategy::Compositional => method_by_method(io),
        Strategy::Tdd => super::tdd::write_class(io),
    };
    let written = match written {
        Err(RunError::NotGenerated { method, message }) => {
            return not_generated(io, method, message);
        }
        other => other?,
    };
    let Some((code, notes)) = written else {
        return Ok(());
    };
    io.emit(EventBody::CodeExtracted {
        task_id: io.task.id.clone(),
        sample: io.sample,
        code: code.clone(),
        notes,
        method: None,
        round: None,
    })?;
    io.emit(EventBody::StaticIndicators {
        task_id: io.task.id.clone(),
        sample: io.sample,
        indicators: crate::analysis::tamper::scan(&code),
    })?;
    let spec = eval::suite_for(io.task, &code, io.req.budget, io.req.hash_seed);
    let Some(result) = io.run_suite(&spec, Scope::Private, None, None)? else {
        return Ok(());
    };
    let mut ctx = io.env_context();
    if reference::needed(io.task, &result) {
        let spec = reference::suite(io.task, io.req.budget, io.req.hash_seed);
        let Some(reference) = io.run_reference(&spec)? else {
            return Ok(());
        };
        ctx = ctx.with_reference(ReferenceEvidence::of(&reference));
    }
    let summary = eval::summarize_in(io.task, &result, &io.req.thresholds, &ctx);
    io.emit(EventBody::TaskFinished {
        task_id: io.task.id.clone(),
        sample: io.sample,
        summary,
    })
}

/// A model request failed: the method (if one was being written) and the task end `not
/// generated`, with no class to judge — not the model's failure.
fn not_generated(
    io: &mut TaskIo<'_, '_>,
    method: Option<String>,
    message: String,
) -> Result<(), RunError> {
    let reason = format!("provider error: {message}");
    if let Some(m) = &method {
        io.emit(EventBody::MethodFinished {
            task_id: io.task.id.clone(),
            sample: io.sample,
            method: m.clone(),
            status: MethodStatus::NotGenerated,
            repairs: 0,
        })?;
    }
    io.emit(EventBody::TaskNotGenerated {
        task_id: io.task.id.clone(),
        sample: io.sample,
        method,
        reason,
    })
}

/// Ask the model through `io`; a request that failed after its retries (other than by
/// cancellation) ends the task as not generated ([`RunError::NotGenerated`]).
pub fn ask(
    io: &mut TaskIo<'_, '_>,
    purpose: Purpose,
    messages: Vec<crate::llm::Message>,
) -> Result<Result<Completion, Failure>, RunError> {
    let method = match &purpose {
        Purpose::Method { method } | Purpose::Repair { method, .. } => Some(method.clone()),
        Purpose::DependencyAnalysis | Purpose::Holistic | Purpose::ForgeTests { .. } => None,
    };
    match io.ask(purpose, messages)? {
        Err(f) if f.kind != FailureKind::Cancelled => Err(RunError::NotGenerated {
            method,
            message: f.message,
        }),
        answer => Ok(answer),
    }
}

/// What a model call gave: its text, or a note on why there is none. `None`: cancelled.
pub fn answer_text(answer: Result<Completion, Failure>) -> Option<Result<String, String>> {
    match answer {
        Ok(c) if c.text.trim().is_empty() => Some(Err("the model answered nothing".into())),
        Ok(c) => Some(Ok(c.text)),
        Err(f) if f.kind == FailureKind::Cancelled => None,
        Err(f) => Some(Err(format!("no answer: {}", f.message))),
    }
}

/// The whole class from the skeleton, extracted the way ClassEval extracts it.
fn holistic(io: &mut TaskIo<'_, '_>) -> Result<Written, RunError> {
    let messages = io.req.prompts.holistic(&HolisticContext {
        class_name: &io.task.class_name,
        skeleton: &io.task.skeleton,
    })?;
    let answer = ask(io, Purpose::Holistic, messages)?;
    Ok(answer_text(answer).map(|reply| match reply {
        Ok(text) => {
            let e = extract::extract_class(&text, io.task, Strategy::Holistic);
            (e.code, e.notes)
        }
        Err(note) => (String::new(), vec![note]),
    }))
}

/// Incremental (each prompt holds the methods written so far) or compositional (each
/// method alone), assembled at the end exactly as ClassEval assembles them.
fn method_by_method(io: &mut TaskIo<'_, '_>) -> Result<Written, RunError> {
    let incremental = io.req.strategy == Strategy::Incremental;
    let mut raw: Vec<String> = Vec::new();
    let mut notes = Vec::new();
    let methods: Vec<String> = io.task.methods.iter().map(|m| m.name.clone()).collect();
    for (index, method) in methods.iter().enumerate() {
        io.emit(EventBody::MethodStarted {
            task_id: io.task.id.clone(),
            sample: io.sample,
            method: method.clone(),
            index,
        })?;
        let stub = splice::method_stub(io.task, method).unwrap_or_default();
        let messages = if incremental {
            let so_far = extract::assemble_from_raw(&raw, io.task, Strategy::Incremental);
            io.req.prompts.incremental(&IncrementalContext {
                class_name: &io.task.class_name,
                partial_class: &so_far,
                method_name: method,
                signature_and_docstring: &stub,
            })?
        } else {
            io.req.prompts.compositional(&CompositionalContext {
                class_name: &io.task.class_name,
                skeleton: &io.task.skeleton,
                method_name: method,
                signature_and_docstring: &stub,
            })?
        };
        let answer = ask(
            io,
            Purpose::Method {
                method: method.clone(),
            },
            messages,
        )?;
        let Some(reply) = answer_text(answer) else {
            return Ok(None);
        };
        let (text, status) = match reply {
            Ok(text) => (text, MethodStatus::Untested),
            Err(note) => {
                notes.push(format!("{method}: {note}"));
                (String::new(), MethodStatus::NoCode)
            }
        };
        let code = extract::extract_method_code(&text, method);
        let status = if code.trim().is_empty() {
            MethodStatus::NoCode
        } else {
            status
        };
        io.emit(EventBody::CodeExtracted {
            task_id: io.task.id.clone(),
            sample: io.sample,
            code,
            notes: Vec::new(),
            method: Some(method.clone()),
            round: Some(0),
        })?;
        io.emit(EventBody::MethodFinished {
            task_id: io.task.id.clone(),
            sample: io.sample,
            method: method.clone(),
            status,
            repairs: 0,
        })?;
        raw.push(text);
    }
    Ok(Some((
        extract::assemble_from_raw(&raw, io.task, io.req.strategy),
        notes,
    )))
}
