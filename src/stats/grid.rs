//! The task × session grid (data for the TUI's grid screen and the report's heatmap): each
//! cell a task's fingerprint bucket in one session; rows sortable by disagreement.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::metrics::fingerprint::Bucket;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Grid {
    /// Session labels, one per column.
    pub columns: Vec<String>,
    /// Tasks in first-seen order over the columns.
    pub rows: Vec<GridRow>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GridRow {
    pub task_id: String,
    /// One cell per column: the bucket of the task's first sample; `None` when the session
    /// did not finish it.
    pub cells: Vec<Option<Bucket>>,
    /// Distinct cell values minus one (0: all sessions agree).
    pub disagreement: usize,
    /// min(sessions with `Perfect`, sessions without): how evenly the row splits.
    pub split: usize,
}

/// One session's column: its label and each task's bucket (`None`: not finished).
pub type Column = (String, Vec<(String, Option<Bucket>)>);

/// The grid of `columns`, one per session.
pub fn grid(columns: &[Column]) -> Grid {
    let mut ids: Vec<&str> = Vec::new();
    let mut seen: BTreeSet<&str> = BTreeSet::new();
    for (_, cells) in columns {
        for (t, _) in cells {
            if seen.insert(t) {
                ids.push(t);
            }
        }
    }
    let maps: Vec<BTreeMap<&str, Option<Bucket>>> = columns
        .iter()
        .map(|(_, c)| c.iter().map(|(t, b)| (t.as_str(), *b)).collect())
        .collect();
    let rows = ids
        .into_iter()
        .map(|id| {
            let cells: Vec<Option<Bucket>> =
                maps.iter().map(|m| m.get(id).copied().flatten()).collect();
            let mut distinct = cells.clone();
            distinct.sort();
            distinct.dedup();
            let perfect = cells
                .iter()
                .filter(|c| **c == Some(Bucket::Perfect))
                .count();
            GridRow {
                task_id: id.to_string(),
                disagreement: distinct.len().saturating_sub(1),
                split: perfect.min(cells.len() - perfect),
                cells,
            }
        })
        .collect();
    Grid {
        columns: columns.iter().map(|c| c.0.clone()).collect(),
        rows,
    }
}

impl Grid {
    /// Rows most disagreed on first (then the most even split; ties keep task order).
    pub fn by_disagreement(&self) -> Vec<&GridRow> {
        let mut rows: Vec<&GridRow> = self.rows.iter().collect();
        rows.sort_by_key(|r| std::cmp::Reverse((r.disagreement, r.split)));
        rows
    }

    /// Rows where some session's cell is `bucket`.
    pub fn with_bucket(&self, bucket: Bucket) -> Vec<&GridRow> {
        self.rows
            .iter()
            .filter(|r| r.cells.contains(&Some(bucket)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_by_disagreement() {
        let col = |name: &str, cells: &[(&str, Option<Bucket>)]| {
            (
                name.to_string(),
                cells.iter().map(|(t, b)| (t.to_string(), *b)).collect(),
            )
        };
        let g = grid(&[
            col(
                "a",
                &[("t1", Some(Bucket::Perfect)), ("t2", Some(Bucket::Fail))],
            ),
            col(
                "b",
                &[
                    ("t1", Some(Bucket::Perfect)),
                    ("t2", Some(Bucket::Perfect)),
                    ("t3", None),
                ],
            ),
        ]);
        assert_eq!(g.rows.len(), 3);
        let order: Vec<&str> = g
            .by_disagreement()
            .iter()
            .map(|r| r.task_id.as_str())
            .collect();
        assert_eq!(order, ["t2", "t1", "t3"]);
        assert_eq!(g.rows[2].cells, vec![None, None]);
        assert_eq!(g.with_bucket(Bucket::Fail).len(), 1);
    }
}
