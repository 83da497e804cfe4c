//! Reading a store: the filter language, pages sorted by a metric, full-text search, the
//! histogram, duplicate clusters (what the corpus browser needs), `corpus query` JSON Lines,
//! and `corpus export` opened again as a dataset.

mod corpus_common;

use std::path::{Path, PathBuf};
use std::process::Command;

use classlab::corpus::{BuildOptions, Filter, Quiet, Sort, Store, build};
use corpus_common::{stdlib, write};

const CACHE: &str = "import functools\n\nclass LruCache:\n    \"\"\"A small cache.\"\"\"\n\n    def __init__(self, size):\n        \"\"\"Make it.\"\"\"\n        self.size = size\n        self.data = {}\n\n    def get(self, key):\n        \"\"\"Get a key.\"\"\"\n        if key in self.data:\n            return self.data[key]\n        return None\n\n    def put(self, key, value):\n        \"\"\"Put a key.\"\"\"\n        if len(self.data) >= self.size:\n            self.evict()\n        self.data[key] = value\n\n    def evict(self):\n        \"\"\"Drop the oldest key.\"\"\"\n        for k in list(self.data):\n            del self.data[k]\n            break\n";

/// Properties and `@overload` stubs: one method per name.
const PROPS: &str = "from typing import overload\n\nclass Box:\n    @property\n    def size(self):\n        return self._s\n\n    @size.setter\n    def size(self, v):\n        self._s = v\n\n    @size.deleter\n    def size(self):\n        del self._s\n\n    @overload\n    def get(self, k: int) -> int: ...\n    @overload\n    def get(self, k: str) -> str: ...\n    def get(self, k):\n        return k\n\n    def clear(self):\n        pass\n";

/// A tree with exact and near duplicates across repositories, plus real stdlib modules.
fn corpus(dir: &Path) -> PathBuf {
    let r = dir.join("tree");
    write(&r.join("alpha/cache.py"), CACHE.as_bytes());
    write(
        &r.join("alpha/sub.py"),
        b"from .cache import LruCache\n\nclass Sub(LruCache):\n    def extra(self):\n        return 1\n",
    );
    write(
        &r.join("beta/copy_of_cache.py"),
        format!("# a copy\n{CACHE}").as_bytes(),
    );
    let near = CACHE.replace("break", "break\n        return None");
    write(&r.join("gamma/near.py"), near.as_bytes());
    write(&r.join("epsilon/props.py"), PROPS.as_bytes());
    write(
        &r.join("delta/uses_numpy.py"),
        b"import numpy as np\n\nclass Arr:\n    \"\"\"Doc.\"\"\"\n\n    def f(self):\n        \"\"\"F.\"\"\"\n        return np.zeros(3)\n",
    );
    let mut roots = vec![r];
    if let Some(lib) = stdlib() {
        roots.push(lib.join("json"));
        roots.push(lib.join("email").join("headerregistry.py"));
    }
    let out = dir.join("c.db");
    build(&BuildOptions::new(roots, out.clone()), &Quiet).unwrap();
    out
}

fn lines(store: &Store, filter: &str, sort: Sort) -> Vec<classlab::corpus::ClassLine> {
    let mut out = Vec::new();
    store
        .for_each_line(&Filter::parse(filter).unwrap(), &sort, 0, None, |l| {
            out.push(l);
            Ok(())
        })
        .unwrap();
    out
}

