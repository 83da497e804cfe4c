//! `classlab compare A B [C…]`: sessions paired on the tasks they all finished — exact
//! McNemar for `class_success`/`class_partial_success` (with the tasks only one side
//! solves), the task-clustered paired difference for `fun_success`/`fun_partial_success`,
//! an effect size for each; with more than two sessions every pair, Holm-adjusted.

use serde_json::json;

use super::eval::load_folded;
use super::report::text::pair_table;
use super::{Context, Outcome, Output, print_json};
use crate::session::report::session_data;
use crate::stats::compare::{SessionData, all_pairs, compare};
use crate::stats::outcomes::METRICS;

pub(crate) fn run(ctx: &Context, ids: &[String]) -> anyhow::Result<Outcome> {
    let (loaded, problems) = load_folded(ctx, ids)?;
    let data: Vec<SessionData> = loaded
        .iter()
        .map(|(l, s)| session_data(&l.meta, s))
        .collect();
    let labels = super::report::doc::labels(&loaded);
    if data.len() == 2 {
        let c = compare(&data[0], &data[1]);
        match ctx.output {
            Output::Json => print_json(&c)?,
            Output::Human => {
                println!("A: {} ({})", labels[0], data[0].id);
                println!("B: {} ({})", labels[1], data[1].id);
                print_one(&c, false);
            }
        }
        return Ok(Outcome { problems });
    }
    let pairs = all_pairs(&data);
    match ctx.output {
        Output::Json => print_json(&json!({ "pairs": pairs }))?,
        Output::Human => {
            let by_id: std::collections::BTreeMap<&str, &String> =
                data.iter().map(|d| d.id.as_str()).zip(&labels).collect();
            for p in &pairs {
                let label = |id: &str| {
                    by_id
                        .get(id)
                        .map_or(id.to_string(), |l| format!("{l} ({id})"))
                };
                println!("A: {}\nB: {}", label(&p.a), label(&p.b));
                print_one(&p.comparison, true);
                println!();
            }
        }
    }
    Ok(Outcome { problems })
}

fn print_one(c: &crate::stats::compare::Comparison, holm: bool) {
    for line in super::report::text::pairing_lines(c) {
        println!("{line}");
    }
    print!("{}", pair_table(c, holm).render());
    for (m, r) in METRICS.iter().filter_map(|m| Some((m, c.metrics.get(m)?))) {
        for (side, list) in [("A", &r.only_a), ("B", &r.only_b)] {
            if let Some(list) = list.as_ref().filter(|l| !l.is_empty()) {
                println!(
                    "{m}: only {side} solves ({}): {}",
                    list.len(),
                    list.join(", ")
                );
            }
        }
    }
}
