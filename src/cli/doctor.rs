//! `classlab doctor`: the interpreter, which task packages are missing, the isolation in force.

use std::process::{Command, Stdio};

use serde_json::json;

use super::eval::python_choice;
use super::{Context, Outcome, Output, print_json};
use crate::exec::Sandbox;

/// (pip name, import name) of every package in `assets/requirements-tasks.txt`.
const TASK_MODULES: &[(&str, &str)] = &[
    ("numpy", "numpy"),
    ("pandas", "pandas"),
    ("openpyxl", "openpyxl"),
    ("python-docx", "docx"),
    ("beautifulsoup4", "bs4"),
    ("lxml", "lxml"),
    ("pillow", "PIL"),
    ("nltk", "nltk"),
    ("reportlab", "reportlab"),
    ("PyPDF2", "PyPDF2"),
    ("gensim", "gensim"),
    ("scipy", "scipy"),
    ("pytest", "pytest"),
    ("coverage", "coverage"),
];

/// Which task modules the interpreter can import (trusted code: a fixed probe, no task code).
fn missing_modules(python: &std::path::Path) -> anyhow::Result<Vec<&'static str>> {
    let names: Vec<&str> = TASK_MODULES.iter().map(|(_, m)| *m).collect();
    let probe = format!(
        "import importlib.util, json\nprint(json.dumps([m for m in {names:?} if importlib.util.find_spec(m) is None]))"
    );
    let out = Command::new(python)
        .args(["-I", "-c", &probe])
        .stdin(Stdio::null())
        .output()?;
    let missing: Vec<String> = serde_json::from_slice(&out.stdout)?;
    Ok(TASK_MODULES
        .iter()
        .filter(|(_, m)| missing.iter().any(|x| x == m))
        .map(|(pip, _)| *pip)
        .collect())
}

pub(crate) fn run(ctx: &Context) -> anyhow::Result<Outcome> {
    let sandbox = Sandbox::detect(python_choice(ctx.python.as_deref()))?;
    let report = sandbox.isolation();
    let missing = missing_modules(&report.python.executable)?;
    match ctx.output {
        Output::Json => print_json(&json!({
            "isolation": report,
            "complete": report.complete(),
            "missing_task_packages": missing,
        }))?,
        Output::Human => {
            print!("{report}");
            if missing.is_empty() {
                println!("task packages     all installed");
            } else {
                println!(
                    "task packages     MISSING: {} (pip install -r assets/requirements-tasks.txt)",
                    missing.join(", ")
                );
            }
        }
    }
    Ok(Outcome {
        problems: missing.len() + report.warnings.len(),
    })
}
