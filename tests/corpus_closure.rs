//! Exported classes run as they ran in their repository (issue 21, items 2 and 5).
//!
//! The property: every class of the Python stdlib and of the shared RealClassEval classes,
//! written as its module (`closure::module_for`) and compiled alone, compiles (unless the class
//! cannot stand alone: its own module does not compile, or it assigns a variable of an
//! enclosing function); and the module of every self-contained one imports — executed in the
//! sandbox, one fork per module — and defines the class. By default a deterministic sample of
//! the stdlib (every 8th class); `CORPUS_CLOSURE_ALL=1` checks all of it.

mod corpus_common;

use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

use classlab::corpus::closure::{ClassModule, module_for};
use classlab::corpus::{BuildOptions, Filter, Quiet, Sort, Store, build};
use classlab::exec::{Limits, Sandbox, SandboxOptions, SuiteSpec};
use classlab::model::results::Outcome;
use corpus_common::{stdlib, write, write_shared_realclasseval};

fn sandbox() -> &'static Sandbox {
    static SB: OnceLock<Sandbox> = OnceLock::new();
    SB.get_or_init(|| {
        Sandbox::with_options(SandboxOptions {
            warm: true,
            ..SandboxOptions::default()
        })
        .expect("sandbox available")
    })
}

/// Every class of a store as its module.
fn modules(db: &Path, every: usize) -> Vec<ClassModule> {
    let store = Store::open(db).unwrap();
    let mut ids = Vec::new();
    store
        .for_each_line(&Filter::all(), &Sort::default(), 0, None, |l| {
            ids.push(l.id);
            Ok(())
        })
        .unwrap();
    ids.iter()
        .step_by(every)
        .map(|id| module_for(&store, *id).unwrap())
        .collect()
}

/// Compile each source with the project's Python (nothing runs): the names of those that do
/// not compile, with the error.
fn compile_failures(sources: &[(String, String)]) -> Vec<String> {
    const CHECK: &str = "import json, sys, warnings\nwarnings.simplefilter('ignore')\nfor line in sys.stdin:\n    name, src = json.loads(line)\n    try:\n        compile(src, name, 'exec', dont_inherit=True)\n    except (SyntaxError, ValueError) as e:\n        print(json.dumps(name + ': ' + str(e)))\n";
    let mut child = Command::new("python3")
        .args(["-I", "-c", CHECK])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 on PATH");
    {
        let mut stdin = child.stdin.take().unwrap();
        for pair in sources {
            serde_json::to_writer(&mut stdin, pair).unwrap();
            stdin.write_all(b"\n").unwrap();
        }
    }
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<String>(l).unwrap())
        .collect()
}

