//! What a session's results depend on (its input digests, kept in its meta) and the check of
//! a resume against them, for evaluations and (through [`add_judging`] and [`check_inputs`])
//! generation runs.

use std::time::Duration;

use serde_json::json;

use super::{EvalError, EvalRequest};
use crate::exec::{Harness, Sandbox};
use crate::metrics::fingerprint::Thresholds;
use crate::session::store::now_rfc3339;
use crate::session::{InputRecord, Inputs, Resumable};

/// The evaluation's settings as recorded in the session's `run_started` event.
pub(super) fn config_json(req: &EvalRequest<'_>) -> serde_json::Value {
    let mut config = json!({
        "dataset": req.dataset.origin,
        "dataset_digest": req.dataset_digest,
        "predictions": req.outputs.file,
        "format": req.outputs.format,
        "model": req.outputs.model,
        "strategy": req.outputs.strategy,
        "jobs": req.jobs,
        "budget_s": req.budget.as_secs_f64(),
        "hash_seed": req.hash_seed,
        "thresholds": req.thresholds,
        "harness": req.harness,
    });
    // Only when chosen: the configuration of earlier sessions stays as it was.
    if let Some(tasks) = &req.tasks {
        config["tasks"] = json!(tasks);
    }
    config
}

/// What an evaluation's results depend on, digested into the session's meta: the dataset,
/// the predictions file, and the effective configuration — how the file was read, the test
/// budget, the hash seed, the outcome thresholds and the interpreter (path and version).
/// `--jobs` and warm/cold forking change how fast, not what, and are left out.
pub fn inputs(req: &EvalRequest<'_>, sandbox: &Sandbox) -> Inputs {
    let mut config = json!({ "format": req.outputs.format });
    if let Some(tasks) = &req.tasks {
        config["tasks"] = json!(tasks);
    }
    add_judging(
        &mut config,
        req.budget,
        req.hash_seed,
        &req.thresholds,
        sandbox,
    );
    add_harness(&mut config, req.harness);
    Inputs {
        dataset: InputRecord::file(&req.dataset.origin, &req.dataset_digest),
        outputs: Some(InputRecord::file(&req.outputs.file, &req.outputs.digest)),
        config: InputRecord::config(config),
        recorded_on_resume: None,
    }
}

/// Add to a session's configuration (a JSON object) what judging its code depends on, for
/// evaluations and runs alike: the test budget, the hash seed, the outcome thresholds and the
/// interpreter (path and version).
pub(crate) fn add_judging(
    config: &mut serde_json::Value,
    budget: Duration,
    hash_seed: Option<u32>,
    thresholds: &Thresholds,
    sandbox: &Sandbox,
) {
    let python = &sandbox.isolation().python;
    if let Some(map) = config.as_object_mut() {
        for (k, v) in [
            ("budget_s", json!(budget.as_secs_f64())),
            ("hash_seed", json!(hash_seed.unwrap_or(0))),
            ("thresholds", json!(thresholds)),
            ("python", json!(python.executable)),
            ("python_version", json!(python.version)),
        ] {
            map.insert(k.to_string(), v);
        }
    }
}

/// Add the harness to a session's configuration when it is not the in-process one: sessions
/// from before the split harness recorded none and ran in-process, so an in-process resume of
/// one digests as it did, and resuming with another harness is refused like any other change.
pub(crate) fn add_harness(config: &mut serde_json::Value, harness: Harness) {
    if harness != Harness::Inproc
        && let Some(map) = config.as_object_mut()
    {
        map.insert("harness".into(), json!(harness));
    }
}

/// Check a session against the inputs given to resume it, before anything is written: the
/// kind and dataset (every session), then every input digest. A session from before input
/// digests cannot be checked beyond its dataset and predictions path: it is resumed with a
/// warning (returned), and the digests given now are recorded so later resumes are checked.
pub(crate) fn check_inputs(
    resuming: &mut Resumable,
    kind: &str,
    what: &str,
    outputs_name: &str,
    now: &Inputs,
) -> Result<Option<String>, String> {
    let meta = &resuming.log.meta;
    meta.check_resumable(kind, what, &now.dataset.sha256)?;
    if let Some(recorded) = &resuming.inputs {
        recorded.check_same(&meta.id, now, outputs_name)?;
        return Ok(None);
    }
    let warning = format!(
        "session {} predates input digests: only its dataset could be checked, not that the \
         {outputs_name} and configuration are those it started with; the digests of this \
         resume's inputs are recorded from now on",
        meta.id
    );
    let inputs = Inputs {
        recorded_on_resume: Some(now_rfc3339()),
        ..now.clone()
    };
    resuming.record_inputs(&inputs).map_err(|e| e.to_string())?;
    Ok(Some(warning))
}

/// Check a session against the evaluation given to resume it (see [`check_inputs`]).
pub(super) fn check_resumable(
    resuming: &mut Resumable,
    req: &EvalRequest<'_>,
    inputs: &Inputs,
) -> Result<Option<String>, EvalError> {
    let meta = &resuming.log.meta;
    meta.check_resumable("eval", "an evaluation", &req.dataset_digest)
        .map_err(EvalError::Mismatch)?;
    // A session from before digests names its predictions file: another file is refused.
    if resuming.inputs.is_none()
        && let Some(source) = &resuming.log.meta.source
        && !same_path(source, &req.outputs.file)
    {
        return Err(EvalError::Mismatch(format!(
            "session {} evaluated the predictions {source}; {} was given (resume with the \
             session's own predictions, or start a new session)",
            resuming.log.meta.id, req.outputs.file
        )));
    }
    check_inputs(
        resuming,
        "eval",
        "an evaluation",
        "predictions file",
        inputs,
    )
    .map_err(EvalError::Mismatch)
}

/// Two paths to the same file (as given, or once resolved).
fn same_path(a: &str, b: &str) -> bool {
    a == b
        || matches!(
            (std::fs::canonicalize(a), std::fs::canonicalize(b)),
            (Ok(x), Ok(y)) if x == y
        )
}
