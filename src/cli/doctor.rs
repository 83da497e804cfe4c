//! `classlab doctor`: the interpreter a dataset gets and where it came from, which modules the
//! dataset's tasks import that it lacks, the tools classlab itself runs in it, the isolation in
//! force.

use std::path::Path;

use serde_json::json;

use super::eval::{python_choice, python_for};
use super::{Context, Outcome, Output, print_json};
use crate::exec::{DEFAULT_HARNESS, Sandbox};
use crate::pipeline::envcheck::{self, ProjectEnv};

/// Modules classlab itself runs in the interpreter (pytest layouts, validation's coverage),
/// whatever the dataset imports: (pip name, import name).
const TOOL_MODULES: &[(&str, &str)] = &[("pytest", "pytest"), ("coverage", "coverage")];

/// Where the interpreter came from, for the report.
fn python_source(ctx: &Context, env: ProjectEnv) -> String {
    if ctx.python.is_some() {
        "--python".into()
    } else if python_choice(None).is_some() {
        "the config's `python`".into()
    } else if env.python().is_some() {
        format!("the project's environment {}", env.rel_dir().display())
    } else {
        format!(
            "python3 on PATH ({} is not provisioned: `{}`)",
            env.rel_dir().display(),
            env.setup_command()
        )
    }
}

pub(crate) fn run(ctx: &Context) -> anyhow::Result<Outcome> {
    let env = ProjectEnv::for_dataset(ctx.dataset_path.as_deref());
    let sandbox = Sandbox::detect(python_for(
        ctx.python.as_deref(),
        ctx.dataset_path.as_deref(),
    ))?;
    let report = sandbox.isolation();
    let python: &Path = &report.python.executable;
    let (dataset, mut problems) = ctx.dataset()?;
    let missing = envcheck::dataset_missing(python, &dataset.tasks)
        .map_err(|e| anyhow::anyhow!("cannot ask the interpreter about modules: {e}"))?;
    let tools = envcheck::missing_modules(python, TOOL_MODULES.iter().map(|(_, m)| *m))
        .map_err(|e| anyhow::anyhow!("cannot ask the interpreter about modules: {e}"))?;
    let missing_tools: Vec<&str> = TOOL_MODULES
        .iter()
        .filter(|(_, m)| tools.contains(*m))
        .map(|(pip, _)| *pip)
        .collect();
    let imported = dataset
        .tasks
        .iter()
        .flat_map(|t| envcheck::context_in(t, None).task_modules)
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    let source = python_source(ctx, env);
    let in_project_env =
        ctx.python.is_none() && python_choice(None).is_none() && env.python().is_some();
    let fix = if in_project_env {
        format!(
            "{} is provisioned: what it lacks is not in assets/requirements-{}.txt (add it \
             there and run `{}`), or --python an interpreter that has it",
            env.rel_dir().display(),
            env.name(),
            env.setup_command()
        )
    } else {
        format!(
            "`{}` (then classlab uses {} for this dataset), or --python an interpreter that \
             has them",
            env.setup_command(),
            env.rel_dir().display()
        )
    };
    match ctx.output {
        Output::Json => print_json(&json!({
            "isolation": report,
            "complete": report.complete(),
            "dataset": dataset.origin,
            "python_source": source,
            "project_env": env.name(),
            "missing_modules": missing,
            "missing_tools": missing_tools,
            // Everything missing, by name (the key earlier versions printed).
            "missing_task_packages": missing.keys().map(String::as_str).chain(missing_tools.iter().copied()).collect::<Vec<_>>(),
            "fix": (!missing.is_empty() || !missing_tools.is_empty()).then_some(&fix),
            "harness": {
                "default": DEFAULT_HARNESS,
                "split_available": report.split_available(),
                "default_caveat": DEFAULT_HARNESS.caveat(),
            },
        }))?,
        Output::Human => {
            print!("{report}");
            println!(
                "harness           {DEFAULT_HARNESS} by default (--harness split|inproc); split {}",
                if report.split_available() {
                    "available (runner and host apart)"
                } else {
                    "UNAVAILABLE (needs PID and mount namespaces with a /proc of their own)"
                }
            );
            if let Some(caveat) = DEFAULT_HARNESS.caveat() {
                println!("verdicts          {caveat}");
            }
            println!("interpreter from  {source}");
            if missing.is_empty() {
                println!(
                    "dataset imports   all {imported} modules importable ({} tasks of {})",
                    dataset.tasks.len(),
                    dataset.name
                );
            } else {
                let tasks: std::collections::BTreeSet<&String> =
                    missing.values().flatten().collect();
                println!(
                    "dataset imports   MISSING {} of {imported} modules, needed by {} of {} tasks: {}",
                    missing.len(),
                    tasks.len(),
                    dataset.tasks.len(),
                    envcheck::describe_missing(&missing, 3)
                );
            }
            if missing_tools.is_empty() {
                println!("tools             pytest, coverage importable");
            } else {
                println!("tools             MISSING: {}", missing_tools.join(", "));
            }
            if !missing.is_empty() || !missing_tools.is_empty() {
                println!("fix               {fix}");
            }
        }
    }
    problems += missing.len() + missing_tools.len() + report.warnings.len();
    Ok(Outcome { problems })
}
