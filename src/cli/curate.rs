//! `classlab curate …`: the review decisions headless, through the same state machine and
//! gates as the TUI. Decisions are taken under the store's lock and are durable when the
//! command exits 0; a refused decision changes nothing for its task and makes the exit 1.

use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};
use clap::{Subcommand, ValueEnum};
use serde_json::{Value, json};

use super::table::Table;
use super::{Context, Outcome, Output, print_json};
use crate::analysis::lint::Finding;
use crate::curate::export::{ExportFormat, export};
use crate::curate::review::{Validation, blocking, gate_failure};
use crate::curate::rigor_gates::StoredRigor;
use crate::curate::targets::{self, Target};
use crate::curate::{
    Effect, Gate, ReviewAction, Stamp, Status, act, changelog, edited_task, stamp_now, store,
    task_gates,
};
use crate::dataset::Dataset;
use crate::model::{Task, TaskIndex};

#[derive(Debug, clap::Args)]
pub struct CurateArgs {
    /// The curation store (default: the dataset's store in classlab's data directory,
    /// `$XDG_DATA_HOME/classlab/curation/<file>-<digest>.curation.json`, or one an older
    /// classlab started beside the dataset; for the bundled sample, `sample.curation.json` in
    /// the sessions directory).
    #[arg(long, global = true, value_name = "PATH")]
    pub store: Option<PathBuf>,
    /// The rigor store whose findings (R1, R2) count in the findings gate (default: rigor.db
    /// in classlab's data directory, as `classlab rigor` writes it).
    #[arg(long, global = true, value_name = "PATH")]
    pub rigor_store: Option<PathBuf>,
    #[command(subcommand)]
    pub command: CurateCommand,
}

