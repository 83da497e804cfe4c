//! Finding the Python files of a build: below each PATH (a directory of repositories, one
//! repository, or a file), with the repository each belongs to and the shard it falls in.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// One `.py` file to analyse.
#[derive(Debug, Clone)]
pub struct SourceFile {
    pub abs: PathBuf,
    /// The store's key: the path relative to the PATH argument (its file name for a file).
    pub path: String,
    pub repo: String,
    pub size: u64,
    pub mtime_ns: i64,
}

/// A path the walk could not use (a symlink loop, an unreadable directory).
#[derive(Debug, Clone)]
pub struct WalkIssue {
    pub path: String,
    pub repo: String,
    pub reason: &'static str,
    pub detail: String,
}

#[derive(Debug, Default)]
pub struct Discovery {
    pub files: Vec<SourceFile>,
    pub issues: Vec<WalkIssue>,
    /// Per repository, its top-level module and package names (what counts as internal).
    pub top_names: BTreeMap<String, BTreeSet<String>>,
}

/// `K/N`: the K-th (1-based) of N shards.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub k: u32,
    pub n: u32,
}

impl std::str::FromStr for Shard {
    type Err = String;
    fn from_str(s: &str) -> Result<Shard, String> {
        let (k, n) = s.split_once('/').ok_or("expected K/N, e.g. 3/8")?;
        let k: u32 = k
            .trim()
            .parse()
            .map_err(|_| format!("`{k}` is not a number"))?;
        let n: u32 = n
            .trim()
            .parse()
            .map_err(|_| format!("`{n}` is not a number"))?;
        if n == 0 || k == 0 || k > n {
            return Err(format!("shard {k}/{n}: need 1 ≤ K ≤ N"));
        }
        Ok(Shard { k, n })
    }
}

impl Shard {
    /// Disjoint by a hash of the file's key, stable across machines.
    pub fn holds(&self, path: &str) -> bool {
        fnv64(path.as_bytes()) % u64::from(self.n) == u64::from(self.k - 1)
    }
}

pub fn fnv64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// How to walk the roots.
#[derive(Debug, Clone, Default)]
pub struct Walk {
    pub shard: Option<Shard>,
    /// Directory names not entered (`site-packages`, `.tox`, …).
    pub exclude: Vec<String>,
    /// Follow symbolic links that lead out of the roots too (by default such a link is counted
    /// as `symlink-outside` and not followed: a link to `/` would walk `/proc`, a link to a
    /// secret would put it in the store).
    pub follow_symlinks: bool,
}

