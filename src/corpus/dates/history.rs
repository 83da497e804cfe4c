//! One walk of one repository's history: for every class the store holds in it, the first
//! commit whose version of the class's file has the class's `class Name` line.
//!
//! Commits are visited oldest first (by committer time, parents before children, as `git log
//! --date-order --reverse` lists them: commits of one second keep their order) from HEAD, each
//! diffed against its first parent (a root commit against the empty tree): only the trees that
//! changed are compared, and a blob is read only when it is a new version of a file the store
//! holds classes in. The first version found to hold a class's line dates the class; the walk ends
//! when every class is dated. A side branch's commit is visited too (it is reachable from
//! HEAD), so a class brought in by a merge is dated by the branch commit that wrote it.

use std::collections::{HashMap, HashSet};

use git2::{DiffOptions, ErrorCode, Oid, Repository, Sort};

/// A class to date: its store id and its name.
#[derive(Debug, Clone)]
pub struct Class {
    pub id: i64,
    pub name: String,
}

/// A dated class: the commit that first holds its line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dated {
    pub id: i64,
    /// The commit's committer time (Unix seconds).
    pub time: i64,
    pub commit: String,
}

/// HEAD's commit, or `None` in a repository without commits.
pub fn head_commit(repo: &Repository) -> Result<Option<Oid>, git2::Error> {
    match repo.head() {
        Ok(head) => Ok(Some(head.peel_to_commit()?.id())),
        Err(e) if matches!(e.code(), ErrorCode::UnbornBranch | ErrorCode::NotFound) => Ok(None),
        Err(e) => Err(e),
    }
}

/// Date the classes of `files` (path within the repository, `/`-separated → its classes)
/// in the history of `head`. Classes no version of their file holds are not in the result.
pub fn first_seen(
    repo: &Repository,
    head: Oid,
    mut files: HashMap<String, Vec<Class>>,
) -> Result<Vec<Dated>, git2::Error> {
    let mut pending: usize = files.values().map(Vec::len).sum();
    let mut dated = Vec::with_capacity(pending);
    let mut walk = repo.revwalk()?;
    walk.set_sorting(Sort::TOPOLOGICAL | Sort::TIME | Sort::REVERSE)?;
    walk.push(head)?;
    let mut opts = DiffOptions::new();
    opts.skip_binary_check(true).ignore_submodules(true);
    for oid in walk {
        if pending == 0 {
            break;
        }
        let commit = repo.find_commit(oid?)?;
        let tree = commit.tree()?;
        let parent = match commit.parent_count() {
            0 => None,
            _ => Some(commit.parent(0)?.tree()?),
        };
        let diff = repo.diff_tree_to_tree(parent.as_ref(), Some(&tree), Some(&mut opts))?;
        for delta in diff.deltas() {
            let new = delta.new_file();
            if new.id().is_zero() {
                continue; // deleted here
            }
            let Some(classes) = new
                .path_bytes()
                .and_then(|p| std::str::from_utf8(p).ok())
                .and_then(|p| files.get_mut(p))
            else {
                continue;
            };
            if classes.is_empty() {
                continue;
            }
            // A submodule or a symbolic link's target is no file version of the class.
            let Ok(blob) = repo.find_blob(new.id()) else {
                continue;
            };
            let names = class_names(blob.content());
            classes.retain(|c| {
                if !names.contains(c.name.as_bytes()) {
                    return true;
                }
                dated.push(Dated {
                    id: c.id,
                    time: commit.time().seconds(),
                    commit: commit.id().to_string(),
                });
                pending -= 1;
                false
            });
        }
    }
    Ok(dated)
}

/// The names of the `class Name` lines of a file's text (any indentation; what follows the
/// name does not matter, so changing a class's bases does not make it new).
pub fn class_names(text: &[u8]) -> HashSet<&[u8]> {
    text.split(|b| *b == b'\n')
        .filter_map(|line| {
            let line = line.trim_ascii_start();
            let rest = line.strip_prefix(b"class")?;
            let name = rest.trim_ascii_start();
            if name.len() == rest.len() {
                return None; // `classify = …`
            }
            // Identifier bytes: ASCII letters, digits, `_`, and any non-ASCII (UTF-8) byte.
            let end = name
                .iter()
                .position(|b| !(b.is_ascii_alphanumeric() || *b == b'_' || *b >= 0x80))
                .unwrap_or(name.len());
            (end > 0).then(|| &name[..end])
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn class_lines_are_found_at_any_depth() {
        let text = b"import os\nclass A(B):\n    class Inner:\n\tpass\nclassify = 1\nclass\tT\xc3\xa9[X]: ...\n  # class Note\nclass :\n";
        let names = class_names(text);
        let mut got: Vec<&[u8]> = names.into_iter().collect();
        got.sort();
        assert_eq!(got, [&b"A"[..], b"Inner", "Té".as_bytes()]);
    }
}