#[derive(Debug, Subcommand)]
pub enum CurateCommand {
    /// Tasks per review status; with --json also every task's review and gates.
    Status,
    /// Approve tasks. Refused while a gate fails (validation, public-tests, findings) unless
    /// the gate is overridden: `--override GATE --reason TEXT` (recorded).
    Approve {
        #[arg(required = true, value_name = "TASK_ID")]
        task_ids: Vec<String>,
        /// A comment on the approval; the reason of any override.
        #[arg(long, value_name = "TEXT")]
        reason: Option<String>,
        /// Let a failing gate pass (repeatable): validation, public-tests or findings.
        #[arg(long = "override", value_name = "GATE", value_parser = parse_gate)]
        overrides: Vec<Gate>,
    },
    /// Reject tasks (a reason is required).
    Reject {
        #[arg(required = true, value_name = "TASK_ID")]
        task_ids: Vec<String>,
        #[arg(long, value_name = "TEXT")]
        reason: Option<String>,
    },
    /// Mark tasks as needing work.
    NeedsWork {
        #[arg(required = true, value_name = "TASK_ID")]
        task_ids: Vec<String>,
        #[arg(long, value_name = "TEXT")]
        reason: Option<String>,
    },
    /// Add a note to a task.
    Note { task_id: String, text: String },
    /// Replace one field of a task with a file's text (`-` reads stdin): skeleton,
    /// solution_code, test, class_description, or methods.<name>.<docstring|
    /// method_description|test_code|solution_code|public_tests>. A docstring, test class or
    /// whole part is carried to every copy of it (skeleton and description; test class and
    /// test module), as the TUI's `e` does.
    Edit {
        task_id: String,
        field: String,
        file: PathBuf,
    },
    /// Print draft public tests for a method, to edit and set with `edit
    /// methods.<name>.public_tests`: from its docstring's doctests, or (`--promote`) made of
    /// chosen private tests of its test class.
    Draft {
        task_id: String,
        method: String,
        /// Private test methods to promote (repeatable); without it, the doctests.
        #[arg(long, value_name = "TEST")]
        promote: Vec<String>,
    },
    /// Write the approved tasks, with their edits, as a dataset.
    Export {
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
        #[arg(long, value_enum, default_value = "classlab")]
        format: FormatArg,
        /// Also write a Markdown summary of every change per task.
        #[arg(long, value_name = "FILE")]
        changelog: Option<PathBuf>,
    },
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum FormatArg {
    Classlab,
    Classeval,
}

fn parse_gate(s: &str) -> Result<Gate, String> {
    Gate::parse(s).ok_or_else(|| {
        let names: Vec<&str> = Gate::ALL.iter().map(|g| g.as_str()).collect();
        format!("unknown gate `{s}` (gates: {})", names.join(", "))
    })
}

pub(crate) fn run(ctx: &Context, args: &CurateArgs) -> anyhow::Result<Outcome> {
    let (dataset, problems) = ctx.dataset()?;
    let path = store::default_path(
        args.store.as_deref(),
        ctx.dataset_path.as_deref(),
        &crate::dataset::digest(&dataset),
        ctx.sessions.as_deref(),
    );
    let rigor_path = args
        .rigor_store
        .clone()
        .unwrap_or_else(crate::rigor::store::default_path);
    let rigor = StoredRigor::open(&rigor_path)?;
    let decide_all = |ids: &[String], plan: &dyn Fn(&Task) -> Vec<ReviewAction>| {
        decide_all(ctx, &dataset, &path, &rigor, ids, plan)
    };
    match &args.command {
        CurateCommand::Status => status(ctx, &dataset, &path, &rigor)?,
        CurateCommand::Approve {
            task_ids,
            reason,
            overrides,
        } => {
            let plan = |_: &Task| approve_plan(reason, overrides);
            decide_all(task_ids, &plan)?
        }
        CurateCommand::Reject { task_ids, reason } => {
            let reason = reason.clone().unwrap_or_default();
            let plan = |_: &Task| {
                vec![ReviewAction::Reject {
                    reason: reason.clone(),
                }]
            };
            decide_all(task_ids, &plan)?
        }
        CurateCommand::NeedsWork { task_ids, reason } => {
            let plan = |_: &Task| {
                vec![ReviewAction::NeedsWork {
                    reason: reason.clone(),
                }]
            };
            decide_all(task_ids, &plan)?
        }
        CurateCommand::Note { task_id, text } => {
            let plan = |_: &Task| vec![ReviewAction::Note { text: text.clone() }];
            decide_all(std::slice::from_ref(task_id), &plan)?
        }
        CurateCommand::Edit {
            task_id,
            field,
            file,
        } => edit(ctx, &dataset, &path, task_id, field, file)?,
        CurateCommand::Draft {
            task_id,
            method,
            promote,
        } => draft(&dataset, &path, task_id, method, promote)?,
        CurateCommand::Export {
            out,
            format,
            changelog,
        } => export_cmd(ctx, &dataset, &path, out, *format, changelog.as_deref())?,
    }
    Ok(Outcome { problems })
}

/// The actions of one `approve`: the overrides asked for, then the approval. Overrides of
/// gates that pass are dropped in [`decide_all`] (the machine would refuse them).
fn approve_plan(reason: &Option<String>, overrides: &[Gate]) -> Vec<ReviewAction> {
    let mut plan: Vec<ReviewAction> = overrides
        .iter()
        .map(|&gate| ReviewAction::Override {
            gate,
            reason: reason.clone().unwrap_or_default(),
        })
        .collect();
    plan.push(ReviewAction::Approve {
        comment: reason.clone(),
    });
    plan
}

fn find<'a>(dataset: &'a Dataset, ids: &[String]) -> anyhow::Result<Vec<&'a Task>> {
    let index = TaskIndex::of(&dataset.tasks);
    let missing: Vec<&str> = ids
        .iter()
        .filter(|id| !index.contains(id))
        .map(String::as_str)
        .collect();
    if !missing.is_empty() {
        bail!(
            "no such task(s) in {}: {}",
            dataset.origin,
            missing.join(", ")
        );
    }
    Ok(ids
        .iter()
        .filter_map(|id| index.get(&dataset.tasks, id))
        .collect())
}

