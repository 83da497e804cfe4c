//! Everything a report shows, built once from the folded sessions; the renderers only
//! format it.

use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::bail;
use serde::Serialize;

use super::ReportArgs;
use crate::cli::Context;
use crate::dataset::{self, SAMPLE_NAME};
use crate::session::report::{RunReport, first_seen, report, session_data};
use crate::session::{EvalState, SessionLog};
use crate::stats::compare::{PairComparison, SessionData, all_pairs};
use crate::stats::grid::{Grid, grid};
use crate::stats::properties::{BUILTIN, property};
use crate::stats::slices::{Slices, slices};

#[derive(Debug, Serialize)]
pub struct ReportDoc {
    /// `report --json`'s shape: one entry per session.
    pub sessions: Vec<RunReport>,
    /// Column labels (model, strategy, condition), one per session.
    #[serde(skip)]
    pub labels: Vec<String>,
    /// Every pair of sessions, paired on common tasks, p Holm-adjusted across pairs.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pairs: Vec<PairComparison>,
    /// `--by`: per session, the metrics per quantile bin of the property (per year, or on
    /// either side of `cutoff`, for `first_seen`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub slices: Vec<Slices>,
    /// `--cutoff`: the date `first_seen`'s two bins are split at (the first: on or before).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cutoff: Option<String>,
    /// Tasks × sessions, fingerprint bucket per cell (several sessions only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grid: Option<Grid>,
}

/// A session's column label: model, strategy and docstring condition when recorded.
pub fn label(log: &SessionLog) -> String {
    let mut parts: Vec<String> = Vec::new();
    parts.extend(log.meta.model.clone());
    parts.extend(log.meta.strategy.clone());
    if let Some(d) = docstrings(log) {
        parts.push(format!("docstrings={d}"));
    }
    if parts.is_empty() {
        log.meta.id.clone()
    } else {
        parts.join(" ")
    }
}

/// The docstring condition a run was generated under (`run --docstrings`), if recorded.
pub fn docstrings(log: &SessionLog) -> Option<String> {
    let config = crate::cli::eval::recorded_config(log);
    config.get("docstrings")?.as_str().map(str::to_string)
}

/// Labels, made unique with the session id where two would read the same.
pub fn labels(loaded: &[(SessionLog, EvalState)]) -> Vec<String> {
    let plain: Vec<String> = loaded.iter().map(|(l, _)| label(l)).collect();
    plain
        .iter()
        .zip(loaded)
        .map(|(p, (l, _))| {
            if plain.iter().filter(|q| *q == p).count() > 1 {
                format!("{p} ({})", l.meta.id)
            } else {
                p.clone()
            }
        })
        .collect()
}

