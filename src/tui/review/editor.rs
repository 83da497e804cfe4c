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

/// Run `editor` on a temporary file holding `text`; the edited text, or why not.
pub fn edit_with(editor: &str, text: &str, name: &str) -> Result<String, String> {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let dir = std::env::temp_dir().join(format!("classlab-edit-{}-{nanos}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let result = run_on(editor, text, &dir.join(format!("{name}.py")));
    let _ = std::fs::remove_dir_all(&dir);
    result
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
