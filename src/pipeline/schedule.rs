//! The order TDD generates methods in (domain.md §2): as the model predicted it, repaired
//! into a topological order of the predicted graph, the ground truth's, or the skeleton's.

use std::fmt;
use std::str::FromStr;

use crate::analysis::graph::DepGraph;
use crate::model::DepMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ScheduleMode {
    /// The model's order, unchanged even when it breaks its own graph (the study's choice).
    #[default]
    Predicted,
    /// A topological sort of the predicted graph, stable with respect to the predicted order.
    Repaired,
    /// A topological sort of the ground-truth graph, stable with respect to the skeleton.
    GroundTruth,
    /// The skeleton's order.
    Skeleton,
}

impl ScheduleMode {
    pub const NAMES: [&'static str; 4] = ["predicted", "repaired", "ground-truth", "skeleton"];
}

impl fmt::Display for ScheduleMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ScheduleMode::Predicted => "predicted",
            ScheduleMode::Repaired => "repaired",
            ScheduleMode::GroundTruth => "ground-truth",
            ScheduleMode::Skeleton => "skeleton",
        })
    }
}

impl FromStr for ScheduleMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "predicted" => Ok(ScheduleMode::Predicted),
            "repaired" => Ok(ScheduleMode::Repaired),
            "ground-truth" | "ground_truth" | "truth" => Ok(ScheduleMode::GroundTruth),
            "skeleton" => Ok(ScheduleMode::Skeleton),
            other => Err(format!(
                "unknown schedule `{other}` (expected {})",
                Self::NAMES.join(", ")
            )),
        }
    }
}

/// The generation order for `methods` (skeleton order, `__init__` excluded). Every method
/// appears exactly once: names the prediction invented are dropped, forgotten ones appended.
pub fn order(
    mode: ScheduleMode,
    methods: &[String],
    predicted: &DepMap,
    predicted_order: &[String],
    truth: &DepMap,
) -> Vec<String> {
    let mut base: Vec<String> = Vec::with_capacity(methods.len());
    for m in predicted_order.iter().chain(methods) {
        if methods.contains(m) && !base.contains(m) {
            base.push(m.clone());
        }
    }
    match mode {
        ScheduleMode::Predicted => base,
        ScheduleMode::Repaired => DepGraph::new(base, predicted).topo_order(),
        ScheduleMode::GroundTruth => DepGraph::new(methods.to_vec(), truth).topo_order(),
        ScheduleMode::Skeleton => methods.to_vec(),
    }
}

/// Ground-truth edges [A, B] (A calls B) the order breaks: B generated after A.
pub fn violations(methods: &[String], truth: &DepMap, order: &[String]) -> Vec<[String; 2]> {
    let names: Vec<&str> = methods.iter().map(String::as_str).collect();
    crate::metrics::deps::violated_edges(&names, truth, order)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn deps(edges: &[(&str, &str)]) -> DepMap {
        let mut m = DepMap::new();
        for (a, b) in edges {
            m.entry(a.to_string()).or_default().insert(b.to_string());
        }
        m
    }

    fn v(xs: &[&str]) -> Vec<String> {
        xs.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn each_mode_orders_every_method_once() {
        let methods = v(&["a", "b", "c", "d"]);
        let truth = deps(&[("a", "c")]);
        let predicted = deps(&[("b", "d")]);
        // The model forgot `a` and invented `zz`; it put b before its prerequisite d.
        let p_order = v(&["b", "zz", "d", "c"]);
        let cases = [
            (ScheduleMode::Predicted, v(&["b", "d", "c", "a"])),
            (ScheduleMode::Repaired, v(&["d", "b", "c", "a"])),
            (ScheduleMode::GroundTruth, v(&["b", "c", "a", "d"])),
            (ScheduleMode::Skeleton, v(&["a", "b", "c", "d"])),
        ];
        for (mode, want) in cases {
            let got = order(mode, &methods, &predicted, &p_order, &truth);
            assert_eq!(got, want, "{mode}");
        }
    }

    #[test]
    fn violations_are_truth_edges_scheduled_backwards() {
        let methods = v(&["a", "b", "c"]);
        let truth = deps(&[("a", "b"), ("c", "b")]);
        assert_eq!(
            violations(&methods, &truth, &v(&["a", "b", "c"])),
            vec![["a".to_string(), "b".to_string()]]
        );
        assert!(violations(&methods, &truth, &v(&["b", "a", "c"])).is_empty());
    }

    #[test]
    fn modes_parse_and_print() {
        for name in ScheduleMode::NAMES {
            assert_eq!(name.parse::<ScheduleMode>().unwrap().to_string(), name);
        }
        assert!("sideways".parse::<ScheduleMode>().is_err());
    }
}
