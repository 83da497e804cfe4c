//! `classlab sessions merge OUT IN...`: evaluation shards (`eval --shard K/N`, run by any
//! engine: a Slurm array, GNU parallel) joined into one session. Inputs are verified first —
//! finished evaluations, intact logs, the same dataset, outputs file, configuration (the shard
//! aside) and model, no task in two of them — and nothing is written unless all pass.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::event::EventBody;
use super::store::{self, SessionLog, SessionWriter};

/// What a merge wrote.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Merged {
    pub dir: PathBuf,
    pub inputs: Vec<String>,
    pub tasks: usize,
    pub events: usize,
}

fn config_without_shard(v: &Value) -> Value {
    let mut v = v.clone();
    if let Value::Object(m) = &mut v {
        m.remove("shard");
        m.remove("session_dir");
    }
    v
}

fn started(log: &SessionLog) -> Option<(&Vec<String>, u32, &Value, &str)> {
    log.events.iter().find_map(|e| match &e.body {
        EventBody::RunStarted {
            tasks,
            samples,
            config,
            tool_version,
        } => Some((tasks, *samples, config, tool_version.as_str())),
        _ => None,
    })
}

/// Verify the inputs and write the merged session at `out` (a directory that must not exist).
pub fn merge(out: &Path, inputs: &[PathBuf]) -> anyhow::Result<Merged> {
    anyhow::ensure!(!inputs.is_empty(), "no session to merge");
    anyhow::ensure!(
        !out.exists(),
        "{}: already exists; merge writes a new session",
        out.display()
    );
    let logs = inputs
        .iter()
        .map(|d| SessionLog::open(d).map_err(anyhow::Error::from))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let first = &logs[0];
    let (_, samples, config0, tool) = started(first)
        .ok_or_else(|| anyhow::anyhow!("{}: no run_started event", first.dir.display()))?;
    let inputs0 = store::read_inputs(&first.dir)?;
    let mut owner: BTreeMap<&str, &Path> = BTreeMap::new();
    let mut all_tasks: Vec<String> = Vec::new();
    for log in &logs {
        let d = log.dir.display();
        anyhow::ensure!(
            log.meta.kind == "eval",
            "{d}: a `{}` session, not an evaluation",
            log.meta.kind
        );
        anyhow::ensure!(
            log.problems.is_empty(),
            "{d}: damaged log ({})",
            log.problems.join("; ")
        );
        anyhow::ensure!(
            log.meta.dataset.digest == first.meta.dataset.digest,
            "{d}: another dataset ({}) than {}",
            log.meta.dataset.origin,
            first.dir.display()
        );
        anyhow::ensure!(
            log.meta.model == first.meta.model,
            "{d}: another model than {}",
            first.dir.display()
        );
        let (tasks, s, config, _) =
            started(log).ok_or_else(|| anyhow::anyhow!("{d}: no run_started event"))?;
        anyhow::ensure!(
            s == samples,
            "{d}: {s} samples per task, {} has {samples}",
            first.dir.display()
        );
        let ins = store::read_inputs(&log.dir)?;
        anyhow::ensure!(
            ins.as_ref()
                .map(|i| (&i.dataset.sha256, i.outputs.as_ref().map(|o| &o.sha256)))
                == inputs0
                    .as_ref()
                    .map(|i| (&i.dataset.sha256, i.outputs.as_ref().map(|o| &o.sha256))),
            "{d}: other inputs (dataset or outputs file) than {}",
            first.dir.display()
        );
        anyhow::ensure!(
            config_without_shard(config) == config_without_shard(config0),
            "{d}: another configuration than {}",
            first.dir.display()
        );
        let finished = log
            .events
            .iter()
            .any(|e| matches!(e.body, EventBody::RunFinished { cancelled: false }));
        anyhow::ensure!(
            finished,
            "{d}: not finished (`classlab eval --resume` it first)"
        );
        for t in tasks {
            if let Some(other) = owner.insert(t, &log.dir) {
                anyhow::bail!("task {t} is in both {} and {d}", other.display());
            }
            all_tasks.push(t.clone());
        }
    }
    let root = out
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let id = out
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .ok_or_else(|| anyhow::anyhow!("{}: not a directory name", out.display()))?;
    let mut meta = first.meta.clone();
    meta.id = id;
    meta.created = store::now_rfc3339();
    let mut w = match &inputs0 {
        Some(i) => SessionWriter::create_with_inputs(root, &meta, i)?,
        None => SessionWriter::create(root, &meta)?,
    };
    let mut config = config_without_shard(config0);
    if let Value::Object(m) = &mut config {
        m.insert(
            "merged_from".into(),
            Value::from(logs.iter().map(|l| l.meta.id.clone()).collect::<Vec<_>>()),
        );
    }
    w.append(EventBody::RunStarted {
        tool_version: tool.to_string(),
        tasks: all_tasks.clone(),
        samples,
        config,
    })?;
    let mut events = 1;
    for log in &logs {
        for e in &log.events {
            match e.body {
                EventBody::RunStarted { .. }
                | EventBody::RunResumed { .. }
                | EventBody::RunFinished { .. } => {}
                _ => {
                    w.append(e.body.clone())?;
                    events += 1;
                }
            }
        }
    }
    w.append(EventBody::RunFinished { cancelled: false })?;
    Ok(Merged {
        dir: w.dir().to_path_buf(),
        inputs: logs.iter().map(|l| l.meta.id.clone()).collect(),
        tasks: all_tasks.len(),
        events: events + 1,
    })
}
