//! The two corpus front ends — ruff's parser (bulk builds) and tree-sitter (the fallback for
//! files ruff rejects, and what the TUI uses) — must store the same rows: every field of every
//! class (qualified name, span, code, skeleton, docstrings, methods with signatures, edges,
//! imports and module names used, the 27 metrics, the token fingerprint).
//! Compared on every ClassEval task (solution, skeleton and test module), the 24 shared
//! RealClassEval classes, hand-made fixtures and a sample of the machine's Python stdlib
//! (`CORPUS_FRONTENDS_ALL=1`: all of it).

mod corpus_common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use classlab::corpus::extract::{FileResult, analyse_source_ruff, analyse_source_tree_sitter};
use classlab::corpus::walk::SourceFile;

fn shared(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/data")
        .join(rel)
}

fn file(name: &str) -> SourceFile {
    SourceFile {
        abs: PathBuf::new(),
        path: name.to_string(),
        repo: "repo".into(),
        size: 0,
        mtime_ns: 0,
    }
}

/// Every stored field, as text (floats exactly), but the executable closure: ruff's front end
/// computes it, while tree-sitter only reads files Python 3 cannot parse, whose classes have no
/// closure by definition (`closure.rs`).
fn render(r: &FileResult) -> String {
    let mut classes = r.classes.clone();
    for c in &mut classes {
        c.closure = Default::default();
    }
    format!("{classes:#?}")
}

enum Outcome {
    /// Both front ends agree on this many classes.
    Same(usize),
    /// Ruff rejects the file (the build uses tree-sitter for it: nothing to compare).
    RuffRejects,
    /// Tree-sitter finds a syntax error ruff does not (the front ends differ by design).
    TreeSitterErrors,
    /// Tree-sitter misreads valid code: `type(x).attr = …` at the start of a statement
    /// parses as a `type` alias statement (its `type` is then no name).
    TreeSitterMisreads,
    Differs(String),
}

fn compare(name: &str, source: &str) -> Outcome {
    let project = BTreeSet::new();
    let ts = analyse_source_tree_sitter(file(name), String::new(), source, &project);
    let Some(ruff) = analyse_source_ruff(file(name), String::new(), source, &project) else {
        return Outcome::RuffRejects;
    };
    if ts.syntax_errors {
        return Outcome::TreeSitterErrors;
    }
    let (a, b) = (render(&ts), render(&ruff));
    if a == b {
        return Outcome::Same(ts.classes.len());
    }
    if source.lines().any(|l| l.trim_start().starts_with("type(")) {
        return Outcome::TreeSitterMisreads;
    }
    let (la, lb): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    let at = la
        .iter()
        .zip(&lb)
        .position(|(x, y)| x != y)
        .unwrap_or(la.len().min(lb.len()));
    let from = at.saturating_sub(12);
    let ctx = |l: &[&str]| l[from.min(l.len())..(at + 3).min(l.len())].join("\n");
    Outcome::Differs(format!(
        "{name}: first difference at line {at}\n--- tree-sitter\n{}\n--- ruff\n{}",
        ctx(&la),
        ctx(&lb)
    ))
}

#[derive(Default)]
struct Tally {
    files: usize,
    classes: usize,
    ruff_rejects: Vec<String>,
    ts_errors: Vec<String>,
    misreads: Vec<String>,
    diffs: Vec<String>,
}

impl Tally {
    fn add(&mut self, name: &str, source: &str) {
        self.files += 1;
        match compare(name, source) {
            Outcome::Same(n) => self.classes += n,
            Outcome::RuffRejects => self.ruff_rejects.push(name.to_string()),
            Outcome::TreeSitterErrors => self.ts_errors.push(name.to_string()),
            Outcome::TreeSitterMisreads => self.misreads.push(name.to_string()),
            Outcome::Differs(d) => self.diffs.push(d),
        }
    }

    fn report(&self, what: &str) {
        println!(
            "{what}: {} files, {} classes identical, {} differing files, {} rejected by ruff, {} with tree-sitter-only errors",
            self.files,
            self.classes,
            self.diffs.len(),
            self.ruff_rejects.len(),
            self.ts_errors.len()
        );
        if !self.misreads.is_empty() {
            println!(
                "misread by tree-sitter (`type(x).a = …`): {:?}",
                self.misreads
            );
        }
        if !self.ruff_rejects.is_empty() {
            println!(
                "rejected by ruff (the build reads them with tree-sitter): {:?}",
                self.ruff_rejects
            );
        }
        for d in self.diffs.iter().take(3) {
            println!("{d}\n");
        }
    }
}

#[test]
fn identical_on_every_classeval_task() {
    let path = shared("classeval/ClassEval_data.json");
    if !path.exists() {
        eprintln!("skipped: {} not found", path.display());
        return;
    }
    let ds = classlab::dataset::load_path(&path).expect("ClassEval loads");
    assert!(ds.tasks.len() >= 100);
    let mut t = Tally::default();
    for task in &ds.tasks {
        let imports = task.imports.join("\n");
        t.add(
            &format!("{}/solution.py", task.id),
            &format!("{imports}\n{}", task.solution),
        );
        t.add(
            &format!("{}/skeleton.py", task.id),
            &format!("{imports}\n{}", task.skeleton),
        );
        t.add(&format!("{}/test.py", task.id), &task.test_module);
    }
    t.report("ClassEval");
    assert!(
        t.diffs.is_empty() && t.misreads.is_empty(),
        "front ends differ"
    );
    assert!(t.ts_errors.is_empty(), "{:?}", t.ts_errors);
    assert!(t.classes >= 400, "{} classes", t.classes);
}

