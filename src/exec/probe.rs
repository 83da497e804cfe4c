//! Optional instrumentation of a suite run, for `classlab validate`: which methods of the class
//! under test each test invokes (`sys.setprofile` around each unittest test), the files each
//! test leaves in the work dir and the files there at the end, and line coverage of the code
//! files (coverage.py inside the sandbox, when importable). The harness sends `probe` records
//! over the authenticated result channel; nothing here changes a test's outcome.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use serde_json::{Value, json};

use super::spec::SuiteSpec;

/// What to record while a suite runs.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Probe {
    /// Record, per unittest test, which methods of this class (looked up by name in the code
    /// and test modules) it invokes, setUp and tearDown included.
    pub trace_class: Option<String>,
    /// Measure line coverage of the suite's code files.
    pub coverage: bool,
    /// List the work dir's files before and after each unittest test and at the end.
    pub list_files: bool,
}

impl Probe {
    /// Everything: calls of `class`, files, coverage.
    pub fn all(class: &str) -> Probe {
        Probe {
            trace_class: Some(class.to_string()),
            coverage: true,
            list_files: true,
        }
    }

    /// The `probe` object of the harness spec.
    pub(crate) fn harness_json(&self, spec: &SuiteSpec) -> Value {
        let mut files: Vec<&str> = spec.code.iter().map(|c| c.file.as_str()).collect();
        files.dedup();
        json!({
            "trace_class": self.trace_class,
            "coverage": if self.coverage { files } else { Vec::new() },
            "list_files": self.list_files,
        })
    }
}

/// Lines of one code file: the executable statements and those that ran (1-based).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct FileCoverage {
    pub file: String,
    pub statements: BTreeSet<usize>,
    pub executed: BTreeSet<usize>,
}

/// What the probe recorded.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ProbeReport {
    /// Per test id: the methods of the traced class the test invoked itself (from code
    /// outside the class: the test, its set-up, helpers).
    pub calls: BTreeMap<String, BTreeSet<String>>,
    /// Per test id: every method of the traced class that ran, also through other methods.
    pub reached: BTreeMap<String, BTreeSet<String>>,
    /// Per test id: work-dir files present after the test that were not there before it
    /// (empty directories end with `/`).
    pub created: BTreeMap<String, Vec<String>>,
    /// The work dir's files when the suite ended (`None`: not asked, or the run died first).
    pub final_files: Option<Vec<String>>,
    /// Coverage of each measured file that was imported.
    pub coverage: Vec<FileCoverage>,
    /// Why there is no coverage (coverage.py not importable …).
    pub coverage_error: Option<String>,
    /// The harness sent its final probe record (the suite ran to its end).
    pub complete: bool,
}

fn strings(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

fn lines(v: Option<&Value>) -> BTreeSet<usize> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_u64().and_then(|n| usize::try_from(n).ok()))
                .collect()
        })
        .unwrap_or_default()
}

impl ProbeReport {
    /// From the `probe` records of a run, in order.
    pub(crate) fn from_records<'a>(records: impl IntoIterator<Item = &'a Value>) -> ProbeReport {
        let mut r = ProbeReport::default();
        for v in records {
            if v.get("final").and_then(Value::as_bool) == Some(true) {
                r.complete = true;
                if v.get("files").is_some() {
                    r.final_files = Some(strings(v.get("files")));
                }
                if let Some(list) = v.get("coverage").and_then(Value::as_array) {
                    r.coverage = list
                        .iter()
                        .filter_map(|f| {
                            Some(FileCoverage {
                                file: f.get("file")?.as_str()?.to_string(),
                                statements: lines(f.get("statements")),
                                executed: lines(f.get("executed")),
                            })
                        })
                        .collect();
                }
                r.coverage_error = v
                    .get("coverage_error")
                    .and_then(Value::as_str)
                    .map(String::from);
                continue;
            }
            let Some(id) = v.get("id").and_then(Value::as_str) else {
                continue;
            };
            if v.get("calls").is_some() {
                r.calls
                    .entry(id.to_string())
                    .or_default()
                    .extend(strings(v.get("calls")));
            }
            if v.get("reached").is_some() {
                r.reached
                    .entry(id.to_string())
                    .or_default()
                    .extend(strings(v.get("reached")));
            }
            let files = strings(v.get("files"));
            if !files.is_empty() {
                r.created.entry(id.to_string()).or_default().extend(files);
            }
        }
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_become_a_report() {
        let recs = [
            json!({"id": "T.test_a", "calls": ["add", "get"], "reached": ["add", "get", "norm"],
                   "files": []}),
            json!({"id": "T.test_b", "calls": [], "files": ["out.txt", "d/"]}),
            json!({"final": true, "files": ["out.txt", "test_classeval.py"],
                   "coverage": [{"file": "test_classeval.py", "statements": [1, 2, 5],
                                 "executed": [1, 2]}]}),
        ];
        let r = ProbeReport::from_records(&recs);
        assert!(r.complete);
        assert_eq!(r.calls["T.test_a"].len(), 2);
        assert!(r.calls["T.test_b"].is_empty());
        assert_eq!(r.reached["T.test_a"].len(), 3);
        assert_eq!(r.created["T.test_b"], ["out.txt", "d/"]);
        assert!(!r.created.contains_key("T.test_a"));
        assert_eq!(r.final_files.as_deref().map(<[String]>::len), Some(2));
        assert_eq!(r.coverage[0].executed, BTreeSet::from([1, 2]));
        assert_eq!(r.coverage_error, None);
    }

    #[test]
    fn garbage_is_ignored() {
        let recs = [
            json!({"calls": ["x"]}),
            json!({"id": 3}),
            json!({"final": true, "coverage": [{"statements": [1]}], "coverage_error": "no"}),
        ];
        let r = ProbeReport::from_records(&recs);
        assert!(r.calls.is_empty() && r.coverage.is_empty());
        assert_eq!(r.final_files, None);
        assert_eq!(r.coverage_error.as_deref(), Some("no"));
    }
}
