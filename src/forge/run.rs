//! Forging a selection of tasks into a dataset directory: one record per class in
//! `DIR/tasks/` (written atomically: a rerun after `kill -9` resumes where it stopped, and
//! shards `--shard K/N` can share the directory), then `DIR/dataset.json` assembled from the
//! records in source order — byte-identical for the same inputs, seed and generator.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use anyhow::Context as _;
use serde::Serialize;
use serde_json::{Value, json};

use super::gate::{Gates, shortfalls};
use super::llm::{self, Totals};
use super::sample::{self, MetricComparison};
use super::task::{Evidence, Settings, forge_task, generator_version};
use crate::curate::export::{ExportFormat, task_value};
use crate::exec::Sandbox;
use crate::model::Task;
use crate::stats::bootstrap::BootstrapSpec;

/// The record of one class in `DIR/tasks/`.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct Record {
    pub task_id: String,
    pub generator: String,
    pub seed: u64,
    /// The forged task (classlab dataset task object), absent when dropped.
    pub task: Option<Value>,
    /// `[reason code, detail]` when dropped.
    pub dropped: Option<(String, String)>,
    pub evidence: Value,
}

/// What a forge did, as `--json` prints it.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    pub classes: usize,
    pub sample: usize,
    pub gated: usize,
    pub below_gate: usize,
    pub dropped: BTreeMap<String, usize>,
    pub funnel: BTreeMap<&'static str, usize>,
    pub ks: BTreeMap<&'static str, MetricComparison>,
    pub seconds: f64,
    /// Per task: outcome and evidence (gated / below_gate / dropped); written to
    /// `DIR/evidence.json`, not printed.
    #[serde(skip)]
    pub tasks: BTreeMap<String, Value>,
    pub dataset: Option<PathBuf>,
    /// `--llm` only: what the model proposed and what was kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub llm: Option<Totals>,
}

/// The selection and how to forge it.
pub struct Job<'a> {
    /// The filtered population, in source order.
    pub population: &'a [Task],
    /// Indices into `population` to forge (the sample, before sharding).
    pub sample: Vec<usize>,
    pub shard: Option<crate::corpus::walk::Shard>,
    pub settings: Settings,
    pub gates: Gates,
    pub jobs: usize,
    pub out: &'a Path,
    pub name: String,
    /// Task id → (funnel reason, detail): recorded as dropped without forging (a corpus
    /// class whose closure is not self-contained).
    pub predropped: BTreeMap<String, (String, String)>,
    /// `--llm`: ask a model for tests of what each forged suite misses.
    pub llm: Option<&'a llm::Step>,
}

fn record_path(out: &Path, id: &str) -> PathBuf {
    // Task ids become file names through a sanitised component (no `/`, no `..`).
    let safe: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    let digest = crate::corpus::walk::fnv64(id.as_bytes());
    out.join("tasks").join(format!(
        "{}-{digest:016x}.json",
        safe.trim_start_matches('.')
    ))
}

fn write_atomic(path: &Path, text: &str) -> anyhow::Result<()> {
    let tmp = path.with_extension("json.tmp");
    std::fs::write(&tmp, text).with_context(|| format!("{}: cannot write", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("{}: cannot write", path.display()))?;
    Ok(())
}

fn read_record(path: &Path) -> Option<Record> {
    serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()
}

/// Forge the job's tasks (those a finished record does not already cover), calling `done`
/// after each; then assemble the dataset and the summary.
pub fn forge(
    sandbox: &Sandbox,
    job: &Job<'_>,
    cancel: &AtomicBool,
    done: &(dyn Fn(&str, &Record) + Sync),
) -> anyhow::Result<Summary> {
    let t0 = std::time::Instant::now();
    std::fs::create_dir_all(job.out.join("tasks"))
        .with_context(|| format!("{}: cannot create", job.out.display()))?;
    let generator = generator_version();
    let mine: Vec<usize> = job
        .sample
        .iter()
        .copied()
        .filter(|&i| {
            job.shard
                .as_ref()
                .is_none_or(|s| s.holds(&job.population[i].id))
        })
        .collect();
    let todo: Vec<usize> = mine
        .iter()
        .copied()
        .filter(|&i| {
            let t = &job.population[i];
            read_record(&record_path(job.out, &t.id)).is_none_or(|r| {
                r.generator != generator
                    || r.seed != job.settings.seed
                    // Forged without --llm, and now asked with it: forged again (deterministic).
                    || (job.llm.is_some() && r.dropped.is_none() && r.evidence.get("llm").is_none())
            })
        })
        .collect();
    let next = AtomicUsize::new(0);
    let failure: Mutex<Option<anyhow::Error>> = Mutex::new(None);
    std::thread::scope(|s| {
        for _ in 0..job.jobs.max(1) {
            s.spawn(|| {
                loop {
                    if cancel.load(Ordering::Relaxed) {
                        break;
                    }
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&i) = todo.get(k) else { break };
                    let task = &job.population[i];
                    let rec = match job.predropped.get(&task.id) {
                        Some(why) => Record {
                            task_id: task.id.clone(),
                            generator: generator.clone(),
                            seed: job.settings.seed,
                            task: None,
                            dropped: Some(why.clone()),
                            evidence: json!({}),
                        },
                        None => {
                            let mut f = forge_task(sandbox, task, &job.settings, cancel);
                            if cancel.load(Ordering::Relaxed) {
                                break; // a cancelled class is not recorded: the rerun forges it
                            }
                            let asked = match job.llm.filter(|_| f.task.is_some()) {
                                None => None,
                                Some(step) => {
                                    match llm::improve(sandbox, &mut f, &job.settings, step, cancel)
                                    {
                                        Ok(Some(e)) => Some(e),
                                        Ok(None) => break, // cancelled: not recorded
                                        Err(e) => {
                                            *failure.lock().unwrap_or_else(|e| e.into_inner()) =
                                                Some(e);
                                            break;
                                        }
                                    }
                                }
                            };
                            let mut evidence =
                                serde_json::to_value(&f.evidence).unwrap_or(Value::Null);
                            if let Some(e) = asked {
                                evidence["llm"] = serde_json::to_value(&e).unwrap_or(Value::Null);
                            }
                            Record {
                                task_id: task.id.clone(),
                                generator: generator.clone(),
                                seed: job.settings.seed,
                                task: f.task.as_ref().map(dataset_task),
                                dropped: f.dropped.map(|(c, w)| (c.to_string(), w)),
                                evidence,
                            }
                        }
                    };
                    let text = serde_json::to_string_pretty(&rec).unwrap_or_default();
                    if let Err(e) = write_atomic(&record_path(job.out, &task.id), &text) {
                        *failure.lock().unwrap_or_else(|e| e.into_inner()) = Some(e);
                        break;
                    }
                    done(&task.id, &rec);
                }
            });
        }
    });
    if let Some(e) = failure.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(e);
    }
    assemble(job, &generator, t0.elapsed().as_secs_f64())
}

