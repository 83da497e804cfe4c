use std::collections::BTreeSet;
use std::path::PathBuf;

use super::*;
use crate::corpus::extract::{FileResult, analyse_source, analyse_source_ruff};
use crate::corpus::walk::SourceFile;

fn analyse(src: &str, project: &[&str]) -> FileResult {
    let project: BTreeSet<String> = project.iter().map(|s| s.to_string()).collect();
    let file = SourceFile {
        abs: PathBuf::new(),
        path: "repo/pkg/mod.py".into(),
        repo: "repo".into(),
        size: 0,
        mtime_ns: 0,
    };
    analyse_source_ruff(file, String::new(), src, &project).expect("ruff parses it")
}

/// The module of class `qualname`, as `module_for` assembles it from a store.
fn module(r: &FileResult, qualname: &str) -> (String, Vec<String>, ClassClosure) {
    let row = r.classes.iter().find(|c| c.qualname == qualname).unwrap();
    let units: Vec<Unit> = r
        .units
        .iter()
        .filter(|u| row.closure.units.contains(&u.idx))
        .map(|u| {
            let mut u = u.clone();
            if let Some(id) = u.class_id {
                u.code = r.classes.iter().find(|c| c.id == id).unwrap().code.clone();
            }
            u
        })
        .collect();
    assert_eq!(
        units.len(),
        row.closure.units.len(),
        "every unit it needs is kept"
    );
    let (source, imports) = assemble(&row.code, row.closure.at, &units);
    (source, imports, row.closure.clone())
}

#[test]
fn an_assignment_before_the_imports_does_not_lose_them() {
    // bs4/dammit.py: `__license__ = "MIT"` above the imports.
    let src = "__license__ = \"MIT\"\n\nfrom typing import Dict, List\nimport re\nimport numpy as np\n\nclass EntitySubstitution(object):\n    CHARSET_RE = re.compile(\"x\")\n\n    def table(self) -> Dict[str, str]:\n        return {}\n";
    let r = analyse(src, &[]);
    let (source, imports, closure) = module(&r, "EntitySubstitution");
    assert_eq!(imports, ["from typing import Dict", "import re"]);
    assert_eq!(
        source,
        "from typing import Dict\nimport re\n\n\nclass EntitySubstitution(object):\n    CHARSET_RE = re.compile(\"x\")\n\n    def table(self) -> Dict[str, str]:\n        return {}\n"
    );
    // `numpy` is imported by the module but not used by the class: not a dependency.
    assert!(closure.reasons.is_empty(), "{:?}", closure.reasons);
    assert_eq!(closure.deps.stdlib, ["re", "typing"]);
}

#[test]
fn future_imports_come_first() {
    // docx/opc/package.py: `from __future__ import …` must stay the module's first statement.
    let src = "\"\"\"Doc.\"\"\"\n\nfrom __future__ import annotations\n\nfrom typing import IO\n\nclass Unmarshaller:\n    @staticmethod\n    def unmarshal(reader: IO) -> None:\n        pass\n";
    let r = analyse(src, &[]);
    let (source, imports, _) = module(&r, "Unmarshaller");
    assert!(
        source.starts_with("from __future__ import annotations\nfrom typing import IO\n"),
        "{source}"
    );
    assert_eq!(imports[0], "from __future__ import annotations");
}

#[test]
fn module_level_names_are_carried_transitively_in_source_order() {
    let src = "import os\nimport json\n\nLIMIT = 10\nUNUSED = 3\n\ndef _norm(p):\n    return os.path.normpath(p)[:LIMIT]\n\nclass Base:\n    pass\n\nclass Store(Base):\n    def key(self, p):\n        return _norm(p) + SUFFIX\n\nSUFFIX = '.db'\n";
    let r = analyse(src, &[]);
    let (source, _, closure) = module(&r, "Store");
    assert_eq!(
        source,
        "import os\n\n\nLIMIT = 10\n\n\ndef _norm(p):\n    return os.path.normpath(p)[:LIMIT]\n\n\nclass Base:\n    pass\n\n\nclass Store(Base):\n    def key(self, p):\n        return _norm(p) + SUFFIX\n\n\nSUFFIX = '.db'\n"
    );
    assert!(closure.reasons.is_empty());
    assert_eq!(closure.deps.stdlib, ["os"]);
}

#[test]
fn the_project_and_third_parties_are_reasons() {
    let src = "from .util import helper\nfrom pkg.core import Thing\nimport numpy as np\nimport logging\n\nclass A:\n    def f(self):\n        import yaml\n        return helper(np.zeros(1), Thing, logging)\n";
    let r = analyse(src, &["pkg", "logging"]);
    let (_, _, c) = module(&r, "A");
    assert_eq!(c.deps.internal, [".util", "pkg.core"]);
    assert_eq!(c.deps.third_party, ["numpy", "yaml"]);
    // `import logging` is the standard library's even in a project that has a `logging`.
    assert_eq!(c.deps.stdlib, ["logging"]);
    assert_eq!(
        c.blockers,
        [
            "project: pkg",
            "project: relative import",
            "third-party: numpy",
            "third-party: yaml"
        ]
    );
    assert_eq!(c.reasons.len(), 4);
}

#[test]
fn optional_imports_and_type_checking_imports_do_not_block() {
    let src = "from typing import TYPE_CHECKING\ntry:\n    import simplejson as json\nexcept ImportError:\n    import json\nif TYPE_CHECKING:\n    from .other import Other\n\nclass A:\n    def f(self, o: 'Other') -> str:\n        return json.dumps(o)\n";
    let r = analyse(src, &[]);
    let (source, _, c) = module(&r, "A");
    assert!(c.reasons.is_empty(), "{:?}", c.reasons);
    assert!(
        source.contains("except ImportError:\n    import json"),
        "{source}"
    );
}

#[test]
fn names_nobody_defines_are_reasons_unless_a_star_import_may() {
    let src =
        "def outer():\n    local = 1\n    class Inner:\n        X = local\n    return Inner\n";
    let r = analyse(src, &[]);
    let (_, _, c) = module(&r, "outer.Inner");
    assert_eq!(c.blockers, ["unresolved name"]);
    let star =
        "from os.path import *\n\nclass A:\n    def f(self):\n        return join('a', 'b')\n";
    let r = analyse(star, &[]);
    let (source, _, c) = module(&r, "A");
    assert!(c.reasons.is_empty() && source.starts_with("from os.path import *\n"));
}

#[test]
fn a_helper_that_names_the_class_does_not_repeat_it() {
    let src = "class Node:\n    def copy(self):\n        return make()\n\ndef make():\n    return Node()\n";
    let r = analyse(src, &[]);
    let (source, _, _) = module(&r, "Node");
    assert_eq!(source.matches("class Node").count(), 1, "{source}");
    assert!(source.ends_with("def make():\n    return Node()\n"));
}

#[test]
fn a_file_only_tree_sitter_reads_has_no_closure() {
    let file = SourceFile {
        abs: PathBuf::new(),
        path: "m.py".into(),
        repo: "r".into(),
        size: 0,
        mtime_ns: 0,
    };
    let r = analyse_source(
        file,
        String::new(),
        "print 'py2'\n\nclass A:\n    pass\n",
        &BTreeSet::new(),
    );
    assert_eq!(r.classes.len(), 1);
    assert_eq!(r.classes[0].closure.blockers, [BLOCKER_UNPARSED]);
    assert!(r.units.is_empty());
}