/// Every `.py` regular file below the roots, sorted by key. Symbolic links are followed while
/// they stay inside the roots (loops counted); anything but a regular file named `*.py` (a
/// FIFO, a device) is counted as `not-a-regular-file` and never opened.
pub fn discover(roots: &[PathBuf], walk: &Walk) -> anyhow::Result<Discovery> {
    let (shard, exclude) = (walk.shard, walk.exclude.as_slice());
    let mut out = Discovery::default();
    let canonical_roots: Vec<PathBuf> = roots
        .iter()
        .filter_map(|r| std::fs::canonicalize(r).ok())
        .collect();
    let inside = |p: &Path| -> bool {
        walk.follow_symlinks
            || std::fs::canonicalize(p)
                .is_ok_and(|c| canonical_roots.iter().any(|r| c.starts_with(r)))
    };
    let roots = distinct(roots);
    let labels = labels_of(&roots);
    let several = roots.len() > 1;
    for (root, label) in roots.iter().zip(&labels) {
        let meta =
            std::fs::metadata(root).map_err(|e| anyhow::anyhow!("{}: {e}", root.display()))?;
        if meta.is_file() {
            let name = if several {
                label.clone()
            } else {
                root.file_name().map_or_else(
                    || root.display().to_string(),
                    |n| n.to_string_lossy().into_owned(),
                )
            };
            let repo = root
                .parent()
                .and_then(|p| std::fs::canonicalize(p).ok())
                .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
                .unwrap_or_default();
            push_file(&mut out, root.clone(), name, repo, &meta, shard);
            continue;
        }
        let single_repo = root.join(".git").exists();
        let root_name = std::fs::canonicalize(root)
            .ok()
            .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_else(|| root.display().to_string());
        let mut repo_names: BTreeMap<String, String> = BTreeMap::new();
        // Links leading out of the roots, met while walking (reported after).
        let outside = std::cell::RefCell::new(Vec::new());
        let walker = walkdir::WalkDir::new(root)
            .follow_links(true)
            .sort_by_file_name()
            .into_iter()
            .filter_entry(|e| {
                if e.depth() > 0 && e.path_is_symlink() && !inside(e.path()) {
                    outside.borrow_mut().push(e.path().to_path_buf());
                    return false;
                }
                e.depth() == 0
                    || !e.file_type().is_dir()
                    || !(e.file_name() == ".git"
                        || exclude.iter().any(|x| e.file_name() == x.as_str()))
            });
        for entry in walker {
            let entry = match entry {
                Ok(e) => e,
                Err(e) => {
                    let path = e
                        .path()
                        .map(|p| key_of(root, p))
                        .unwrap_or_else(|| root.display().to_string());
                    let reason = if e.loop_ancestor().is_some() {
                        "symlink-loop"
                    } else {
                        "unreadable"
                    };
                    out.issues.push(WalkIssue {
                        repo: String::new(),
                        path,
                        reason,
                        detail: e.to_string(),
                    });
                    continue;
                }
            };
            if entry.file_type().is_dir() {
                continue;
            }
            if entry.path().extension().is_none_or(|x| x != "py") {
                continue;
            }
            let rel = key_of(root, entry.path());
            // One repository's files are keyed under its directory name, and with several
            // PATHs every file under its PATH's label, so that two PATHs never share a key.
            let key = if single_repo || several {
                format!("{label}/{rel}")
            } else {
                rel.clone()
            };
            let repo = if single_repo {
                repo_names
                    .entry(String::new())
                    .or_insert_with(|| git_remote(root).unwrap_or_else(|| root_name.clone()))
                    .clone()
            } else {
                match rel.split_once('/') {
                    Some((first, _)) => repo_names
                        .entry(first.to_string())
                        .or_insert_with(|| {
                            git_remote(&root.join(first)).unwrap_or_else(|| first.to_string())
                        })
                        .clone(),
                    None => root_name.clone(),
                }
            };
            // The repository's directory and the path within it (its import name).
            let (first, within) = if single_repo {
                key.split_once('/').unwrap_or(("", key.as_str()))
            } else {
                rel.split_once('/').unwrap_or(("", rel.as_str()))
            };
            let tops = out.top_names.entry(repo.clone()).or_default();
            tops.insert(top_name(within));
            // A repository directory that is itself a package (a site-packages entry, the
            // stdlib's `test`) is imported by its own name.
            if within == "__init__.py" && !first.is_empty() {
                tops.insert(first.to_string());
            }
            match entry.metadata() {
                Ok(meta) if meta.is_file() => {
                    push_file(&mut out, entry.into_path(), key, repo, &meta, shard)
                }
                Ok(meta) => out.issues.push(WalkIssue {
                    path: key,
                    repo,
                    reason: "not-a-regular-file",
                    detail: format!("{:?}", meta.file_type()),
                }),
                Err(e) => out.issues.push(WalkIssue {
                    path: key,
                    repo,
                    reason: "unreadable",
                    detail: e.to_string(),
                }),
            }
        }
        for link in outside.into_inner() {
            let target = std::fs::read_link(&link)
                .map(|t| t.display().to_string())
                .unwrap_or_default();
            let rel = key_of(root, &link);
            out.issues.push(WalkIssue {
                path: if several {
                    format!("{label}/{rel}")
                } else {
                    rel
                },
                repo: String::new(),
                reason: "symlink-outside",
                detail: format!(
                    "links to {target}, outside the paths given (--follow-symlinks follows it)"
                ),
            });
        }
    }
    out.files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(out)
}

/// The PATHs given, each once (the same directory named twice, or through a link, is walked
/// once).
fn distinct(roots: &[PathBuf]) -> Vec<PathBuf> {
    let mut seen = std::collections::BTreeSet::new();
    roots
        .iter()
        .filter(|r| seen.insert(std::fs::canonicalize(r).unwrap_or_else(|_| (*r).clone())))
        .cloned()
        .collect()
}

/// Each PATH's label, the first part of its files' keys when several PATHs are given: its
/// directory (or file) name, or its whole canonical path where two PATHs share a name.
pub(crate) fn labels_of(roots: &[PathBuf]) -> Vec<String> {
    let canonical: Vec<PathBuf> = roots
        .iter()
        .map(|r| std::fs::canonicalize(r).unwrap_or_else(|_| r.clone()))
        .collect();
    let name = |p: &PathBuf| {
        p.file_name().map_or_else(
            || p.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        )
    };
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for p in &canonical {
        *counts.entry(name(p)).or_default() += 1;
    }
    canonical
        .iter()
        .map(|p| {
            let n = name(p);
            if counts[&n] > 1 {
                p.display().to_string().trim_start_matches('/').to_string()
            } else {
                n
            }
        })
        .collect()
}

fn push_file(
    out: &mut Discovery,
    abs: PathBuf,
    path: String,
    repo: String,
    meta: &std::fs::Metadata,
    shard: Option<Shard>,
) {
    if shard.is_some_and(|s| !s.holds(&path)) {
        return;
    }
    let mtime_ns = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos() as i64);
    out.files.push(SourceFile {
        abs,
        path,
        repo,
        size: meta.len(),
        mtime_ns,
    });
}