#[test]
fn the_browser_api() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&corpus(dir.path())).unwrap();
    let all = Filter::all();
    let n = store.count(&all).unwrap();
    assert!(n >= 4, "{n}");

    // Exact duplicates (a comment apart) share a cluster; the first in path order is unique.
    let caches = lines(&store, "name=\"LruCache\"", Sort::default());
    assert_eq!(caches.len(), 3);
    assert_eq!(caches[0].repo, "alpha");
    assert_eq!(caches[0].dup_cluster, Some(caches[0].id));
    assert_eq!(caches[1].dup_cluster, Some(caches[0].id));
    assert_eq!(caches[2].dup_cluster, None);
    // The edited copy is a near duplicate of the first.
    assert_eq!(caches[2].near_dup_cluster, Some(caches[0].id));
    let clusters = store.clusters(caches[1].id).unwrap();
    assert_eq!(clusters.exact, [caches[0].id, caches[1].id]);
    assert_eq!(clusters.near.len(), 3);
    let unique = lines(&store, "name=\"LruCache\" and unique", Sort::default());
    assert_eq!(unique.len(), 1);

    // Metrics, edges, methods and dependencies as the issue lists them.
    let c = &caches[0];
    assert_eq!(c.methods, ["__init__", "get", "put", "evict"]);
    assert_eq!(c.edges, serde_json::json!([["put", "evict"]]));
    assert_eq!(c.metrics["CountDeclMethod"], 4);
    assert_eq!(c.metrics["CountDeclInstanceVariable"], 2);
    assert_eq!(c.total_program_units, 5);
    assert_eq!(c.total_doc_str, 5);
    // Subclasses are counted across the repository (Sub is in another file of alpha).
    assert_eq!(c.metrics["CountClassDerived"], 1);
    assert_eq!(caches[1].metrics["CountClassDerived"], 0);
    // `functools` is imported but unused by the class: not a dependency.
    assert!(c.self_contained);
    let arr = lines(&store, "name=\"Arr\"", Sort::default());
    assert_eq!(arr[0].deps["third_party"], serde_json::json!(["numpy"]));
    assert!(!arr[0].self_contained);

    // Filters: the example, full-text search, and the sort by a metric.
    let hits = lines(
        &store,
        "CountDeclMethod>=3 and SumCyclomatic<40 and doc>=0.8 and unique and self_contained and text:\"oldest key\"",
        Sort::default(),
    );
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].id, c.id);
    let sorted = lines(
        &store,
        "",
        Sort {
            column: Some("CountLine".into()),
            descending: true,
        },
    );
    let values: Vec<f64> = sorted
        .iter()
        .map(|l| l.metrics["CountLine"].as_f64().unwrap())
        .collect();
    assert!(values.windows(2).all(|w| w[0] >= w[1]));
    // Pages are slices of the same order.
    let page = store
        .page_ids(
            &all,
            &Sort {
                column: Some("CountLine".into()),
                descending: true,
            },
            1,
            2,
        )
        .unwrap();
    assert_eq!(page, [sorted[1].id, sorted[2].id]);
    assert!(
        store
            .page_ids(
                &all,
                &Sort {
                    column: Some("nope".into()),
                    descending: false
                },
                0,
                1
            )
            .is_err()
    );

    // The histogram of a metric over a filtered set counts every class once.
    let f = Filter::parse("methods>=1").unwrap();
    let h = store.histogram(&f, "SumCyclomatic", 8).unwrap();
    assert_eq!(h.counts.iter().sum::<u64>(), store.count(&f).unwrap());
    assert_eq!(h.counts.len(), 8);

    let funnel = store.funnel().unwrap();
    assert_eq!(funnel.classes, n);
    assert!(funnel.dropped.get("duplicate").copied().unwrap_or(0) >= 1);
}

fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_classlab"))
}

#[test]
fn query_prints_json_lines_with_the_documented_fields() {
    let dir = tempfile::tempdir().unwrap();
    let db = corpus(dir.path());
    let out = Command::new(bin())
        .args(["--json", "corpus", "query"])
        .arg(&db)
        .args(["methods>=1", "--limit", "2"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 2);
    let keys: Vec<&str> = rows[0]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "id",
            "repo",
            "path",
            "qualname",
            "class",
            "line",
            "end_line",
            "methods",
            "edges",
            "metrics",
            "total_program_units",
            "total_doc_str",
            "self_contained",
            "deps",
            "blockers",
            "dup_cluster",
            "near_dup_cluster"
        ]
    );
    assert_eq!(rows[0]["metrics"].as_object().unwrap().len(), 27);
    // A bad filter points at its character and fails.
    let bad = Command::new(bin())
        .args(["corpus", "query"])
        .arg(&db)
        .arg("CountLine>=1 and Bogus<2")
        .output()
        .unwrap();
    assert!(!bad.status.success());
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(
        err.contains("unknown field `Bogus` at character 18"),
        "{err}"
    );
    assert!(err.contains("                   ^"), "{err}");
}

