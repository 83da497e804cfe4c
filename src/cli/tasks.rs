//! `classlab tasks`: one row per task.

use serde::Serialize;

use super::table::Table;
use super::{Context, Outcome, Output, print_json};

#[derive(Serialize)]
struct Row<'a> {
    task_id: &'a str,
    class_name: &'a str,
    methods: Vec<&'a str>,
    edges: usize,
    tests: usize,
}

pub(crate) fn run(ctx: &Context) -> anyhow::Result<Outcome> {
    let (dataset, problems) = ctx.dataset()?;
    let analyses = Context::analyses(&dataset);
    let rows: Vec<Row> = dataset
        .tasks
        .iter()
        .zip(&analyses)
        .map(|(t, a)| Row {
            task_id: &t.id,
            class_name: &t.class_name,
            // The analysis's methods, as the TUI lists them: the dataset's target methods, or
            // the reference's when `methods_info` is missing or malformed.
            methods: a.graph.nodes.iter().map(String::as_str).collect(),
            edges: a.graph.edge_count(),
            tests: match a.test_count() {
                0 => t.test_count(),
                n => n,
            },
        })
        .collect();
    match ctx.output {
        Output::Json => print_json(&rows)?,
        Output::Human => {
            let mut table =
                Table::new(&["id", "class", "methods", "deps", "tests"]).right(&[2, 3, 4]);
            for r in &rows {
                table.row(vec![
                    r.task_id.to_string(),
                    r.class_name.to_string(),
                    r.methods.len().to_string(),
                    r.edges.to_string(),
                    r.tests.to_string(),
                ]);
            }
            print!("{}", table.render());
            println!(
                "{} tasks, {} methods, {} dependency edges ({})",
                rows.len(),
                rows.iter().map(|r| r.methods.len()).sum::<usize>(),
                rows.iter().map(|r| r.edges).sum::<usize>(),
                crate::text::Escaped(&dataset.origin)
            );
        }
    }
    Ok(Outcome { problems })
}
