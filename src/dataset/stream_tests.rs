//! Tests of the streaming loader (kept apart: the loader itself stays short).
use super::*;

/// A whole stream collected into a dataset (what the whole-file loader gives).
fn collect(path: Option<PathBuf>, name: &str, origin: &str) -> Result<Dataset, LoadError> {
    let mut dataset = Dataset {
        name: name.into(),
        origin: origin.into(),
        format: Format::ClassEval,
        tasks: Vec::new(),
        problems: Vec::new(),
    };
    for msg in stream(path) {
        match msg {
            Streamed::Batch(b) => {
                dataset.tasks.extend(b.tasks);
                dataset.problems.extend(b.problems);
            }
            Streamed::Done { format } => {
                dataset.format = format;
                return Ok(dataset);
            }
            Streamed::Failed(e) => return Err(e),
        }
    }
    Ok(dataset)
}

fn write(text: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("d.json");
    std::fs::write(&path, text).unwrap();
    (dir, path)
}

const TASK: &str = r#"{"task_id": "T{N}", "class_name": "A", "solution_code": "class A:\n    \"\"\"a ] { , \\\" quote\"\"\"\n", "skeleton": "", "class_description": "", "class_constructor": "", "import_statement": [], "fields": [], "test": "", "test_classes": [], "methods_info": []}"#;

fn tasks(n: usize) -> String {
    let items: Vec<String> = (0..n)
        .map(|i| TASK.replace("{N}", &i.to_string()))
        .collect();
    format!("[\n{}\n]\n", items.join(",\n"))
}

#[test]
fn streams_the_same_tasks_as_the_whole_file_loader() {
    let (_d, path) = write(&tasks(1200));
    let whole = super::super::load_path(&path).unwrap();
    let streamed = collect(Some(path), "d", "d").unwrap();
    assert_eq!(streamed.tasks.len(), 1200);
    assert_eq!(streamed.tasks, whole.tasks);
    assert_eq!(streamed.problems, whole.problems);
}

#[test]
fn first_batch_is_small_and_hashes_ignore_the_id() {
    let (_d, path) = write(&tasks(600));
    let rx = stream(Some(path));
    let Ok(Streamed::Batch(first)) = rx.recv() else {
        panic!("no batch")
    };
    assert!(first.tasks.len() >= FIRST_BATCH && first.tasks.len() < 600);
    assert_eq!(first.hashes[0], first.hashes[1]);
    assert!(first.read > 0 && first.total >= first.read);
}

#[test]
fn duplicates_bad_elements_and_broken_files_are_reported() {
    let t0 = TASK.replace("{N}", "0");
    let (_d, path) = write(&format!("[{t0}, 42, {{\"x\": }}, {t0}]"));
    let d = collect(Some(path), "d", "d").unwrap();
    assert_eq!(d.tasks.len(), 1);
    let text: Vec<String> = d.problems.iter().map(|p| p.to_string()).collect();
    assert!(
        text[0].contains("#1") && text[0].contains("expected a task object"),
        "{text:?}"
    );
    assert!(text[1].contains("invalid JSON"), "{text:?}");
    assert!(text[2].contains("duplicate task id"), "{text:?}");
    let (_d, path) = write(&format!("[{t0}, {t0}"));
    let d = collect(Some(path), "d", "d").unwrap();
    assert_eq!(d.tasks.len(), 1, "what loaded before the cut is kept");
    assert!(d.problems[0].message.contains("not closed"));
    let (_d, path) = write("[1, 2]");
    assert!(matches!(
        collect(Some(path), "d", "d"),
        Err(LoadError::Unrecognized { .. })
    ));
    let (_d, path) = write("[]");
    assert!(collect(Some(path), "d", "d").unwrap().tasks.is_empty());
    let (_d, path) = write("{\"task_id\": \"x\"}");
    assert!(collect(Some(path), "d", "d").is_err());
}