/// A task as the dataset stores it: ClassEval's fields and ours, with its provenance.
fn dataset_task(t: &Task) -> Value {
    let mut v = task_value(t, ExportFormat::Classlab);
    let mut prov = serde_json::Map::new();
    prov.insert("source".into(), json!(t.provenance.source));
    prov.insert("original_id".into(), json!(t.provenance.original_id));
    prov.insert(
        "original_digest".into(),
        json!(t.provenance.original_digest),
    );
    for (k, x) in &t.provenance.extra {
        prov.insert(k.clone(), x.clone());
    }
    v["provenance"] = Value::Object(prov);
    v
}

fn assemble(job: &Job<'_>, generator: &str, seconds: f64) -> anyhow::Result<Summary> {
    let mut tasks_out = Vec::new();
    let mut per_task = BTreeMap::new();
    let mut dropped: BTreeMap<String, usize> = BTreeMap::new();
    let (mut gated, mut below) = (Vec::new(), 0);
    let mut finished = 0;
    let mut funnel: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut llm_totals = job.llm.map(|_| Totals::default());
    for &i in &job.sample {
        let t = &job.population[i];
        let Some(rec) = read_record(&record_path(job.out, &t.id))
            .filter(|r| r.generator == generator && r.seed == job.settings.seed)
        else {
            continue;
        };
        finished += 1;
        if let Some((code, why)) = &rec.dropped {
            *dropped.entry(code.clone()).or_default() += 1;
            per_task.insert(
                t.id.clone(),
                json!({"outcome": "dropped", "reason": code, "detail": why}),
            );
            continue;
        }
        if let (Some(t), Some(e)) = (llm_totals.as_mut(), rec.evidence.get("llm")) {
            t.add(&serde_json::from_value(e.clone()).unwrap_or_default());
        }
        let ev: Evidence = evidence_of(&rec.evidence);
        let short = shortfalls(&ev, &job.gates);
        if short.is_empty() {
            gated.push(i);
        } else {
            below += 1;
        }
        per_task.insert(
            t.id.clone(),
            json!({"outcome": if short.is_empty() { "gated" } else { "below_gate" },
                   "below": short, "evidence": rec.evidence}),
        );
        if let Some(mut task) = rec.task {
            task["provenance"]["forge"]["gate"] = json!({
                "branch": job.gates.branch, "mutation": job.gates.mutation,
                "passed": short.is_empty(), "below": short});
            tasks_out.push(task);
        }
    }
    funnel.insert("population", job.population.len());
    funnel.insert("sample", job.sample.len());
    funnel.insert("forged", finished);
    funnel.insert("dropped", dropped.values().sum());
    funnel.insert("kept", tasks_out.len());
    funnel.insert("gated", gated.len());
    let complete = finished == job.sample.len();
    let dataset = if complete {
        let path = job.out.join("dataset.json");
        let doc = json!({
            "format": crate::dataset::FORMAT_TAG,
            "version": crate::dataset::FORMAT_VERSION,
            "name": job.name,
            "description": format!("forged by {generator}: differential tests generated from each reference (docs/forge.md)"),
            "tasks": tasks_out,
        });
        let text = serde_json::to_string_pretty(&doc)? + "\n";
        write_atomic(&path, &text)?;
        Some(path)
    } else {
        None
    };
    let evidence = serde_json::to_string_pretty(&per_task)? + "\n";
    write_atomic(&job.out.join("evidence.json"), &evidence)?;
    let metrics: Vec<_> = job.population.iter().map(sample::metrics_of).collect();
    let ks = sample::compare(&metrics, &job.sample, &gated, BootstrapSpec::default());
    Ok(Summary {
        classes: job.population.len(),
        sample: job.sample.len(),
        gated: gated.len(),
        below_gate: below,
        dropped,
        funnel,
        ks,
        seconds,
        tasks: per_task,
        dataset,
        llm: llm_totals,
    })
}

fn evidence_of(v: &Value) -> Evidence {
    let f = |k: &str| v.get(k).and_then(Value::as_f64);
    Evidence {
        line: f("line"),
        branch: f("branch"),
        mutation: f("mutation"),
        ..Evidence::default()
    }
}
