//! Editing a part of a task in the user's `$EDITOR`: the text goes to a temporary `.py` file,
//! the editor runs on it (through `sh -c`, so `EDITOR="code --wait"` works), and the file's
//! text comes back. The app loop suspends the TUI around [`edit`].

use std::io::Write;
use std::path::Path;
use std::process::Command;

/// The editor command: `$VISUAL`, else `$EDITOR`, else `vi`.
pub fn editor_command() -> String {
    ["VISUAL", "EDITOR"]
        .iter()
        .filter_map(|v| std::env::var(v).ok())
        .find(|v| !v.trim().is_empty())
        .unwrap_or_else(|| "vi".to_string())
}

/// Run `editor` on a temporary file holding `text`; the edited text, or why not. `name`
/// (a task id and a part: input data) only names the file: it is reduced to one safe path
/// component ([`file_component`]), so the file is always inside the fresh directory.
pub fn edit_with(editor: &str, text: &str, name: &str) -> Result<String, String> {
    let dir = fresh_dir()?;
    let result = run_on(
        editor,
        text,
        &dir.join(format!("{}.py", file_component(name))),
    );
    let _ = std::fs::remove_dir_all(&dir);
    result
}

/// A new directory of our own under the temporary directory: `create_dir` (not `_all`)
/// fails on anything already there, so a name planted in advance is never used.
fn fresh_dir() -> Result<std::path::PathBuf, String> {
    let base = std::env::temp_dir();
    let mut last = String::new();
    for _ in 0..16 {
        let dir = base.join(format!(
            "classlab-edit-{}-{:016x}",
            std::process::id(),
            fastrand::u64(..)
        ));
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) => last = format!("{}: {e}", dir.display()),
        }
    }
    Err(last)
}

/// `name` as one file-name component: ASCII letters, digits, `.`, `_` and `-` kept, every
/// other character (path separators, `..`'s meaning, controls, spaces) written as `_`, no
/// leading dot, at most 100 bytes, never empty.
pub fn file_component(name: &str) -> String {
    let mut out: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') {
                c
            } else {
                '_'
            }
        })
        .take(100)
        .collect();
    while out.starts_with('.') {
        out.replace_range(..1, "_");
    }
    if out.is_empty() {
        out.push('_');
    }
    out
}

fn run_on(editor: &str, text: &str, path: &Path) -> Result<String, String> {
    let path = path.to_path_buf();
    write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    let status = Command::new("sh")
        .arg("-c")
        .arg(format!("{editor} \"$1\""))
        .arg("sh")
        .arg(&path)
        .status()
        .map_err(|e| format!("could not start the editor `{editor}`: {e}"))?;
    if !status.success() {
        return Err(format!(
            "the editor `{editor}` failed ({status}); nothing changed"
        ));
    }
    std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))
}

fn write(path: &Path, text: &str) -> std::io::Result<()> {
    let mut f = std::fs::File::create(path)?;
    f.write_all(text.as_bytes())?;
    f.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hostile_task_id_names_a_file_inside_the_directory() {
        for hostile in [
            "../../x-skeleton",
            "/etc/passwd",
            "..",
            "a/../../b",
            "x\n\u{1b}[2J",
            "",
        ] {
            let c = file_component(hostile);
            assert!(!c.is_empty() && !c.starts_with('.'), "{hostile:?} -> {c:?}");
            assert!(
                !c.contains('/') && !c.contains('\\'),
                "{hostile:?} -> {c:?}"
            );
            let p = std::path::Path::new("/tmp/d").join(format!("{c}.py"));
            assert_eq!(
                p.parent(),
                Some(std::path::Path::new("/tmp/d")),
                "{hostile:?}"
            );
        }
        assert_eq!(
            file_component("ClassEval_3-skeleton"),
            "ClassEval_3-skeleton"
        );
        assert_eq!(file_component("../../x-skeleton"), "_._.._x-skeleton");
    }

    /// The editor runs on a file in a fresh directory even for the task id `../../x`: nothing
    /// is written outside it (the editor here is `true`, which leaves the text as it is).
    #[test]
    fn editing_with_a_hostile_task_id_writes_nowhere_else() {
        let base = tempfile::tempdir().unwrap();
        let marker = base.path().join("x-skeleton.py");
        // `cp` as the editor records where the file it was given lives.
        let log = base.path().join("where");
        let editor = format!("sh -c 'echo \"$1\" > {}' sh", log.display());
        let text = edit_with(&editor, "class A: pass\n", "../../x-skeleton").unwrap();
        assert_eq!(text, "class A: pass\n");
        let used = std::fs::read_to_string(&log).unwrap();
        let used = std::path::Path::new(used.trim());
        assert!(used.starts_with(std::env::temp_dir()), "{used:?}");
        assert!(
            used.parent()
                .unwrap()
                .file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("classlab-edit-"),
            "{used:?}"
        );
        assert!(!marker.exists());
        assert!(!used.exists(), "the directory is removed afterwards");
    }
}
