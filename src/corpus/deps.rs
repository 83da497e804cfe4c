//! Where an imported module comes from, resolved as Python 3 resolves it: a relative import is
//! the project's; an absolute one is the standard library's when the standard library has it
//! (absolute imports never see a same-named module of the importing package), else the
//! project's when it names one of the project's top-level packages, else a third party's.

use std::collections::BTreeSet;

use super::pynames::{BUILTINS, STDLIB};

/// A name every module can read without defining it (a builtin, `__file__`, …).
pub fn is_builtin(name: &str) -> bool {
    BUILTINS.binary_search(&name).is_ok()
}

/// A top-level module of the standard library.
pub fn is_stdlib(top: &str) -> bool {
    STDLIB.binary_search(&top).is_ok()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    Stdlib,
    ThirdParty,
    /// The project's own code: a relative import, or one of its top-level packages.
    Project,
}

/// Where `module` (as written: `os.path`, `.sibling`, `numpy`) comes from, for a file of a
/// repository whose top-level module and package names are `project`.
pub fn origin(module: &str, project: &BTreeSet<String>) -> Origin {
    if module.starts_with('.') {
        return Origin::Project;
    }
    let top = module.split('.').next().unwrap_or(module);
    if is_stdlib(top) {
        Origin::Stdlib
    } else if project.contains(top) {
        Origin::Project
    } else {
        Origin::ThirdParty
    }
}

/// The dependencies of one class, each list sorted and distinct.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Deps {
    pub stdlib: Vec<String>,
    pub third_party: Vec<String>,
    /// The project's own modules (relative imports, its top-level packages).
    pub internal: Vec<String>,
}

impl Deps {
    /// Nothing but the standard library.
    pub fn stdlib_only(&self) -> bool {
        self.third_party.is_empty() && self.internal.is_empty()
    }
}

/// Sort imported modules by [`origin`].
pub fn classify<'a>(
    modules: impl IntoIterator<Item = &'a str>,
    project: &BTreeSet<String>,
) -> Deps {
    let (mut std, mut third, mut internal) = (BTreeSet::new(), BTreeSet::new(), BTreeSet::new());
    for m in modules {
        match origin(m, project) {
            Origin::Stdlib => std.insert(m.to_string()),
            Origin::ThirdParty => third.insert(m.to_string()),
            Origin::Project => internal.insert(m.to_string()),
        };
    }
    Deps {
        stdlib: std.into_iter().collect(),
        third_party: third.into_iter().collect(),
        internal: internal.into_iter().collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lists_are_sorted_for_binary_search() {
        assert!(STDLIB.windows(2).all(|w| w[0] < w[1]));
        assert!(BUILTINS.windows(2).all(|w| w[0] < w[1]));
        assert!(is_stdlib("os") && is_stdlib("_collections_abc") && !is_stdlib("numpy"));
        assert!(is_builtin("len") && is_builtin("__file__") && !is_builtin("os"));
    }

    #[test]
    fn resolves_as_python_3_does() {
        let project: BTreeSet<String> = ["mypkg".into(), "logging".into()].into();
        let d = classify(
            ["os.path", "numpy", "mypkg.util", ".sibling", "logging"],
            &project,
        );
        // `import logging` in a package holding a `logging.py` is still the standard library's.
        assert_eq!(d.stdlib, ["logging", "os.path"]);
        assert_eq!(d.third_party, ["numpy"]);
        assert_eq!(d.internal, [".sibling", "mypkg.util"]);
        assert!(!d.stdlib_only());
        assert!(classify(["re"], &project).stdlib_only());
    }
}
