//! DEP: a method's annotated `method_dependencies` ≠ the dependencies extracted from its
//! reference code (domain.md §3). The same comparison `classlab deps` summarises, per method,
//! with the likely reason for each annotated edge the code does not have.

use std::collections::BTreeSet;

use super::{At, Ctx, Part};

pub(super) fn check(ctx: &mut Ctx<'_>) {
    if ctx.an.class.is_none() {
        return;
    }
    for m in &ctx.task.methods {
        let Some(ann) = &m.annotated else { continue };
        let annotated: BTreeSet<&str> = ann.methods.iter().map(String::as_str).collect();
        let extracted: BTreeSet<&str> = ctx
            .an
            .graph
            .deps_of(&m.name)
            .iter()
            .map(String::as_str)
            .collect();
        if annotated == extracted {
            continue;
        }
        let omitted: Vec<&str> = extracted.difference(&annotated).copied().collect();
        let extra: Vec<&str> = annotated.difference(&extracted).copied().collect();
        let mut parts = Vec::new();
        if !omitted.is_empty() {
            parts.push(format!("omits {} that the code calls", names(&omitted)));
        }
        if !extra.is_empty() {
            let reach = ctx.an.graph.reachable(&m.name);
            let def = ctx.an.method_def(&m.name);
            let body = def
                .and_then(|d| ctx.task.solution.get(d.body_start_byte..d.end_byte))
                .unwrap_or("");
            let why: Vec<String> = extra
                .iter()
                .map(|x| {
                    let reason = if *x == m.name {
                        "itself"
                    } else if reach.contains(*x) {
                        "only called indirectly"
                    } else if def.is_some_and(|d| d.other_refs.contains(*x)) {
                        "called on another object, not on self"
                    } else if body.contains(x) {
                        "only inside another name"
                    } else {
                        "never referenced"
                    };
                    format!("`{x}` ({reason})")
                })
                .collect();
            parts.push(format!(
                "lists {} that the code does not call",
                why.join(", ")
            ));
        }
        let line = ctx.an.method_def(&m.name).map(|d| d.start_line);
        let fixed: Vec<&str> = extracted.iter().copied().collect();
        ctx.emit(
            "DEP",
            At::new(Part::Solution, Some(&m.name), line),
            format!("The annotation of `{}` {}.", m.name, parts.join(", and ")),
            Some(format!("method_dependencies: [{}]", fixed.join(", "))),
        );
    }
}

fn names(xs: &[&str]) -> String {
    xs.iter()
        .map(|x| format!("`{x}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod unit {
    use super::super::testutil::{codes_for, task};
    use crate::model::AnnotatedDeps;

    fn annotated(methods: &[(&str, &[&str])]) -> crate::model::Task {
        let sol = "class A:\n    def a(self):\n        return self.b()\n    def b(self):\n        return self.c()\n    def c(self):\n        return 1\n";
        let mut t = task("", sol, "");
        for m in &mut t.methods {
            let deps = methods
                .iter()
                .find(|(n, _)| *n == m.name)
                .map(|(_, d)| d.iter().map(|s| s.to_string()).collect())
                .unwrap_or_default();
            m.annotated = Some(AnnotatedDeps {
                methods: deps,
                ..AnnotatedDeps::default()
            });
        }
        t
    }

    #[test]
    fn dep_fires_on_differences_only() {
        let agree = annotated(&[("a", &["b"]), ("b", &["c"])]);
        assert!(codes_for(&agree, "DEP").is_empty());
        let differ = annotated(&[("a", &["b", "c"]), ("b", &[])]);
        let f = codes_for(&differ, "DEP");
        assert_eq!(f.len(), 2, "{f:?}");
        assert_eq!(f[0].method.as_deref(), Some("a"));
        assert!(
            f[0].message.contains("`c` (only called indirectly)"),
            "{}",
            f[0].message
        );
        assert_eq!(f[0].fix.as_deref(), Some("method_dependencies: [b]"));
        assert!(f[1].message.contains("omits `c`"));
        // No annotation at all: nothing to compare.
        let none = task(
            "",
            "class A:\n    def a(self):\n        return self.b()\n    def b(self):\n        pass\n",
            "",
        );
        assert!(codes_for(&none, "DEP").is_empty());
    }
}
