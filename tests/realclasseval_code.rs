//! Code reaches the sandbox as the benchmark meant it (issue 12, A3): RealClassEval's harness
//! writes the model's code to `snippet_N.py` as it is, so code that Python compiles as given
//! must still compile once classlab has prepared it. Checked over every shared RealClassEval
//! output (both slices, every model) and over the slices' human-written code, with the real
//! Python compiler.

mod common;

use std::io::Write;
use std::process::{Command, Stdio};

use classlab::dataset::outputs;
use classlab::pipeline::eval::{prepare, realclasseval_code};

/// Whether Python compiles each source (`compile(src, name, "exec")`), in one interpreter.
fn compiles(sources: &[String]) -> Vec<bool> {
    let probe = r#"
import json, sys, warnings
warnings.simplefilter("ignore")
ok = []
for src in json.load(sys.stdin):
    try:
        compile(src, "snippet.py", "exec")
        ok.append(True)
    except (SyntaxError, ValueError):
        ok.append(False)
print(json.dumps(ok))
"#;
    let mut child = Command::new("python3")
        .args(["-I", "-c", probe])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 on PATH");
    let input = serde_json::to_vec(sources).unwrap();
    child.stdin.take().unwrap().write_all(&input).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let ok: Vec<bool> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(ok.len(), sources.len());
    ok
}

/// The code a RealClassEval reply holds as given: the reply itself, or what stands between its
/// opening and closing fence lines.
fn as_given(text: &str) -> String {
    let lines: Vec<&str> = text.split('\n').collect();
    let Some(open) = lines.iter().position(|l| l.trim_start().starts_with("```")) else {
        return text.to_string();
    };
    let close = lines[open + 1..]
        .iter()
        .position(|l| l.trim() == "```")
        .map_or(lines.len(), |i| open + 1 + i);
    let mut code = lines[open + 1..close].join("\n");
    code.push('\n');
    code
}

#[test]
fn code_that_compiles_as_given_still_compiles_once_prepared() {
    let mut given = Vec::new();
    let mut prepared = Vec::new();
    let mut names = Vec::new();
    for slice in ["post_cut-off", "csn"] {
        let dir = common::shared_data(&format!("realclasseval/{slice}"));
        let ds = classlab::dataset::load(Some(&dir)).unwrap();
        // The real classes, as a model might answer them: fenced, and inside the blocks real
        // modules wrap classes in (compatibility fallbacks, guards) — code that compiles and
        // that ClassEval's re-indentation breaks.
        let mut replies = Vec::new();
        for task in &ds.tasks {
            let code = task.solution.trim_end();
            let indented: String = code
                .lines()
                .map(|l| {
                    if l.trim().is_empty() {
                        String::new()
                    } else {
                        format!("    {l}")
                    }
                })
                .collect::<Vec<_>>()
                .join("\n");
            let variants = [
                ("as-is", format!("{code}\n")),
                ("fenced", format!("```python\n{code}\n```\n")),
                (
                    "except-NameError",
                    format!("```python\ntry:\n    unicode\nexcept NameError:\n{indented}\n```\n"),
                ),
                ("if-guard", format!("```python\nif True:\n{indented}\n```")),
            ];
            for (what, text) in variants {
                replies.push(outputs::Sample {
                    task_id: task.id.clone(),
                    sample: replies.len() as u32,
                    text,
                    raw: true,
                });
                names.push(format!("{slice}/reference-{what}/{}", task.id));
            }
        }
        let outs = outputs::Outputs {
            file: "real-classes".into(),
            digest: String::new(),
            format: outputs::OutputsFormat::RealClassEval,
            model: None,
            strategy: None,
            samples: replies,
            problems: Vec::new(),
        };
        let (items, _) = prepare(&ds, &outs);
        assert_eq!(items.len(), outs.samples.len());
        for (item, sample) in items.iter().zip(&outs.samples) {
            given.push(as_given(&sample.text));
            prepared.push(item.code.clone());
        }
        let mut files: Vec<_> = std::fs::read_dir(dir.join("generated"))
            .unwrap()
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "csv"))
            .collect();
        files.sort();
        assert!(!files.is_empty());
        for file in files {
            let outs = outputs::load(&file, None).unwrap();
            let (items, problems) = prepare(&ds, &outs);
            assert!(problems.is_empty(), "{problems:?}");
            assert_eq!(items.len(), outs.samples.len());
            for (item, sample) in items.iter().zip(&outs.samples) {
                names.push(format!(
                    "{slice}/{}/{}",
                    file.file_stem().unwrap().to_string_lossy(),
                    sample.task_id
                ));
                given.push(as_given(&sample.text));
                prepared.push(item.code.clone());
            }
        }
    }
    let given_ok = compiles(&given);
    let prepared_ok = compiles(&prepared);
    let broken: Vec<&str> = names
        .iter()
        .zip(given_ok.iter().zip(&prepared_ok))
        .filter(|(_, (g, p))| **g && !**p)
        .map(|(n, _)| n.as_str())
        .collect();
    assert!(
        broken.is_empty(),
        "compiles as given, not once prepared: {broken:?}"
    );
    // Most of the shared outputs compile as given: the check is not vacuous.
    assert!(given_ok.iter().filter(|ok| **ok).count() * 10 > given.len() * 8);
}

#[test]
fn a_fenced_reply_is_written_as_it_stands_between_the_fences() {
    // A class defined inside `except NameError:` (Python 2/3 compatibility code) was dedented
    // by ClassEval's re-indentation into an IndentationError.
    let body = "try:\n    unicode\nexcept NameError:\n    class Text(str):\n        pass\n\n\nclass Shape:\n    def area(self):\n        return 0\n";
    let reply = format!("```python\n{body}```\n");
    let (code, notes) = realclasseval_code(&reply);
    assert_eq!(code, body);
    assert_eq!(notes.len(), 1);
    assert_eq!(compiles(&[code]), [true]);
    // Unfenced: byte for byte, trailing spaces, CRLF and all.
    let raw = "import os\r\n\r\nclass A:  \r\n    x = 1\r\n";
    assert_eq!(realclasseval_code(raw).0, raw);
    // Several blocks: the Python one that defines a class, as written.
    let reply = "Use it like this:\n```bash\npip install x\n```\n```python\n  x = 1\n```\n```python\nclass A:\n        y = 2\n```\nDone.";
    assert_eq!(realclasseval_code(reply).0, "class A:\n        y = 2\n");
    // An unclosed fence runs to the end.
    assert_eq!(
        realclasseval_code("```python\nclass A:\n    pass\n").0,
        "class A:\n    pass\n\n"
    );
}