#[test]
fn an_export_opens_as_a_dataset() {
    let dir = tempfile::tempdir().unwrap();
    let db = corpus(dir.path());
    let store = Store::open(&db).unwrap();
    let filter = Filter::parse("methods>=1 and unique").unwrap();
    let want = store.count(&filter).unwrap();
    let csv_dir = dir.path().join("rce");
    let n = classlab::corpus::export::export(
        &store,
        &filter,
        None,
        &csv_dir,
        classlab::corpus::export::ExportFormat::Realclasseval,
        false,
    )
    .unwrap()
    .classes;
    assert_eq!(n, want);
    let ds = classlab::dataset::load(Some(&csv_dir)).unwrap();
    assert_eq!(ds.tasks.len() as u64, want);
    assert!(ds.tasks.iter().any(|t| t.class_name == "LruCache"));
    let json_dir = dir.path().join("cl");
    classlab::corpus::export::export(
        &store,
        &filter,
        None,
        &json_dir,
        classlab::corpus::export::ExportFormat::Classlab,
        false,
    )
    .unwrap();
    let ds = classlab::dataset::load(Some(&json_dir.join("dataset.json"))).unwrap();
    assert_eq!(ds.tasks.len() as u64, want);
    let t = ds
        .tasks
        .iter()
        .find(|t| t.class_name == "LruCache")
        .unwrap();
    assert_eq!(
        t.methods
            .iter()
            .map(|m| m.name.as_str())
            .collect::<Vec<_>>(),
        ["get", "put", "evict"]
    );
}

fn query_json(db: &Path, args: &[&str]) -> Vec<serde_json::Value> {
    let out = Command::new(bin())
        .args(["--json", "corpus", "query"])
        .arg(db)
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn query_count(db: &Path, filter: &str) -> u64 {
    let out = Command::new(bin())
        .args(["corpus", "query", "--count"])
        .arg(db)
        .arg(filter)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

#[test]
fn ids_are_strings_in_json_and_filters_match_them_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let db = corpus(dir.path());
    let rows = query_json(&db, &[]);
    // Class ids use 63 bits: nearly all are above 2^53, where a JSON number is rounded.
    let big: Vec<&str> = rows
        .iter()
        .map(|r| r["id"].as_str().expect("the id is a string"))
        .filter(|id| id.parse::<u64>().unwrap() > 1u64 << 53)
        .collect();
    assert!(!big.is_empty());
    for id in big.iter().take(5) {
        assert_eq!(query_count(&db, &format!("id={id}")), 1, "id={id}");
        assert_eq!(query_count(&db, &format!("id=\"{id}\"")), 1, "id=\"{id}\"");
        let one = query_json(&db, &[&format!("id={id}")]);
        assert_eq!(one[0]["id"], serde_json::json!(id));
    }
    for r in &rows {
        for k in ["dup_cluster", "near_dup_cluster"] {
            assert!(r[k].is_null() || r[k].is_string(), "{k}: {}", r[k]);
        }
    }
}

#[test]
fn one_method_count_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let db = corpus(dir.path());
    let rows = query_json(&db, &["name=\"Box\""]);
    assert_eq!(rows.len(), 1);
    // A property's getter, setter and deleter are one method; three `get`s (two stubs) one.
    assert_eq!(
        rows[0]["methods"],
        serde_json::json!(["size", "get", "clear"])
    );
    assert_eq!(rows[0]["metrics"]["CountDeclMethod"], 3);
    assert_eq!(query_count(&db, "name=\"Box\" and methods=3"), 1);
    assert_eq!(query_count(&db, "name=\"Box\" and methods>=4"), 0);
    // For every class, `methods` lists as many names as `CountDeclMethod` counts.
    for r in query_json(&db, &[]) {
        assert_eq!(
            r["methods"].as_array().unwrap().len() as u64,
            r["metrics"]["CountDeclMethod"].as_u64().unwrap(),
            "{}",
            r["qualname"]
        );
    }
}