/// Run each task's actions under the lock; a task whose actions are refused keeps its
/// previous record. Persist once, then report.
fn decide_all(
    ctx: &Context,
    dataset: &Dataset,
    path: &Path,
    rigor: &StoredRigor,
    ids: &[String],
    plan: &dyn Fn(&Task) -> Vec<ReviewAction>,
) -> anyhow::Result<()> {
    let tasks = find(dataset, ids)?;
    let stamp = stamp_now();
    let mut locked = store::lock(path)?;
    let mut rows = Vec::new();
    let mut refused = 0;
    let mut persist = false;
    for task in tasks {
        let before = locked.store.tasks.get(&task.id).cloned();
        let found = rigor.findings(&edited_task(&locked.store, task));
        match run_plan(&mut locked.store, task, plan(task), &stamp, &found) {
            Ok((effects, skipped)) => {
                persist |= effects.contains(&Effect::Persist);
                let status = locked.store.review(&task.id).status;
                rows.push(json!({"task_id": task.id, "ok": true, "status": status,
                                 "overrides_not_needed": skipped}));
            }
            Err(refusal) => {
                refused += 1;
                match before {
                    Some(record) => locked.store.tasks.insert(task.id.clone(), record),
                    None => locked.store.tasks.remove(&task.id),
                };
                rows.push(json!({"task_id": task.id, "ok": false, "refusal": refusal}));
            }
        }
    }
    if persist {
        locked
            .store
            .dataset
            .get_or_insert_with(|| dataset.origin.clone());
        locked.save()?;
    }
    drop(locked);
    report_decisions(ctx, &rows)?;
    if persist {
        say_where(path);
    }
    if refused > 0 {
        bail!("{refused} of {} decision(s) refused", rows.len());
    }
    Ok(())
}

/// Every command that writes the store says where (on stderr: stdout stays the answer).
fn say_where(path: &Path) {
    eprintln!(
        "classlab: recorded in the curation store {}",
        path.display()
    );
}

/// One task's actions in order; overrides of gates that already pass are skipped (returned).
fn run_plan(
    store: &mut store::CurationStore,
    task: &Task,
    plan: Vec<ReviewAction>,
    stamp: &Stamp,
    rigor: &[Finding],
) -> Result<(Vec<Effect>, Vec<String>), String> {
    let mut effects = Vec::new();
    let mut skipped = Vec::new();
    for action in plan {
        if let ReviewAction::Override { gate, .. } = &action
            && gate_failure(*gate, &task_gates(store, task, rigor)).is_none()
        {
            skipped.push(gate.to_string());
            continue;
        }
        effects.extend(act(store, task, action, stamp, rigor).map_err(|r| r.to_string())?);
    }
    Ok((effects, skipped))
}

fn report_decisions(ctx: &Context, rows: &[Value]) -> anyhow::Result<()> {
    if ctx.output == Output::Json {
        return print_json(&rows);
    }
    for row in rows {
        let id = row["task_id"].as_str().unwrap_or("?");
        match row["refusal"].as_str() {
            Some(refusal) => eprintln!("classlab: {id}: {refusal}"),
            None => {
                println!("{id}: {}", row["status"].as_str().unwrap_or("?"));
                for gate in row["overrides_not_needed"].as_array().into_iter().flatten() {
                    let gate = gate.as_str().unwrap_or("?");
                    eprintln!("classlab: {id}: gate {gate} passes; no override recorded");
                }
            }
        }
    }
    Ok(())
}

