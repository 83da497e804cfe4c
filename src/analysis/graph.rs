//! Method dependency graphs: a node per target method, an edge A → B when A depends on B.
//!
//! Orders put dependencies first (B before A) and break ties by skeleton order, so the same
//! class always gets the same order. Cycles never panic: each strongly connected component is
//! placed as a block, its members in skeleton order.

use std::collections::{BTreeMap, BTreeSet};

use petgraph::algo::tarjan_scc;
use petgraph::graph::DiGraph;
use serde::Serialize;

/// method → the methods it depends on.
pub use crate::model::DepMap;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DepGraph {
    /// Methods in skeleton order.
    pub nodes: Vec<String>,
    /// Every node has an entry (possibly empty); targets are always nodes.
    pub deps: DepMap,
}

impl DepGraph {
    /// Build from nodes and a map; edges to names that are not nodes, and self-loops, are dropped.
    pub fn new(nodes: Vec<String>, deps: &DepMap) -> Self {
        let known: BTreeSet<&str> = nodes.iter().map(String::as_str).collect();
        let deps = nodes
            .iter()
            .map(|n| {
                let targets = deps
                    .get(n)
                    .into_iter()
                    .flatten()
                    .filter(|t| *t != n && known.contains(t.as_str()))
                    .cloned()
                    .collect();
                (n.clone(), targets)
            })
            .collect();
        DepGraph { nodes, deps }
    }

    pub fn edge_count(&self) -> usize {
        self.deps.values().map(BTreeSet::len).sum()
    }

    /// Every edge `[A, B]` (A depends on B), in node order then name order.
    pub fn edges(&self) -> Vec<[String; 2]> {
        self.nodes
            .iter()
            .flat_map(|a| self.deps_of(a).iter().map(move |b| [a.clone(), b.clone()]))
            .collect()
    }

    pub fn deps_of(&self, node: &str) -> &BTreeSet<String> {
        static EMPTY: BTreeSet<String> = BTreeSet::new();
        self.deps.get(node).unwrap_or(&EMPTY)
    }

