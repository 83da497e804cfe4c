//! `classlab analyze <DIR|FILE>`: every class in every `.py` file below a path, on all cores.
//! `--json` writes one JSON object per line: one per class, then `{"summary": …}`.
//!
//! It runs the corpus pipeline in memory (`corpus::walk` and `corpus::extract`, what `corpus
//! build` stores), so the two never disagree on a class, its methods or its graph, and go at
//! one speed.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::Path;

use rayon::prelude::*;
use serde::Serialize;

use super::{Context, Outcome, Output};
use crate::analysis::ClassSummary;
use crate::corpus::extract::{FileResult, analyse_file};
use crate::corpus::walk::{Walk, discover};
use crate::text::Escaped;

/// Files larger than this are skipped (as `corpus build` does by default).
const MAX_FILE_SIZE: u64 = 2 * 1024 * 1024;

#[derive(Serialize)]
struct ClassLine<'a> {
    file: &'a str,
    #[serde(flatten)]
    class: &'a ClassSummary,
}

#[derive(Serialize, Default)]
struct Summary {
    files: usize,
    parsed_files: usize,
    classes: usize,
    methods: usize,
    edges: usize,
    /// Files skipped (unreadable, undecodable, binary, oversize, a special file) or with syntax
    /// errors (their error-free classes are still listed).
    failed_files: Vec<Failed>,
}

#[derive(Serialize)]
struct Failed {
    file: String,
    reason: String,
}

/// What is printed of one file: its classes, and why it failed if it did.
struct FileSummary {
    classes: Vec<ClassSummary>,
    failed: Option<String>,
}

fn summarise(r: FileResult) -> FileSummary {
    let failed = match r.reason {
        Some(reason) if r.detail.is_empty() => Some(reason.to_string()),
        Some(reason) => Some(format!("{reason}: {}", r.detail)),
        None if r.syntax_errors => {
            Some(format!("{} (its error-free classes are listed)", r.detail))
        }
        None => None,
    };
    let classes = r
        .classes
        .into_iter()
        .map(|c| ClassSummary {
            class: c.qualname,
            line: c.line,
            methods: c.metrics.methods,
            edges: c.edges,
            skeleton_lines: c.skeleton.lines().count(),
        })
        .collect();
    FileSummary { classes, failed }
}

pub(crate) fn run(
    ctx: &Context,
    root: &Path,
    jobs: Option<usize>,
    exclude: &[String],
) -> anyhow::Result<Outcome> {
    if !root.exists() {
        anyhow::bail!(
            "{}: no such file or directory",
            Escaped(&root.display().to_string())
        );
    }
    let walk = Walk {
        exclude: exclude.to_vec(),
        ..Walk::default()
    };
    let discovery = discover(&[root.to_path_buf()], &walk)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.unwrap_or(0))
        // Deeply nested input recurses in the parsers' consumers; give them room.
        .stack_size(16 * 1024 * 1024)
        .build()?;
    let files = &discovery.files;
    let bar = super::progress::Progress::new(files.len(), "files");
    let empty = BTreeSet::new();
    let results: Vec<FileSummary> = pool.install(|| {
        files
            .par_iter()
            .map(|f| {
                let project = discovery.top_names.get(&f.repo).unwrap_or(&empty);
                let r = summarise(analyse_file(f.clone(), MAX_FILE_SIZE, project));
                bar.inc();
                r
            })
            .collect()
    });
    drop(bar);
    let mut summary = Summary {
        files: files.len() + discovery.issues.len(),
        ..Summary::default()
    };
    for issue in &discovery.issues {
        summary.failed_files.push(Failed {
            file: root.join(&issue.path).display().to_string(),
            reason: format!("{}: {}", issue.reason, issue.detail),
        });
    }
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for (f, result) in files.iter().zip(&results) {
        let shown = f.abs.display().to_string();
        match &result.failed {
            Some(reason) => summary.failed_files.push(Failed {
                file: shown.clone(),
                reason: reason.clone(),
            }),
            None => summary.parsed_files += 1,
        }
        for c in &result.classes {
            summary.classes += 1;
            summary.methods += c.methods.len();
            summary.edges += c.edges.len();
            match ctx.output {
                Output::Json => {
                    serde_json::to_writer(
                        &mut out,
                        &ClassLine {
                            file: &shown,
                            class: c,
                        },
                    )?;
                    writeln!(out)?;
                }
                Output::Human => {
                    let edges: Vec<String> =
                        c.edges.iter().map(|[a, b]| format!("{a}->{b}")).collect();
                    writeln!(
                        out,
                        "{}:{}  {}  {} methods  {} edges{}{}",
                        Escaped(&shown),
                        c.line,
                        Escaped(&c.class),
                        c.methods.len(),
                        c.edges.len(),
                        if edges.is_empty() { "" } else { ": " },
                        Escaped(&edges.join(", "))
                    )?;
                }
            }
        }
    }
    match ctx.output {
        Output::Json => {
            serde_json::to_writer(&mut out, &serde_json::json!({ "summary": summary }))?;
            writeln!(out)?;
        }
        Output::Human => {
            for f in &summary.failed_files {
                writeln!(out, "skipped {}: {}", Escaped(&f.file), Escaped(&f.reason))?;
            }
            writeln!(
                out,
                "{} files ({} parsed, {} skipped), {} classes, {} methods, {} dependency edges",
                summary.files,
                summary.parsed_files,
                summary.failed_files.len(),
                summary.classes,
                summary.methods,
                summary.edges
            )?;
        }
    }
    out.flush()?;
    // Skipped files are reported, not failures of the command.
    Ok(Outcome::clean())
}