/// `curate draft`: the draft on stdout, from the task as edited in the store.
fn draft(
    dataset: &Dataset,
    path: &Path,
    task_id: &str,
    method: &str,
    promote: &[String],
) -> anyhow::Result<()> {
    let original = find(dataset, &[task_id.to_string()])?[0];
    let task = edited_task(&store::load(path)?, original);
    if task.method(method).is_none() {
        bail!(
            "{task_id} has no method `{method}` (it has {})",
            task.method_names().join(", ")
        );
    }
    let text = if promote.is_empty() {
        targets::draft_from_doctests(&task, method).ok_or_else(|| {
            anyhow::anyhow!(
                "{task_id}: `{method}` has no doctest to draft public tests from; \
                 promote private tests instead (--promote, one of: {})",
                targets::private_tests(&task, method).join(", ")
            )
        })?
    } else {
        targets::promote(&task, method, promote).map_err(|e| anyhow::anyhow!("{task_id}: {e}"))?
    };
    print!("{text}");
    if !text.ends_with('\n') {
        println!();
    }
    Ok(())
}

fn edit(
    ctx: &Context,
    dataset: &Dataset,
    path: &Path,
    task_id: &str,
    field: &str,
    file: &Path,
) -> anyhow::Result<()> {
    let task = find(dataset, &[task_id.to_string()])?[0];
    let text = if file == Path::new("-") {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .context("stdin")?;
        text
    } else {
        std::fs::read_to_string(file).with_context(|| file.display().to_string())?
    };
    let mut locked = store::lock(path)?;
    let mut edits = locked.store.review(task_id).edits;
    match Target::from_field(field) {
        Some(target) => {
            edits = targets::set(task, &edits, &target, text).map_err(anyhow::Error::msg)?;
        }
        None => edits.set(task, field, text).map_err(anyhow::Error::msg)?,
    }
    let effects = act(
        &mut locked.store,
        task,
        ReviewAction::Edit { edits },
        &stamp_now(),
        &[], // an edit passes no gate
    )
    .map_err(|r| anyhow::anyhow!("{task_id}: {r}"))?;
    locked
        .store
        .dataset
        .get_or_insert_with(|| dataset.origin.clone());
    locked.save()?;
    drop(locked);
    say_where(path);
    let row = json!({"task_id": task_id, "field": field, "revalidate": effects.contains(&Effect::Revalidate)});
    match ctx.output {
        Output::Json => print_json(&row)?,
        Output::Human => println!("{task_id}: {field} edited"),
    }
    if effects.contains(&Effect::Revalidate) {
        eprintln!(
            "classlab: {task_id}: changed; check it again with `classlab lint` and `classlab validate --tasks {task_id}`"
        );
    }
    Ok(())
}

fn validation_label(v: &Validation) -> String {
    match v {
        Validation::Passed => "passed".into(),
        Validation::Failed(why) => format!("failed: {why}"),
        Validation::Stale => "stale".into(),
        Validation::Unknown => "unknown".into(),
    }
}