#[test]
fn identical_on_the_shared_realclasseval_classes() {
    let root = shared("realclasseval");
    let mut t = Tally::default();
    for split in ["csn", "post_cut-off"] {
        let path = root.join(split).join("classes_full_docstr.csv");
        let Ok(mut reader) = csv::Reader::from_path(&path) else {
            eprintln!("skipped: {} not found", path.display());
            return;
        };
        let headers = reader.headers().unwrap().clone();
        let code = headers
            .iter()
            .position(|h| h == "human_written_code")
            .unwrap();
        let id = headers.iter().position(|h| h == "snippet_id").unwrap();
        for rec in reader.records() {
            let rec = rec.unwrap();
            t.add(&format!("{split}/{}.py", &rec[id]), &rec[code]);
        }
    }
    t.report("RealClassEval");
    assert_eq!(t.files, 24);
    assert!(
        t.diffs.is_empty() && t.misreads.is_empty(),
        "front ends differ"
    );
    assert!(t.ruff_rejects.is_empty(), "{:?}", t.ruff_rejects);
    assert!(t.ts_errors.is_empty(), "{:?}", t.ts_errors);
}

/// What tree-sitter does that ruff's AST does not say: trailing comments belong to the block
/// at whose indentation (or deeper) they sit, comments on a block's last line too, backslash
/// continuations are tokens, f-strings are one token, docstrings of any block are comments.
const FIXTURES: &[&str] = &[
    r#"@dec
class A(B, (C), metaclass=M, **kw):
    # lead
    """doc"""
    x = 1 if a not in b else c  # tail
    def f(self, a, b=1, *args, c: int = 2, **kw) -> int:
        '''m'''
        return f"x{a}{self.y!r:>{w}}" \
            + 'y' 'z'
    # trailing comment

    # trailing 2
# col0
x = 1
"#,
    r#"class A:
    def f(self):
        x = 1
        # c8
      # c6
    # c4
  # c2
    # c4b
    def g(self): return (yield from x) is not None
class B: pass  # t
class C:
    x = 1
        # deeper
def h():
    class D:
        async def m(self):
            await x; y = lambda q=1, *a: q if q else a
            global z
            match x:
                case [1, *rest] if rest: pass
                case {"k": v}: pass
            # inner
    # fn-level
"#,
    r#"class E:
    def f(self):
        if x:
            pass
            # c12
        elif y:
            pass
        else:
            pass
        # c8
    # c4
class F:
    pass
# c0
    # c4
class G(object):
    "one", 
    def s(self):
        ("not a docstring")
        try:
            import os.path as p
            from .. import q
            from .m import (r as s, t)
        except (KeyError, ValueError) as e:
            raise TypeError(str(e)) from e
        else:
            self.v = self.w = 1
        finally:
            del self.v
        for i, (j, k) in enumerate(z):
            with open(i) as fh, ctx() as (a, b):
                print(type(fh), file=fh)
        while False:
            break
        else:
            pass
        return [x for x in y if x], {k: v for k, v in z.items()}, Counter(), self.Inner()
    @staticmethod
    def t(a, /, b, *, c): ...
    @property
    def p(self):
        return self._G__p
    @p.setter
    def p(self, v):
        self.__p = v
    class Inner(G):
        '''Inner doc.'''
        def u(self, *, k=1) -> "G":
            return super().u() + G.t(1, 2, c=3)
"#,
    "class H:\r\n    def f(self):\r\n        return 1 + \\\r\n            2\r\n",
    "class I:\n\tdef f(self):\n\t\treturn 1\n\t# tab comment\n",
    "class J: x = 1; y = 2\n",
    "if True:\n    class K:\n        \"\"\"doc\"\"\" \"more\"\n        def f(self, x: int = 1): return x\nelse:\n    class K:\n        pass\n",
];

#[test]
fn identical_on_fixtures() {
    let mut t = Tally::default();
    for (i, src) in FIXTURES.iter().enumerate() {
        t.add(&format!("fixture{i}.py"), src);
    }
    t.report("fixtures");
    assert!(t.diffs.is_empty(), "front ends differ");
    assert!(t.ruff_rejects.is_empty(), "{:?}", t.ruff_rejects);
    assert!(t.ts_errors.is_empty(), "{:?}", t.ts_errors);
}

#[test]
fn identical_on_the_python_stdlib() {
    let Some(stdlib) = corpus_common::stdlib() else {
        eprintln!("skipped: no Python stdlib found");
        return;
    };
    let all = std::env::var_os("CORPUS_FRONTENDS_ALL").is_some();
    let mut paths: Vec<PathBuf> = walkdir::WalkDir::new(&stdlib)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| {
            e.path().extension().is_some_and(|x| x == "py")
                && !e
                    .path()
                    .components()
                    .any(|c| c.as_os_str() == "site-packages")
        })
        .map(|e| e.into_path())
        .collect();
    paths.sort();
    let step = if all { 1 } else { 15 };
    let mut t = Tally::default();
    for p in paths.iter().step_by(step) {
        let Ok(bytes) = std::fs::read(p) else {
            continue;
        };
        let Ok(source) = classlab::corpus::decode::decode(&bytes) else {
            continue;
        };
        let name = p.strip_prefix(&stdlib).unwrap_or(p).display().to_string();
        t.add(&name, &source);
    }
    t.report("stdlib");
    for d in &t.diffs {
        eprintln!("{}", d.lines().next().unwrap_or(""));
    }
    assert!(
        t.diffs.is_empty(),
        "front ends differ on {} files",
        t.diffs.len()
    );
}