/// A suite importing each module in a child of its own (a module's top level cannot disturb the
/// next one): those that failed, with the error. `original` names a class's own module (by its
/// path in the store): when that does not import here either, the failure is marked
/// `EXCUSED:`.
fn import_failures(batch: &[&ClassModule], original: Option<fn(&str) -> String>) -> Vec<String> {
    let mut files = Vec::new();
    let mut tests = String::from(
        "import os, sys, signal, importlib, unittest\nsys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))\n\n\ndef _try(name, cls):\n    r, w = os.pipe()\n    pid = os.fork()\n    if pid == 0:\n        os.close(r)\n        try:\n            signal.alarm(10)\n            m = importlib.import_module(name)\n            if cls:\n                assert isinstance(getattr(m, cls), type), cls + ' is not a class'\n            os._exit(0)\n        except BaseException as e:\n            os.write(w, (type(e).__name__ + ': ' + str(e))[:500].encode())\n            os._exit(1)\n    os.close(w)\n    msg = os.read(r, 600).decode(errors='replace')\n    os.close(r)\n    _, status = os.waitpid(pid, 0)\n    return None if status == 0 else (msg or 'status %d' % status)\n\n\ndef _imports(name, cls, original):\n    err = _try(name, cls)\n    if err is None:\n        return\n    # Its own module does not import here either (a Windows-only module, a stdlib package\n    # this interpreter replaces): the environment's doing, not the closure's.\n    if original and _try(original, '') is not None:\n        raise AssertionError('EXCUSED: ' + err)\n    raise AssertionError(err)\n\n\nclass Imports(unittest.TestCase):\n",
    );
    let mut expected = Vec::new();
    for (i, m) in batch.iter().enumerate() {
        let name = format!("m{i}");
        files.push((format!("{name}.py"), m.source.clone()));
        tests.push_str(&format!(
            "    def test_{i}(self):\n        _imports({name:?}, {:?}, {:?})\n\n",
            m.class_name,
            original.map(|f| f(&m.path)).unwrap_or_default()
        ));
        expected.push(format!("Imports.test_{i}"));
    }
    files.push(("test_imports.py".into(), tests));
    let spec = SuiteSpec {
        files,
        kind: classlab::exec::SuiteKind::Unittest {
            module: "test_imports".into(),
        },
        code_modules: Vec::new(),
        code: Vec::new(),
        expected,
        allowed_skips: Vec::new(),
        limits: Limits {
            wall: Duration::from_secs(300),
            cpu: Duration::from_secs(240),
            memory_bytes: 2 << 30,
            disk_bytes: 256 << 20,
            ..Limits::default()
        },
        hash_seed: None,
        harness: classlab::exec::Harness::Inproc,
        globals_module: None,
    };
    let r = sandbox().run(&spec);
    assert_eq!(r.failure, None, "{:?}", r.failure);
    r.tests
        .iter()
        .filter(|t| t.outcome != Outcome::Pass)
        .map(|t| {
            let i: usize = t.id.trim_start_matches("Imports.test_").parse().unwrap();
            format!(
                "{} {}: {}",
                batch[i].path,
                batch[i].qualname,
                t.message.clone().unwrap_or_default()
            )
        })
        .collect()
}

/// The property over one store: standalone modules compile, self-contained ones import.
fn check(db: &Path, every: usize, original: Option<fn(&str) -> String>) -> (usize, usize) {
    let all = modules(db, every);
    let standalone: Vec<&ClassModule> = all.iter().filter(|m| m.standalone).collect();
    let sources: Vec<(String, String)> = standalone
        .iter()
        .map(|m| (format!("{} {}", m.path, m.qualname), m.source.clone()))
        .collect();
    let bad = compile_failures(&sources);
    assert!(
        bad.is_empty(),
        "{} of {} do not compile:\n{}",
        bad.len(),
        sources.len(),
        bad.join("\n")
    );
    let contained: Vec<&ClassModule> = standalone
        .into_iter()
        .filter(|m| m.self_contained())
        .collect();
    let mut failed = Vec::new();
    for batch in contained.chunks(300) {
        failed.extend(import_failures(batch, original));
    }
    let (excused, failed): (Vec<String>, Vec<String>) =
        failed.into_iter().partition(|f| f.contains(": EXCUSED: "));
    eprintln!(
        "{} modules fail to import as their own module does in this environment:\n{}",
        excused.len(),
        excused.join("\n")
    );
    assert!(
        failed.is_empty(),
        "{} of {} self-contained modules do not import:\n{}",
        failed.len(),
        contained.len(),
        failed.join("\n")
    );
    (sources.len(), contained.len())
}

/// `email/mime/text.py` → `email.mime.text`; `json/__init__.py` → `json`.
fn stdlib_module(path: &str) -> String {
    let p = path.strip_suffix(".py").unwrap_or(path);
    let p = p.strip_suffix("/__init__").unwrap_or(p);
    p.replace('/', ".")
}