fn status(
    ctx: &Context,
    dataset: &Dataset,
    path: &Path,
    rigor: &StoredRigor,
) -> anyhow::Result<()> {
    let store = store::load(path)?;
    let status_of = |t: &Task| store.review(&t.id).status;
    let counts: Vec<(Status, usize)> = Status::ALL
        .into_iter()
        .map(|s| {
            (
                s,
                dataset.tasks.iter().filter(|t| status_of(t) == s).count(),
            )
        })
        .collect();
    let index = TaskIndex::of(&dataset.tasks);
    let unknown: Vec<&String> = store
        .tasks
        .keys()
        .filter(|id| !index.contains(id))
        .collect();
    if ctx.output == Output::Json {
        let tasks: Vec<Value> = dataset
            .tasks
            .iter()
            .map(|t| {
                let review = store.review(&t.id);
                let gates = task_gates(&store, t, &rigor.findings(&edited_task(&store, t)));
                let blocking: Vec<String> = blocking(&review, &gates)
                    .iter()
                    .map(ToString::to_string)
                    .collect();
                let edited: Vec<String> =
                    review.edits.fields().into_iter().map(|(p, _)| p).collect();
                json!({
                    "task_id": t.id, "status": review.status, "reason": review.reason,
                    "notes": review.notes, "edited": edited, "overrides": review.overrides,
                    "gates": {
                        "validation": validation_label(&gates.validation),
                        "methods_without_public_tests": gates.methods_without_public_tests,
                        "error_findings": gates.error_findings,
                        "blocking": blocking,
                    },
                    "history": review.history.len(),
                })
            })
            .collect();
        let counts: serde_json::Map<String, Value> = counts
            .iter()
            .map(|(s, n)| (s.to_string(), json!(n)))
            .collect();
        return print_json(&json!({
            "store": path.display().to_string(), "dataset": dataset.origin,
            "counts": counts, "tasks": tasks, "unknown_tasks": unknown,
        }));
    }
    let mut table = Table::new(&["status", "tasks"]).right(&[1]);
    for (s, n) in &counts {
        table.row(vec![s.to_string(), n.to_string()]);
    }
    print!("{}", table.render());
    let mut reviewed = Table::new(&["task", "status", "edited", "notes", "reason"]).right(&[2, 3]);
    let mut any = false;
    for t in &dataset.tasks {
        let review = store.review(&t.id);
        if review.history.is_empty() {
            continue;
        }
        any = true;
        reviewed.row(vec![
            t.id.clone(),
            review.status.to_string(),
            review.edits.fields().len().to_string(),
            review.notes.len().to_string(),
            review.reason.unwrap_or_default(),
        ]);
    }
    if any {
        println!("\n{}", reviewed.render().trim_end());
    }
    println!("store: {}", path.display());
    if !unknown.is_empty() {
        let ids: Vec<&str> = unknown.iter().map(|s| s.as_str()).collect();
        eprintln!(
            "classlab: warning: the store has decisions about tasks not in {}: {}",
            dataset.origin,
            ids.join(", ")
        );
    }
    Ok(())
}

fn export_cmd(
    ctx: &Context,
    dataset: &Dataset,
    path: &Path,
    out: &Path,
    format: FormatArg,
    changelog_path: Option<&Path>,
) -> anyhow::Result<()> {
    let store = store::load(path)?;
    let format = match format {
        FormatArg::Classlab => ExportFormat::Classlab,
        FormatArg::Classeval => ExportFormat::ClassEval,
    };
    let now = crate::session::store::now_rfc3339();
    let exported = export(dataset, &store, format, &now);
    let mut bytes = serde_json::to_vec_pretty(&exported.value)?;
    bytes.push(b'\n');
    crate::session::store::write_atomic(out, &bytes)?;
    if let Some(log_path) = changelog_path {
        let text = changelog::changelog(dataset, &store, &exported, &now);
        crate::session::store::write_atomic(log_path, text.as_bytes())?;
    }
    for w in &exported.warnings {
        eprintln!("classlab: warning: {w}");
    }
    for (id, why) in &exported.skipped {
        eprintln!("classlab: warning: {id}: approved but not exported: {why}");
    }
    let ids: Vec<&str> = exported
        .tasks
        .iter()
        .map(|t| t.edited.id.as_str())
        .collect();
    match ctx.output {
        Output::Json => print_json(&json!({
            "out": out.display().to_string(), "tasks": ids,
            "skipped": exported.skipped, "warnings": exported.warnings,
            "changelog": changelog_path.map(|p| p.display().to_string()),
        }))?,
        Output::Human => {
            println!(
                "{} approved task(s) written to {}",
                ids.len(),
                out.display()
            );
            if let Some(p) = changelog_path {
                println!("changelog: {}", p.display());
            }
        }
    }
    if ids.is_empty() {
        eprintln!("classlab: warning: no approved tasks in {}", path.display());
    }
    Ok(())
}
