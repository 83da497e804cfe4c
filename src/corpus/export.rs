//! `corpus export`: a selection as a RealClassEval-style folder (`classes_full_docstr.csv`
//! with the same columns, which `--dataset DIR` opens) or as a classlab dataset (JSON), so a
//! selection flows into generation and curation.

use std::path::Path;

use anyhow::Context as _;
use serde_json::json;

use super::filter::Filter;
use super::query::{ClassLine, Sort, Store, number};
use crate::analysis::metrics::METRIC_NAMES;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    /// `DIR/classes_full_docstr.csv`, RealClassEval's columns.
    Realclasseval,
    /// `DIR/dataset.json`, a classlab dataset.
    Classlab,
}

/// Write the filtered classes; returns how many.
pub fn export(
    store: &Store,
    filter: &Filter,
    limit: Option<u64>,
    out: &Path,
    format: ExportFormat,
) -> anyhow::Result<u64> {
    std::fs::create_dir_all(out).with_context(|| format!("{}: cannot create", out.display()))?;
    match format {
        ExportFormat::Realclasseval => to_csv(store, filter, limit, out),
        ExportFormat::Classlab => to_dataset(store, filter, limit, out),
    }
}

/// Module-level imports at the head of a skeleton (the lines before the first blank one).
fn import_lines(skeleton: &str) -> Vec<String> {
    let head: Vec<&str> = skeleton
        .split("\n\n")
        .next()
        .unwrap_or("")
        .lines()
        .collect();
    if !head.is_empty()
        && head
            .iter()
            .all(|l| l.starts_with("import ") || l.starts_with("from "))
    {
        head.into_iter().map(String::from).collect()
    } else {
        Vec::new()
    }
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

fn to_csv(store: &Store, filter: &Filter, limit: Option<u64>, out: &Path) -> anyhow::Result<u64> {
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
    let mut n = 0u64;
    store.for_each_line(filter, &Sort::default(), 0, limit, |line| {
        let text = store
            .text(line.id)?
            .unwrap_or_else(|| super::query::ClassText {
                code: String::new(),
                skeleton: String::new(),
                docstring: None,
            });
        let imports = import_lines(&text.skeleton);
        let code = if imports.is_empty() {
            text.code.clone()
        } else {
            format!("{}\n\n{}", imports.join("\n"), text.code)
        };
        n += 1;
        let mut row = vec![
            line.id.to_string(),
            line.repo.clone(),
            line.path.clone(),
            format!("{}.{}", module_of(&line.path), line.qualname),
            code,
            text.skeleton,
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
    Ok(n)
}

fn to_dataset(
    store: &Store,
    filter: &Filter,
    limit: Option<u64>,
    out: &Path,
) -> anyhow::Result<u64> {
    let mut tasks = Vec::new();
    store.for_each_line(filter, &Sort::default(), 0, limit, |line| {
        let Some(text) = store.text(line.id)? else {
            return Ok(());
        };
        tasks.push(task_of(&line, &text));
        Ok(())
    })?;
    let n = tasks.len() as u64;
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
    Ok(n)
}

fn task_of(line: &ClassLine, text: &super::query::ClassText) -> serde_json::Value {
    let imports = import_lines(&text.skeleton);
    let solution = if imports.is_empty() {
        text.code.clone()
    } else {
        format!("{}\n\n{}", imports.join("\n"), text.code)
    };
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
        "import_statement": imports,
        "fields": [],
        "skeleton": text.skeleton,
        "solution_code": solution,
        "test": "",
        "test_classes": [],
        "methods_info": methods,
        "provenance": {"source": "classlab corpus", "original_id": line.id.to_string(),
                       "repo": line.repo, "path": line.path, "qualname": line.qualname,
                       "metrics": metrics},
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modules_and_imports() {
        assert_eq!(module_of("repo/pkg/mod.py"), "pkg.mod");
        assert_eq!(module_of("mod.py"), "mod");
        assert_eq!(
            import_lines("import os\nfrom a import b\n\nclass A:\n    pass"),
            ["import os", "from a import b"]
        );
        assert!(import_lines("class A:\n    pass\n\n").is_empty());
    }
}
