//! `classlab lint`: the static checks of domain.md §6 over a dataset. Findings are the output,
//! not errors: the exit code is 0 (3 when the dataset itself had loading problems).

use std::collections::BTreeMap;

use anyhow::bail;
use rayon::prelude::*;

use super::table::Table;
use super::{Context, Outcome, Output, print_json};
use crate::analysis::lint::{self, Finding, RULES, Severity};
use crate::model::TaskIndex;

#[derive(Debug, clap::Args)]
pub struct LintArgs {
    /// Only these rule codes (repeatable or comma-separated), e.g. `--rule I1,D4 --rule T1`.
    #[arg(long = "rule", value_name = "CODE", value_delimiter = ',')]
    pub rules: Vec<String>,
    /// Only these tasks (comma-separated ids).
    #[arg(long, value_name = "ID,…", value_delimiter = ',')]
    pub tasks: Vec<String>,
    /// Print the rule table (code, severity, title, what it checks, why) and exit.
    #[arg(long = "rules")]
    pub list_rules: bool,
}

pub(crate) fn run(ctx: &Context, args: &LintArgs) -> anyhow::Result<Outcome> {
    if args.list_rules {
        print_rules(ctx.output)?;
        return Ok(Outcome::clean());
    }
    let unknown: Vec<&String> = args
        .rules
        .iter()
        .filter(|c| lint::rule(c).is_none())
        .collect();
    if !unknown.is_empty() {
        let list: Vec<&str> = unknown.iter().map(|s| s.as_str()).collect();
        return Err(super::UsageError(format!(
            "unknown rule code(s): {} (see `classlab lint --rules`)",
            list.join(", ")
        ))
        .into());
    }
    let (dataset, problems) = ctx.dataset()?;
    let missing = TaskIndex::of(&dataset.tasks).missing(&args.tasks);
    if !missing.is_empty() {
        bail!("no such task(s) in the dataset: {}", missing.join(", "));
    }
    let wanted: std::collections::HashSet<&String> = args.tasks.iter().collect();
    let tasks: Vec<_> = dataset
        .tasks
        .iter()
        .filter(|t| wanted.is_empty() || wanted.contains(&t.id))
        .collect();
    let bar = super::progress::Progress::new(tasks.len(), "tasks");
    let findings: Vec<Finding> = tasks
        .par_iter()
        .map(|t| {
            let f = lint::lint_task(t);
            bar.inc();
            f
        })
        .collect::<Vec<_>>()
        .into_iter()
        .flatten()
        .filter(|f| {
            args.rules.is_empty() || args.rules.iter().any(|c| c.eq_ignore_ascii_case(f.code))
        })
        .collect();
    drop(bar);
    match ctx.output {
        Output::Json => print_json(&findings)?,
        Output::Human => print_human(&findings, tasks.len()),
    }
    Ok(Outcome { problems })
}

fn print_rules(output: Output) -> anyhow::Result<()> {
    if output == Output::Json {
        return print_json(&RULES);
    }
    // One block per rule: the texts are sentences, too long for table cells.
    for r in RULES {
        println!("{:<4} {:<8} {}", r.code, r.severity.as_str(), r.title);
        println!("     checks: {}", r.checks);
        println!("     why:    {}", r.why);
    }
    Ok(())
}

fn print_human(findings: &[Finding], tasks: usize) {
    if !findings.is_empty() {
        let mut t = Table::new(&[
            "task", "code", "severity", "method", "where", "message", "fix",
        ]);
        for f in findings {
            let whr = match f.line {
                Some(l) => format!("{}:{l}", f.part.as_str()),
                None => f.part.as_str().to_string(),
            };
            t.row(vec![
                f.task_id.clone(),
                f.code.into(),
                f.severity.as_str().into(),
                f.method.clone().unwrap_or_else(|| "-".into()),
                whr,
                f.message.clone(),
                f.fix.clone().unwrap_or_default(),
            ]);
        }
        print!("{}", t.render());
        println!();
    }
    // Per rule, in table order: how many findings and in how many tasks.
    let mut per_rule: BTreeMap<&str, (usize, std::collections::BTreeSet<&str>)> = BTreeMap::new();
    for f in findings {
        let e = per_rule.entry(f.code).or_default();
        e.0 += 1;
        e.1.insert(&f.task_id);
    }
    let mut s = Table::new(&["code", "severity", "findings", "tasks", "title"]).right(&[2, 3]);
    for r in RULES {
        if let Some((n, ts)) = per_rule.get(r.code) {
            s.row(vec![
                r.code.into(),
                r.severity.as_str().into(),
                n.to_string(),
                ts.len().to_string(),
                r.title.into(),
            ]);
        }
    }
    print!("{}", s.render());
    println!("{}", summary_line(findings, tasks));
}

/// `715 findings in 91 of the 100 tasks: 96 errors (in 39 tasks), 510 warnings, 109 info` —
/// tasks counted once however many findings they have.
fn summary_line(findings: &[Finding], tasks: usize) -> String {
    let count = |sev| findings.iter().filter(|f| f.severity == sev).count();
    let tasks_with = |sev: Option<Severity>| {
        findings
            .iter()
            .filter(|f| sev.is_none_or(|s| f.severity == s))
            .map(|f| f.task_id.as_str())
            .collect::<std::collections::BTreeSet<_>>()
            .len()
    };
    format!(
        "{} findings in {} of the {tasks} tasks: {} errors (in {} tasks), {} warnings, {} info",
        findings.len(),
        tasks_with(None),
        count(Severity::Error),
        tasks_with(Some(Severity::Error)),
        count(Severity::Warning),
        count(Severity::Info)
    )
}