#[test]
fn every_stdlib_class_compiles_alone_and_the_self_contained_ones_import() {
    let Some(lib) = stdlib() else {
        eprintln!("skipped: no Python standard library found");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("std.db");
    let opts = BuildOptions {
        exclude: vec!["site-packages".into(), "__pycache__".into()],
        ..BuildOptions::new(vec![lib], db.clone())
    };
    build(&opts, &Quiet).unwrap();
    let every = if std::env::var_os("CORPUS_CLOSURE_ALL").is_some() {
        1
    } else {
        8
    };
    let (compiled, imported) = check(&db, every, Some(stdlib_module));
    eprintln!(
        "stdlib (every {every}th class): {compiled} compile alone, {imported} self-contained import"
    );
    assert!(compiled > 1000 / every && imported > 500 / every);
}

#[test]
fn every_shared_realclasseval_class_compiles_alone_and_the_self_contained_ones_import() {
    let dir = tempfile::tempdir().unwrap();
    let tree = dir.path().join("rce");
    assert_eq!(write_shared_realclasseval(&tree), 24);
    let db = dir.path().join("rce.db");
    build(&BuildOptions::new(vec![tree], db.clone()), &Quiet).unwrap();
    let (compiled, _) = check(&db, 1, None);
    assert!(compiled >= 24, "{compiled}");
}

/// The two cases, exported and opened as a dataset: `bs4/dammit.py` (an assignment
/// before the imports) and `docx/opc/package.py` (`from __future__` first).
#[test]
fn exported_solutions_carry_their_imports_and_names() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path().join("site");
    write(
        &r.join("bs4/dammit.py"),
        b"__license__ = \"MIT\"\n\nfrom html.entities import codepoint2name\nfrom typing import Dict, Optional\nimport re\ntry:\n    import chardet\nexcept ImportError:\n    chardet = None\n\n\ndef _chardet_dammit(s):\n    return None\n\n\nclass EntitySubstitution(object):\n    \"\"\"Substitute XML or HTML entities.\"\"\"\n\n    CHARACTER_TO_HTML_ENTITY: Dict[str, str] = {}\n\n    def _populate_class_variables(self) -> Optional[str]:\n        \"\"\"Doc.\"\"\"\n        return codepoint2name.get(39) or _chardet_dammit(re.escape('x'))\n",
    );
    write(
        &r.join("docx/opc/package.py"),
        b"\"\"\"Objects that implement reading and writing OPC packages.\"\"\"\n\nfrom __future__ import annotations\n\nfrom typing import IO, TYPE_CHECKING, Iterator\n\nif TYPE_CHECKING:\n    from docx.opc.part import Part\n\n\nclass Unmarshaller:\n    \"\"\"Hosts static methods for unmarshalling a package.\"\"\"\n\n    @staticmethod\n    def unmarshal(pkg_reader: IO[bytes], package: 'Part') -> Iterator[str]:\n        \"\"\"Doc.\"\"\"\n        return iter(())\n",
    );
    let db = dir.path().join("c.db");
    build(&BuildOptions::new(vec![r], db.clone()), &Quiet).unwrap();
    let store = Store::open(&db).unwrap();
    let out = dir.path().join("export");
    classlab::corpus::export::export(
        &store,
        &Filter::all(),
        None,
        &out,
        classlab::corpus::export::ExportFormat::Classlab,
        false,
    )
    .unwrap();
    let ds = classlab::dataset::load(Some(&out.join("dataset.json"))).unwrap();
    let task = |name: &str| ds.tasks.iter().find(|t| t.class_name == name).unwrap();
    let dammit = task("EntitySubstitution");
    assert!(
        dammit.solution.starts_with(
            "from html.entities import codepoint2name\nfrom typing import Dict, Optional\nimport re\n\n\ndef _chardet_dammit(s):\n"
        ),
        "{}",
        dammit.solution
    );
    // The module's other imports (`chardet`, unused by the class) stay behind.
    assert!(!dammit.solution.contains("chardet\n"));
    let docx = task("Unmarshaller");
    assert!(
        docx.solution
            .starts_with("from __future__ import annotations\nfrom typing import IO, "),
        "{}",
        docx.solution
    );
    let modules: Vec<ClassModule> = modules(&db, 1);
    let refs: Vec<&ClassModule> = modules.iter().collect();
    assert!(
        refs.iter().all(|m| m.self_contained()),
        "{:?}",
        refs.iter().map(|m| &m.reasons).collect::<Vec<_>>()
    );
    let failed = import_failures(&refs, None);
    assert!(failed.is_empty(), "{failed:?}");
}
