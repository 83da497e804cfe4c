//! `corpus export`: a selection as a RealClassEval-style folder (`classes_full_docstr.csv`
//! with the same columns, which `--dataset DIR` opens) or as a classlab dataset (JSON), so a
//! selection flows into generation and curation. Each class is exported as its executable
//! closure (`closure.rs`): the module it needs to run as it ran in its repository.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Context as _;
use serde::Serialize;
use serde_json::json;

use super::closure::{BLOCKER_ENCLOSING, BLOCKER_UNPARSED, ClassModule, module_for};

/// The reasons a class has no module of its own.
const STANDALONE_BLOCKERS: &[&str] = &[BLOCKER_UNPARSED, BLOCKER_ENCLOSING];
use super::filter::Filter;
use super::query::{ClassLine, ClassText, Sort, Store, number};
use crate::analysis::metrics::METRIC_NAMES;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    /// `DIR/classes_full_docstr.csv`, RealClassEval's columns.
    Realclasseval,
    /// `DIR/dataset.json`, a classlab dataset.
    Classlab,
}

/// What an export wrote.
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
pub struct ExportSummary {
    pub classes: u64,
    /// Classes whose module runs on the standard library alone.
    pub self_contained: u64,
    /// Why the others do not, by reason key (`third-party: numpy`, …): a class counts once
    /// under each of its reasons.
    pub not_self_contained: BTreeMap<String, u64>,
    /// Selected classes not written because no module of their own can hold them (their module
    /// does not parse, or they assign variables of a function around them), by reason.
    pub left_out: BTreeMap<String, u64>,
}

/// Write the filtered classes into `out`, which must be empty or absent unless `force`.
pub fn export(
    store: &Store,
    filter: &Filter,
    limit: Option<u64>,
    out: &Path,
    format: ExportFormat,
    force: bool,
) -> anyhow::Result<ExportSummary> {
    if let Some(why) = store.unfinished()? {
        anyhow::bail!("{why}; not exporting from an unfinished store");
    }
    check_out_dir(out, force)?;
    std::fs::create_dir_all(out).with_context(|| format!("{}: cannot create", out.display()))?;
    match format {
        ExportFormat::Realclasseval => to_csv(store, filter, limit, out),
        ExportFormat::Classlab => to_dataset(store, filter, limit, out),
    }
}

/// An export never replaces files by surprise: the directory must be absent or empty.
fn check_out_dir(out: &Path, force: bool) -> anyhow::Result<()> {
    if out.exists() && !out.is_dir() {
        anyhow::bail!("{}: exists and is not a directory", out.display());
    }
    let entries: Vec<String> = match std::fs::read_dir(out) {
        Ok(dir) => dir
            .filter_map(Result::ok)
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .take(3)
            .collect(),
        Err(_) => return Ok(()),
    };
    if !entries.is_empty() && !force {
        anyhow::bail!(
            "{}: not empty (holds {}{}); export into a new directory, or pass --force to \
             overwrite what the export writes there",
            out.display(),
            entries
                .iter()
                .map(|e| crate::text::escape_control(e).into_owned())
                .collect::<Vec<_>>()
                .join(", "),
            if entries.len() == 3 { ", …" } else { "" }
        );
    }
    Ok(())
}