    /// Everything `node` depends on directly or through other methods (`node` itself only when
    /// it sits on a cycle).
    pub fn reachable(&self, node: &str) -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut stack: Vec<&str> = self.deps_of(node).iter().map(String::as_str).collect();
        while let Some(n) = stack.pop() {
            if seen.insert(n.to_string()) {
                stack.extend(self.deps_of(n).iter().map(String::as_str));
            }
        }
        seen
    }

    /// Methods that depend on `node`.
    pub fn callers_of(&self, node: &str) -> Vec<&str> {
        self.nodes
            .iter()
            .filter(|a| self.deps_of(a).contains(node))
            .map(String::as_str)
            .collect()
    }

    /// Strongly connected components in a form the rest of the code can use: for each node,
    /// the index of its component; components numbered in discovery order.
    fn components(&self) -> (Vec<Vec<usize>>, Vec<usize>) {
        let index: BTreeMap<&str, usize> = self
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.as_str(), i))
            .collect();
        let mut g = DiGraph::<(), ()>::with_capacity(self.nodes.len(), self.edge_count());
        let ids: Vec<_> = self.nodes.iter().map(|_| g.add_node(())).collect();
        for (a, targets) in &self.deps {
            for b in targets {
                if let (Some(&ia), Some(&ib)) = (index.get(a.as_str()), index.get(b.as_str())) {
                    g.add_edge(ids[ia], ids[ib], ());
                }
            }
        }
        let sccs: Vec<Vec<usize>> = tarjan_scc(&g)
            .into_iter()
            .map(|c| {
                let mut members: Vec<usize> = c.into_iter().map(|n| n.index()).collect();
                members.sort_unstable();
                members
            })
            .collect();
        let mut comp_of = vec![0; self.nodes.len()];
        for (ci, members) in sccs.iter().enumerate() {
            for &m in members {
                comp_of[m] = ci;
            }
        }
        (sccs, comp_of)
    }

    /// Cycles: components of more than one method, members in skeleton order, listed by their
    /// first member's position.
    pub fn cycles(&self) -> Vec<Vec<String>> {
        let (sccs, _) = self.components();
        let mut cycles: Vec<Vec<usize>> = sccs.into_iter().filter(|c| c.len() > 1).collect();
        cycles.sort();
        cycles
            .into_iter()
            .map(|c| c.into_iter().map(|i| self.nodes[i].clone()).collect())
            .collect()
    }

    /// Dependencies-first order, ties broken by skeleton order; a cycle is emitted as a block.
    pub fn topo_order(&self) -> Vec<String> {
        let (sccs, comp_of) = self.components();
        let n_comp = sccs.len();
        // Condensed graph: comp → the comps it depends on.
        let mut waiting_on = vec![BTreeSet::new(); n_comp];
        let mut dependents = vec![BTreeSet::new(); n_comp];
        for (i, a) in self.nodes.iter().enumerate() {
            for b in self.deps_of(a) {
                if let Some(j) = self.nodes.iter().position(|n| n == b) {
                    let (ca, cb) = (comp_of[i], comp_of[j]);
                    if ca != cb {
                        waiting_on[ca].insert(cb);
                        dependents[cb].insert(ca);
                    }
                }
            }
        }
        // Kahn with a priority on the component's first member (its smallest skeleton index).
        let key = |c: usize| sccs[c][0];
        let mut ready: BTreeSet<(usize, usize)> = (0..n_comp)
            .filter(|&c| waiting_on[c].is_empty())
            .map(|c| (key(c), c))
            .collect();
        let mut order = Vec::with_capacity(self.nodes.len());
        while let Some((_, c)) = ready.pop_first() {
            order.extend(sccs[c].iter().map(|&i| self.nodes[i].clone()));
            for &d in &dependents[c] {
                waiting_on[d].remove(&c);
                if waiting_on[d].is_empty() {
                    ready.insert((key(d), d));
                }
            }
        }
        order
    }

    /// Layer of each node for drawing: 0 for methods that depend on nothing, otherwise one more
    /// than the deepest dependency (members of a cycle share a layer).
    pub fn layers(&self) -> Vec<Vec<String>> {
        let (_, comp_of) = self.components();
        let position: BTreeMap<&str, usize> = self
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.as_str(), i))
            .collect();
        let mut layer_of: BTreeMap<&str, usize> = BTreeMap::new();
        for name in self.topo_order() {
            let i = position[name.as_str()];
            let depth = self
                .deps_of(&name)
                .iter()
                .filter(|b| comp_of[position[b.as_str()]] != comp_of[i])
                .filter_map(|b| layer_of.get(b.as_str()))
                .map(|l| l + 1)
                .max()
                .unwrap_or(0);
            layer_of.insert(&self.nodes[i], depth);
        }
        // A cycle's members take the deepest layer any of them needs.
        let mut comp_layer: BTreeMap<usize, usize> = BTreeMap::new();
        for (name, &l) in &layer_of {
            let c = comp_of[position[name]];
            let e = comp_layer.entry(c).or_default();
            *e = (*e).max(l);
        }
        let depth = comp_layer.values().copied().max().map_or(0, |d| d + 1);
        let mut layers = vec![Vec::new(); depth];
        for (i, n) in self.nodes.iter().enumerate() {
            layers[comp_layer[&comp_of[i]]].push(n.clone());
        }
        layers
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(nodes: &[&str], edges: &[(&str, &str)]) -> DepGraph {
        let mut deps = DepMap::new();
        for (a, b) in edges {
            deps.entry(a.to_string()).or_default().insert(b.to_string());
        }
        DepGraph::new(nodes.iter().map(|s| s.to_string()).collect(), &deps)
    }

    #[test]
    fn order_is_dependencies_first_and_stable() {
        // (nodes, edges, expected order)
        type Case<'a> = (&'a [&'a str], &'a [(&'a str, &'a str)], &'a [&'a str]);
        let cases: &[Case] = &[
            (&["a", "b", "c"], &[], &["a", "b", "c"]),
            (&["a", "b", "c"], &[("a", "c")], &["b", "c", "a"]),
            (
                &["a", "b", "c", "d"],
                &[("a", "b"), ("b", "c"), ("c", "d")],
                &["d", "c", "b", "a"],
            ),
            (
                &["a", "b", "c"],
                &[("a", "c"), ("b", "c")],
                &["c", "a", "b"],
            ),
        ];
        for (nodes, edges, want) in cases {
            assert_eq!(graph(nodes, edges).topo_order(), *want, "{edges:?}");
        }
    }

    #[test]
    fn cycles_are_blocks_not_panics() {
        let g = graph(
            &["a", "b", "c", "d"],
            &[("b", "c"), ("c", "b"), ("a", "b"), ("d", "d")],
        );
        assert_eq!(g.cycles(), vec![vec!["b".to_string(), "c".to_string()]]);
        assert_eq!(g.topo_order(), ["b", "c", "a", "d"]);
        assert_eq!(g.layers(), vec![vec!["b", "c", "d"], vec!["a"]]);
    }

    #[test]
    fn drops_unknown_targets_and_self_loops() {
        let g = graph(&["a", "b"], &[("a", "zzz"), ("a", "a"), ("a", "b")]);
        assert_eq!(g.edges(), vec![["a".to_string(), "b".to_string()]]);
        assert_eq!(g.callers_of("b"), ["a"]);
        let chain = graph(&["a", "b", "c"], &[("a", "b"), ("b", "c")]);
        assert_eq!(
            chain.reachable("a").into_iter().collect::<Vec<_>>(),
            ["b", "c"]
        );
    }

    #[test]
    fn layers_put_callees_left() {
        let g = graph(
            &["top", "mid", "leaf", "alone"],
            &[("top", "mid"), ("mid", "leaf"), ("top", "leaf")],
        );
        assert_eq!(
            g.layers(),
            vec![vec!["leaf", "alone"], vec!["mid"], vec!["top"]]
        );
    }

    #[test]
    fn empty_graph() {
        let g = graph(&[], &[]);
        assert!(g.topo_order().is_empty() && g.cycles().is_empty() && g.layers().is_empty());
    }
}
