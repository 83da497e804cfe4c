//! `report --by first_seen [--cutoff DATE]`: a session's results by when each task's class was
//! first committed (`corpus dates`, carried by `corpus export` into the task's provenance as
//! `first_seen`), by year or on either side of a model's training cut-off: a class the model
//! could have read in training against one it could not (contamination control).
//!
//! The shape is `--by`'s ([`Slices`]): the property is the date as a decimal year
//! ([`decimal_year`]: a year `Y` is the bin `(Y, Y + 1]`, the bins' own convention), each bin
//! with the metrics and intervals the report computes; tasks without a date are `missing`.

use std::collections::BTreeMap;

use crate::corpus::dates::calendar::{decimal_year, parse_iso_date};
use crate::model::Task;
use crate::stats::outcomes::{METRICS, TaskOutcome, metric_interval};
use crate::stats::slices::{Bin, Slices, slices};

/// The property's name (`report --by first_seen`) and the provenance key it reads.
pub const PROPERTY: &str = "first_seen";

/// Each dated task's first-seen date as a decimal year.
pub fn values(tasks: &[Task]) -> BTreeMap<String, f64> {
    tasks
        .iter()
        .filter_map(|t| {
            let date = t.provenance.extra.get(PROPERTY)?.as_str()?;
            let (y, m, d) = parse_iso_date(date)?;
            Some((t.id.clone(), decimal_year(y, m, d)))
        })
        .collect()
}

/// `--cutoff DATE` as a decimal year, or an error that says what a date is.
pub fn cutoff(date: &str) -> anyhow::Result<f64> {
    let (y, m, d) = parse_iso_date(date).ok_or_else(|| {
        anyhow::anyhow!(
            "--cutoff {}: expected a date as YYYY-MM-DD (e.g. 2023-04-30)",
            crate::text::escape_control(date)
        )
    })?;
    Ok(decimal_year(y, m, d))
}

/// The results of `tasks` by calendar year of first commit (years without a task left out),
/// or in two bins, first seen on or before `cutoff` and after it (both always there).
pub fn by_first_seen(
    tasks: &[TaskOutcome],
    values: &BTreeMap<String, f64>,
    cutoff: Option<f64>,
) -> Slices {
    // Spearman's ρ and the tasks without a date, as every `--by` has them.
    let mut out = slices(PROPERTY, tasks, values, 1);
    let known: Vec<(&TaskOutcome, f64)> = tasks
        .iter()
        .filter_map(|t| Some((t, *values.get(&t.task_id)?)))
        .collect();
    let bounds: Vec<(f64, f64)> = match cutoff {
        Some(c) => {
            let lo = known.iter().map(|k| k.1).fold(c, f64::min);
            let hi = known.iter().map(|k| k.1).fold(c, f64::max);
            vec![(lo, c), (c, hi)]
        }
        None => {
            let mut years: Vec<i64> = known.iter().map(|k| year_of(k.1)).collect();
            years.sort_unstable();
            years.dedup();
            years
                .into_iter()
                .map(|y| (y as f64, y as f64 + 1.0))
                .collect()
        }
    };
    out.bins = bounds
        .iter()
        .enumerate()
        .map(|(i, &(lo, hi))| {
            let members: Vec<TaskOutcome> = known
                .iter()
                .filter(|(_, v)| (*v > lo || (i == 0 && *v >= lo)) && *v <= hi)
                .map(|(t, _)| (*t).clone())
                .collect();
            Bin {
                lo,
                hi,
                tasks: members.len(),
                metrics: METRICS
                    .iter()
                    .filter_map(|m| Some((*m, metric_interval(&members, m)?)))
                    .collect(),
            }
        })
        .collect();
    out
}

/// The year `Y` whose bin `(Y, Y + 1]` holds a decimal year.
pub fn year_of(v: f64) -> i64 {
    v.ceil() as i64 - 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::outcomes::TestClassOutcome;

    fn outcome(id: &str, pass: bool) -> TaskOutcome {
        TaskOutcome {
            task_id: id.into(),
            samples: 1,
            fun_samples: 1,
            class_success: usize::from(pass),
            class_partial_success: usize::from(pass),
            test_classes: vec![TestClassOutcome {
                name: "T".into(),
                success: usize::from(pass),
                partial_success: usize::from(pass),
            }],
        }
    }

    #[test]
    fn years_and_the_cutoff_split_the_dated_tasks() {
        // Three classes of 2019 (all pass), two of 2023 (one on 31 December), one undated.
        let dates = [
            ("a", "2019-01-01", true),
            ("b", "2019-07-04", true),
            ("c", "2019-12-31", true),
            ("d", "2023-06-01", false),
            ("e", "2023-12-31", true),
        ];
        let tasks: Vec<TaskOutcome> = dates
            .iter()
            .map(|(id, _, pass)| outcome(id, *pass))
            .chain([outcome("f", false)])
            .collect();
        let values: BTreeMap<String, f64> = dates
            .iter()
            .map(|(id, date, _)| {
                let (y, m, d) = parse_iso_date(date).unwrap();
                (id.to_string(), decimal_year(y, m, d))
            })
            .collect();
        let by_year = by_first_seen(&tasks, &values, None);
        assert_eq!(by_year.missing, 1);
        let years: Vec<(i64, usize)> = by_year
            .bins
            .iter()
            .map(|b| (year_of(b.hi), b.tasks))
            .collect();
        assert_eq!(years, [(2019, 3), (2023, 2)]);
        assert_eq!(by_year.bins[0].metrics["class_success"].estimate, 1.0);
        assert_eq!(by_year.bins[1].metrics["class_success"].estimate, 0.5);
        // The cut-off's own day is before it.
        let split = by_first_seen(&tasks, &values, Some(cutoff("2023-06-01").unwrap()));
        let sides: Vec<usize> = split.bins.iter().map(|b| b.tasks).collect();
        assert_eq!(sides, [4, 1]);
        assert_eq!(split.bins[0].metrics["class_success"].estimate, 0.75);
        // A cut-off after every task: the after side is there, empty.
        let late = by_first_seen(&tasks, &values, Some(cutoff("2030-01-01").unwrap()));
        assert_eq!(
            late.bins.iter().map(|b| b.tasks).collect::<Vec<_>>(),
            [5, 0]
        );
        assert!(late.bins[1].metrics.is_empty());
        assert!(cutoff("2023-02-30").is_err());
    }
}