fn key_of(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// `pkg/sub/m.py` → `pkg`; `m.py` → `m`; a `src/` layout counts the package below it.
fn top_name(within: &str) -> String {
    let within = within.strip_prefix("src/").unwrap_or(within);
    let first = within.split('/').next().unwrap_or(within);
    first.strip_suffix(".py").unwrap_or(first).to_string()
}

/// `owner/name` of the repository's first remote, from `.git/config`.
fn git_remote(repo: &Path) -> Option<String> {
    let config = std::fs::read_to_string(repo.join(".git").join("config")).ok()?;
    let mut in_remote = false;
    for line in config.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_remote = line.starts_with("[remote ");
            continue;
        }
        if in_remote && let Some(url) = line.strip_prefix("url").map(str::trim_start) {
            let url = url.strip_prefix('=')?.trim();
            let url = url
                .strip_suffix(".git")
                .unwrap_or(url)
                .trim_end_matches('/');
            let mut parts = url.rsplit(['/', ':']);
            let name = parts.next()?;
            let owner = parts.next()?;
            return Some(format!("{owner}/{name}"));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_partition_the_files() {
        let shards: Vec<Shard> = (1..=3).map(|k| format!("{k}/3").parse().unwrap()).collect();
        for p in ["a.py", "b/c.py", "x/y/z.py", "q.py"] {
            assert_eq!(shards.iter().filter(|s| s.holds(p)).count(), 1);
        }
        assert!("0/3".parse::<Shard>().is_err());
        assert!("4/3".parse::<Shard>().is_err());
        assert!("x".parse::<Shard>().is_err());
    }

    #[test]
    fn repositories_and_remotes() {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        std::fs::create_dir_all(r.join("one/.git")).unwrap();
        std::fs::write(
            r.join("one/.git/config"),
            "[core]\n\tbare = false\n[remote \"origin\"]\n\turl = git@github.com:Owner/Proj.git\n",
        )
        .unwrap();
        std::fs::create_dir_all(r.join("one/src/pkg")).unwrap();
        std::fs::write(r.join("one/src/pkg/m.py"), "x = 1\n").unwrap();
        std::fs::create_dir_all(r.join("two")).unwrap();
        std::fs::write(r.join("two/t.py"), "x = 1\n").unwrap();
        std::fs::write(r.join("top.py"), "x = 1\n").unwrap();
        let d = discover(&[r.to_path_buf()], &Walk::default()).unwrap();
        let got: Vec<(&str, &str)> = d
            .files
            .iter()
            .map(|f| (f.path.as_str(), f.repo.as_str()))
            .collect();
        let root_name = std::fs::canonicalize(r).unwrap();
        let root_name = root_name.file_name().unwrap().to_str().unwrap();
        assert_eq!(
            got,
            [
                ("one/src/pkg/m.py", "Owner/Proj"),
                ("top.py", root_name),
                ("two/t.py", "two")
            ]
        );
        assert!(d.top_names["Owner/Proj"].contains("pkg"));
        // A repository given alone is keyed under its directory's name.
        let one = discover(&[r.join("one")], &Walk::default()).unwrap();
        assert_eq!(one.files[0].path, "one/src/pkg/m.py");
        assert_eq!(one.files[0].repo, "Owner/Proj");
    }

    #[test]
    fn several_paths_never_share_a_key() {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        // Two site-packages-like trees with the same relative path, two roots of one name, and
        // one root given twice.
        for root in ["a/lib", "b/lib", "venv"] {
            std::fs::create_dir_all(r.join(root).join("pkg")).unwrap();
            std::fs::write(r.join(root).join("pkg/m.py"), "class A:\n    pass\n").unwrap();
        }
        let roots = [
            r.join("a/lib"),
            r.join("b/lib"),
            r.join("venv"),
            r.join("venv"),
        ];
        let d = discover(&roots, &Walk::default()).unwrap();
        let keys: Vec<&str> = d.files.iter().map(|f| f.path.as_str()).collect();
        let (a, b) = (
            std::fs::canonicalize(r.join("a/lib")).unwrap(),
            std::fs::canonicalize(r.join("b/lib")).unwrap(),
        );
        let a = format!(
            "{}/pkg/m.py",
            a.display().to_string().trim_start_matches('/')
        );
        let b = format!(
            "{}/pkg/m.py",
            b.display().to_string().trim_start_matches('/')
        );
        assert_eq!(keys, [a.as_str(), b.as_str(), "venv/pkg/m.py"]);
        assert!(d.files.iter().all(|f| f.repo == "pkg"));
        assert!(d.top_names["pkg"].contains("m"));
    }
}