pub fn build(
    ctx: &Context,
    loaded: &[(SessionLog, EvalState)],
    args: &ReportArgs,
    problems: &mut usize,
) -> anyhow::Result<ReportDoc> {
    // The dataset the sessions ran on: task properties, skeletons and tests for the causes.
    let ds = match dataset_for(ctx, loaded) {
        Ok(ds) => {
            // Its problems matter to a slice (a task left out); the causes read only text.
            if args.by.is_some() || args.cutoff.is_some() {
                *problems += crate::cli::warn_all(&ds.problems);
            }
            Some(ds)
        }
        Err(err) => {
            eprintln!(
                "classlab: warning: the sessions' dataset cannot be read ({err}): failure causes from the code and tracebacks only"
            );
            // Not a problem of the sessions: the report is complete without it.
            None
        }
    };
    let by_id: BTreeMap<&str, &crate::model::Task> = ds
        .iter()
        .flat_map(|d| &d.tasks)
        .map(|t| (t.id.as_str(), t))
        .collect();
    let sessions: Vec<RunReport> = loaded
        .iter()
        .map(|(l, s)| RunReport {
            docstrings: docstrings(l),
            causes: Some(crate::session::report::cause_table(s, &|id| {
                by_id.get(id).map(|t| (*t).clone())
            })),
            ..report(&l.meta, s)
        })
        .collect();
    let labels = labels(loaded);
    let data: Vec<SessionData> = loaded
        .iter()
        .zip(&labels)
        .map(|((l, s), label)| SessionData {
            id: label.clone(),
            ..session_data(&l.meta, s)
        })
        .collect();
    let pairs = if loaded.len() > 1 {
        all_pairs(&data)
    } else {
        Vec::new()
    };
    // `--cutoff` slices by first_seen; with any other `--by` it means nothing.
    let by = match (&args.by, &args.cutoff) {
        (Some(by), Some(_)) if by != first_seen::PROPERTY => {
            return Err(crate::cli::UsageError(format!(
                "--cutoff splits by {}, not by {}",
                first_seen::PROPERTY,
                crate::text::escape_control(by)
            ))
            .into());
        }
        (None, Some(_)) => Some(first_seen::PROPERTY.to_string()),
        (by, _) => by.clone(),
    };
    let cutoff = args.cutoff.as_deref().map(first_seen::cutoff).transpose()?;
    let slices = match &by {
        Some(by) if by == first_seen::PROPERTY => {
            let Some(ds) = &ds else {
                bail!("--by {by} needs the sessions' dataset (give --dataset)");
            };
            let values = first_seen::values(&ds.tasks);
            if values.is_empty() {
                bail!(
                    "no task of {} has a first_seen date (a dataset exported by `classlab corpus \
                     export --format classlab` from a store dated by `classlab corpus dates`)",
                    ds.origin
                );
            }
            data.iter()
                .map(|d| first_seen::by_first_seen(&d.outcomes, &values, cutoff))
                .collect()
        }
        Some(by) => {
            let Some(ds) = &ds else {
                bail!("--by needs the sessions' dataset (give --dataset)");
            };
            let values = property_values(ds, by, args.store.as_deref())?;
            data.iter()
                .map(|d| slices(by, &d.outcomes, &values, args.bins))
                .collect()
        }
        None => Vec::new(),
    };
    let grid = (loaded.len() > 1).then(|| {
        let columns: Vec<_> = loaded
            .iter()
            .zip(&labels)
            .map(|((_, s), label)| {
                let mut seen = std::collections::BTreeSet::new();
                let ids: Vec<&String> = s
                    .task_ids
                    .iter()
                    .chain(s.runs().keys().map(|(t, _)| t))
                    .filter(|t| seen.insert(*t))
                    .collect();
                let cells = ids.iter().map(|t| ((*t).clone(), s.outcome(t))).collect();
                (label.clone(), cells)
            })
            .collect();
        grid(&columns)
    });
    Ok(ReportDoc {
        sessions,
        labels,
        pairs,
        slices,
        cutoff: args.cutoff.clone(),
        grid,
    })
}

/// The dataset the sessions ran on: `--dataset`, else the first session's recorded one.
fn dataset_for(
    ctx: &Context,
    loaded: &[(SessionLog, EvalState)],
) -> anyhow::Result<dataset::Dataset> {
    let path = ctx.dataset_path.clone().or_else(|| {
        loaded
            .iter()
            .map(|(l, _)| l.meta.dataset.origin.clone())
            .find(|o| o != SAMPLE_NAME)
            .map(PathBuf::from)
    });
    Ok(dataset::load(path.as_deref())?)
}

/// The property of every task of the dataset.
fn property_values(
    ds: &dataset::Dataset,
    by: &str,
    store: Option<&std::path::Path>,
) -> anyhow::Result<BTreeMap<String, f64>> {
    // The strength of each task's tests, from the rigor store (`classlab rigor`).
    let store = store.map_or_else(crate::rigor::store::default_path, Into::into);
    if let Some(values) = crate::rigor::lookup::property_values(&ds.tasks, by, &store)? {
        return Ok(values);
    }
    let values: BTreeMap<String, f64> = ds
        .tasks
        .iter()
        .filter_map(|t| Some((t.id.clone(), property(t, by)?)))
        .collect();
    if values.is_empty() {
        let mut metrics: Vec<&String> = ds
            .tasks
            .iter()
            .flat_map(|t| t.provenance.extra.iter())
            .filter(|(_, v)| v.is_number())
            .map(|(k, _)| k)
            .collect();
        metrics.sort();
        metrics.dedup();
        let extra = if metrics.is_empty() {
            String::new()
        } else {
            let names: Vec<&str> = metrics.iter().map(|s| s.as_str()).collect();
            format!("; this dataset's metrics: {}", names.join(", "))
        };
        bail!(
            "no task of {} has the property `{by}` (built in: {}, {}{extra})",
            ds.origin,
            BUILTIN.join(", "),
            crate::rigor::lookup::PROPERTIES.join(", ")
        );
    }
    Ok(values)
}
