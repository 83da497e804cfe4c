//! Coverage figures of the reference module from coverage.py's own JSON report (one file's
//! entry, `branch=True`, `show_contexts=True`). Pure.
//!
//! line = `covered_lines / num_statements`, branch = `covered_branches / num_branches`, both
//! in percent, exactly as coverage.py's JSON `summary` counts them; branch is `None` when the
//! module has no branches (not 100 %). Per line, the tests whose context executed it (the
//! empty context is the import: class and `def` lines).

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Coverage of the reference by its tests.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Coverage {
    /// Percent of statements executed; `None` when there are none.
    pub line: Option<f64>,
    /// Percent of branch arcs taken; `None` without branches.
    pub branch: Option<f64>,
    pub statements: usize,
    pub covered_lines: usize,
    /// (covered, total) branch arcs.
    pub branches: (usize, usize),
    /// Statements never executed (1-based lines of the reference).
    pub uncovered_lines: Vec<usize>,
    /// Branch arcs never taken, as coverage.py writes them (a negative target: leaving the
    /// code object that starts on that line).
    pub missing_arcs: Vec<(i64, i64)>,
    /// Executed lines with at least one arc not taken.
    pub partial_lines: Vec<usize>,
    /// Executed statements.
    pub executed_lines: Vec<usize>,
    /// Per line, indices into `tests` of the tests that executed it.
    pub line_tests: BTreeMap<usize, Vec<u32>>,
    /// Lines executed while the module was imported (outside every test).
    pub import_lines: Vec<usize>,
    /// Test ids, in the order the indices refer to.
    pub tests: Vec<String>,
}

fn nums(v: Option<&Value>) -> Vec<usize> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_u64().and_then(|n| usize::try_from(n).ok()))
                .collect()
        })
        .unwrap_or_default()
}

fn count(summary: &Value, key: &str) -> Result<usize, String> {
    summary
        .get(key)
        .and_then(Value::as_u64)
        .and_then(|n| usize::try_from(n).ok())
        .ok_or_else(|| format!("coverage report: summary.{key} missing"))
}

fn percent(part: usize, whole: usize) -> Option<f64> {
    (whole > 0).then(|| 100.0 * part as f64 / whole as f64)
}

impl Coverage {
    /// From one file's entry of coverage.py's JSON report.
    pub fn from_report(entry: &Value) -> Result<Coverage, String> {
        let summary = entry
            .get("summary")
            .ok_or("coverage report: no summary (was branch coverage on?)")?;
        let statements = count(summary, "num_statements")?;
        let covered_lines = count(summary, "covered_lines")?;
        let total = count(summary, "num_branches")?;
        let covered = count(summary, "covered_branches")?;
        let missing_arcs: Vec<(i64, i64)> = entry
            .get("missing_branches")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|p| Some((p.get(0)?.as_i64()?, p.get(1)?.as_i64()?)))
                    .collect()
            })
            .unwrap_or_default();
        let executed_lines = nums(entry.get("executed_lines"));
        let executed: BTreeSet<usize> = executed_lines.iter().copied().collect();
        let partial: BTreeSet<usize> = missing_arcs
            .iter()
            .filter_map(|(from, _)| usize::try_from(*from).ok())
            .filter(|l| executed.contains(l))
            .collect();
        let mut tests: Vec<String> = Vec::new();
        let mut index: BTreeMap<String, u32> = BTreeMap::new();
        let mut line_tests: BTreeMap<usize, Vec<u32>> = BTreeMap::new();
        let mut import_lines = Vec::new();
        if let Some(ctx) = entry.get("contexts").and_then(Value::as_object) {
            for (line, names) in ctx {
                let Ok(line) = line.parse::<usize>() else {
                    continue;
                };
                for name in names
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                {
                    if name.is_empty() {
                        import_lines.push(line);
                        continue;
                    }
                    let next = tests.len() as u32;
                    let i = *index.entry(name.to_string()).or_insert_with(|| {
                        tests.push(name.to_string());
                        next
                    });
                    line_tests.entry(line).or_default().push(i);
                }
            }
        }
        import_lines.sort_unstable();
        for v in line_tests.values_mut() {
            v.sort_unstable();
            v.dedup();
        }
        Ok(Coverage {
            line: percent(covered_lines, statements),
            branch: percent(covered, total),
            statements,
            covered_lines,
            branches: (covered, total),
            uncovered_lines: nums(entry.get("missing_lines")),
            missing_arcs,
            partial_lines: partial.into_iter().collect(),
            executed_lines,
            line_tests,
            import_lines,
            tests,
        })
    }

    /// The tests that executed `line`.
    pub fn tests_of(&self, line: usize) -> impl Iterator<Item = &str> {
        self.line_tests
            .get(&line)
            .into_iter()
            .flatten()
            .filter_map(|&i| self.tests.get(i as usize).map(String::as_str))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn figures_follow_the_summary() {
        let entry = json!({
            "summary": {"covered_lines": 15, "num_statements": 16, "num_branches": 6,
                        "covered_branches": 5},
            "executed_lines": [1, 2, 8, 10],
            "missing_lines": [11],
            "missing_branches": [[10, 11], [17, -15]],
            "contexts": {"1": [""], "8": ["T.test_b", "T.test_a"], "10": ["T.test_a"]}
        });
        let c = Coverage::from_report(&entry).unwrap();
        assert_eq!(c.line, Some(93.75));
        assert_eq!(c.branch, Some(500.0 / 6.0));
        assert_eq!(c.branches, (5, 6));
        assert_eq!(c.uncovered_lines, [11]);
        assert_eq!(c.missing_arcs, [(10, 11), (17, -15)]);
        assert_eq!(c.partial_lines, [10]);
        assert_eq!(c.import_lines, [1]);
        assert_eq!(c.tests_of(8).collect::<Vec<_>>(), ["T.test_b", "T.test_a"]);
        assert_eq!(c.tests_of(10).collect::<Vec<_>>(), ["T.test_a"]);
        assert_eq!(c.tests_of(2).count(), 0);
    }

    #[test]
    fn no_branches_is_null_not_100() {
        let entry = json!({"summary": {"covered_lines": 3, "num_statements": 3,
                                      "num_branches": 0, "covered_branches": 0}});
        let c = Coverage::from_report(&entry).unwrap();
        assert_eq!((c.line, c.branch), (Some(100.0), None));
        assert!(Coverage::from_report(&json!({"summary": {}})).is_err());
    }
}
