//! `classlab analyze <DIR|FILE>`: every class in every `.py` file below a path, on all cores.
//! `--json` writes one JSON object per line: one per class, then `{"summary": …}`.

use std::io::Write;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::Serialize;

use super::{Context, Outcome, Output};
use crate::analysis::{ClassSummary, analyze_source};

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
    /// Files skipped: unreadable, not UTF-8, or with syntax errors.
    failed_files: Vec<Failed>,
}

#[derive(Serialize)]
struct Failed {
    file: String,
    reason: String,
}

enum FileResult {
    Classes(Vec<ClassSummary>),
    Failed(String),
}

fn python_files(root: &Path, exclude: &[String]) -> anyhow::Result<Vec<PathBuf>> {
    if !root.exists() {
        anyhow::bail!("{}: no such file or directory", root.display());
    }
    if root.is_file() {
        return Ok(vec![root.to_path_buf()]);
    }
    let mut files: Vec<PathBuf> = walkdir::WalkDir::new(root)
        .follow_links(false)
        .into_iter()
        .filter_entry(|e| {
            e.depth() == 0
                || !e.file_type().is_dir()
                || !exclude.iter().any(|x| e.file_name() == x.as_str())
        })
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file() && e.path().extension().is_some_and(|x| x == "py"))
        .map(walkdir::DirEntry::into_path)
        .collect();
    files.sort();
    Ok(files)
}

fn analyze_file(path: &Path) -> FileResult {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => return FileResult::Failed(format!("cannot read: {e}")),
    };
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            return FileResult::Failed(format!(
                "not UTF-8 (byte {})",
                e.utf8_error().valid_up_to()
            ));
        }
    };
    match analyze_source(&text) {
        Ok(classes) => FileResult::Classes(classes),
        Err(lines) => FileResult::Failed(format!(
            "syntax error at line {}",
            lines.first().copied().unwrap_or(1)
        )),
    }
}

pub(crate) fn run(
    ctx: &Context,
    root: &Path,
    jobs: Option<usize>,
    exclude: &[String],
) -> anyhow::Result<Outcome> {
    let files = python_files(root, exclude)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.unwrap_or(0))
        .build()?;
    let bar = super::progress::Progress::new(files.len(), "files");
    let results: Vec<FileResult> = pool.install(|| {
        files
            .par_iter()
            .map(|f| {
                let r = analyze_file(f);
                bar.inc();
                r
            })
            .collect()
    });
    drop(bar);
    let mut summary = Summary {
        files: files.len(),
        ..Summary::default()
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for (path, result) in files.iter().zip(&results) {
        let shown = path.display().to_string();
        match result {
            FileResult::Failed(reason) => summary.failed_files.push(Failed {
                file: shown,
                reason: reason.clone(),
            }),
            FileResult::Classes(classes) => {
                summary.parsed_files += 1;
                for c in classes {
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
                                "{shown}:{}  {}  {} methods  {} edges{}{}",
                                c.line,
                                c.class,
                                c.methods.len(),
                                c.edges.len(),
                                if edges.is_empty() { "" } else { ": " },
                                edges.join(", ")
                            )?;
                        }
                    }
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
                writeln!(out, "skipped {}: {}", f.file, f.reason)?;
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