/// The class part of a stored skeleton (which starts with its module's imports), dedented as
/// the class's code is.
fn class_skeleton(skeleton: &str) -> String {
    let lines: Vec<&str> = skeleton.lines().collect();
    let Some(start) = lines.iter().position(|l| {
        l.trim_start().starts_with("class ") || l.trim_start().starts_with("class\t")
    }) else {
        return skeleton.to_string();
    };
    let indent = &lines[start][..lines[start].len() - lines[start].trim_start().len()];
    lines[start..]
        .iter()
        .map(|l| l.strip_prefix(indent).unwrap_or(l))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `pkg/sub/mod.py` under a repository directory → `sub.mod`-style dotted module path (the
/// first component, the repository, dropped), as RealClassEval names classes.
fn module_of(path: &str) -> String {
    let trimmed = path.strip_suffix(".py").unwrap_or(path);
    let parts: Vec<&str> = trimmed.split('/').collect();
    let parts = if parts.len() > 1 {
        &parts[1..]
    } else {
        &parts[..]
    };
    parts.join(".")
}

/// Each selected class with its text and module, counted into `summary`.
fn for_each_class(
    store: &Store,
    filter: &Filter,
    limit: Option<u64>,
    summary: &mut ExportSummary,
    mut each: impl FnMut(&ClassLine, ClassText, &ClassModule) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    store.for_each_line(filter, &Sort::default(), 0, limit, |line| {
        let Some(text) = store.text(line.id)? else {
            return Ok(());
        };
        let module = module_for(store, line.id)?;
        if !module.standalone {
            for b in line
                .blockers
                .iter()
                .filter(|b| STANDALONE_BLOCKERS.contains(&b.as_str()))
            {
                *summary.left_out.entry(b.clone()).or_default() += 1;
            }
            return Ok(());
        }
        summary.classes += 1;
        if module.self_contained() {
            summary.self_contained += 1;
        }
        for b in &line.blockers {
            *summary.not_self_contained.entry(b.clone()).or_default() += 1;
        }
        each(&line, text, &module)
    })
}

fn to_csv(
    store: &Store,
    filter: &Filter,
    limit: Option<u64>,
    out: &Path,
) -> anyhow::Result<ExportSummary> {
    let path = out.join("classes_full_docstr.csv");
    let mut w = csv::Writer::from_path(&path)
        .with_context(|| format!("{}: cannot write", path.display()))?;
    let mut header = vec![
        "id",
        "repository_name",
        "file_path",
        "class_name",
        "human_written_code",
        "class_skeleton",
        "total_program_units",
        "total_doc_str",
    ];
    header.extend(METRIC_NAMES);
    header.push("snippet_id");
    w.write_record(&header)?;
    let mut summary = ExportSummary::default();
    let mut n = 0u64;
    for_each_class(store, filter, limit, &mut summary, |line, text, module| {
        n += 1;
        let mut row = vec![
            line.id.to_string(),
            line.repo.clone(),
            line.path.clone(),
            format!("{}.{}", module_of(&line.path), line.qualname),
            module.source.clone(),
            module.with_class(&class_skeleton(&text.skeleton)),
            line.total_program_units.to_string(),
            line.total_doc_str.to_string(),
        ];
        for m in METRIC_NAMES {
            row.push(
                line.metrics
                    .get(m)
                    .map_or(String::new(), |v| format!("{v}")),
            );
        }
        row.push(format!("snippet_{n}"));
        w.write_record(&row)?;
        Ok(())
    })?;
    w.flush()?;
    Ok(summary)
}

fn to_dataset(
    store: &Store,
    filter: &Filter,
    limit: Option<u64>,
    out: &Path,
) -> anyhow::Result<ExportSummary> {
    let mut tasks = Vec::new();
    let mut summary = ExportSummary::default();
    let dated = super::dates::has_dates(store.connection())?;
    for_each_class(store, filter, limit, &mut summary, |line, text, module| {
        let mut task = task_of(line, &text, module);
        // `corpus dates`' provenance: when the class's line was first committed.
        if dated && let Some(seen) = super::dates::lookup(store.connection(), line.id)? {
            task["provenance"]["first_seen"] = json!(seen.date);
            task["provenance"]["first_seen_commit"] = json!(seen.commit);
        }
        tasks.push(task);
        Ok(())
    })?;
    let n = tasks.len();
    let doc = json!({
        "format": crate::dataset::FORMAT_TAG,
        "version": crate::dataset::FORMAT_VERSION,
        "name": format!("corpus selection ({n} classes)"),
        "description": "exported by classlab corpus export",
        "tasks": tasks,
    });
    let path = out.join("dataset.json");
    let body = serde_json::to_string_pretty(&doc)?;
    std::fs::write(&path, body).with_context(|| format!("{}: cannot write", path.display()))?;
    Ok(summary)
}

fn task_of(line: &ClassLine, text: &ClassText, module: &ClassModule) -> serde_json::Value {
    let edges: Vec<(String, String)> = line
        .edges
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|e| Some((e.get(0)?.as_str()?.into(), e.get(1)?.as_str()?.into())))
                .collect()
        })
        .unwrap_or_default();
    let methods: Vec<serde_json::Value> = line
        .methods
        .iter()
        .filter(|m| *m != "__init__")
        .map(|m| {
            let deps: Vec<&String> = edges
                .iter()
                .filter(|(a, _)| a == m)
                .map(|(_, b)| b)
                .collect();
            json!({
                "method_name": m,
                "method_description": "",
                "test_class": "",
                "test_code": "",
                "solution_code": "",
                "dependencies": {"Standalone": deps.is_empty(), "lib_dependencies": [],
                                 "field_dependencies": [], "method_dependencies": deps},
            })
        })
        .collect();
    let metrics: serde_json::Map<String, serde_json::Value> = line
        .metrics
        .iter()
        .map(|(k, v)| {
            (
                k.clone(),
                v.as_f64().map_or(serde_json::Value::Null, number),
            )
        })
        .collect();
    json!({
        "task_id": format!("corpus_{}", line.id),
        "class_name": line.class,
        "class_description": text.docstring.clone().unwrap_or_default(),
        "class_constructor": "",
        "import_statement": module.imports,
        "fields": [],
        "skeleton": module.with_class(&class_skeleton(&text.skeleton)),
        "solution_code": module.source,
        "test": "",
        "test_classes": [],
        "methods_info": methods,
        "provenance": {"source": "classlab corpus", "original_id": line.id.to_string(),
                       "repo": line.repo, "path": line.path, "qualname": line.qualname,
                       "self_contained": module.self_contained(),
                       "not_self_contained_because": module.reasons,
                       "metrics": metrics},
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modules_and_skeletons() {
        assert_eq!(module_of("repo/pkg/mod.py"), "pkg.mod");
        assert_eq!(module_of("mod.py"), "mod");
        assert_eq!(
            class_skeleton(
                "import os\nfrom a import b\n\nclass A:\n    def f(self):\n        pass"
            ),
            "class A:\n    def f(self):\n        pass"
        );
        assert_eq!(
            class_skeleton("    class Inner(B):\n        x: int"),
            "class Inner(B):\n    x: int"
        );
    }
}
