//! Where a stored file lives: from the store's recorded roots (`meta.roots`) and a file's key,
//! the file on disk and the git repository that holds it, as `corpus build` keyed it
//! (`walk.rs`: a directory of repositories, one repository, or a file; several roots keyed
//! under their labels).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use git2::Repository;

/// One recorded root, as the build walked it.
#[derive(Debug)]
struct Root {
    path: PathBuf,
    /// The first part of its files' keys when the build had several roots.
    label: String,
    /// A file given as a root.
    file: bool,
    /// One repository (a directory with `.git`): its files are keyed under its name.
    single_repo: bool,
}

/// A stored file on disk: the directory the build took as its repository, and the file's
/// path below it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OnDisk {
    pub repo_dir: PathBuf,
    pub within: String,
}

pub struct Roots {
    roots: Vec<Root>,
    several: bool,
}

impl Roots {
    pub fn new(paths: &[PathBuf]) -> Roots {
        let labels = crate::corpus::walk::labels_of(paths);
        let roots = paths
            .iter()
            .zip(labels)
            .map(|(path, label)| Root {
                file: path.is_file(),
                single_repo: path.join(".git").exists(),
                path: path.clone(),
                label,
            })
            .collect();
        Roots {
            roots,
            several: paths.len() > 1,
        }
    }

    /// The file of the store key `key`, or `None` when no root holds it.
    pub fn locate(&self, key: &str) -> Option<OnDisk> {
        let (root, rel) = if self.several {
            self.roots
                .iter()
                .filter_map(|r| {
                    let rest = key.strip_prefix(r.label.as_str())?;
                    if r.file && rest.is_empty() {
                        return Some((r, ""));
                    }
                    Some((r, rest.strip_prefix('/')?))
                })
                .max_by_key(|(r, _)| r.label.len())?
        } else {
            (self.roots.first()?, key)
        };
        if root.file {
            let parent = root.path.parent()?.to_path_buf();
            let name = root.path.file_name()?.to_string_lossy().into_owned();
            return Some(OnDisk {
                repo_dir: parent,
                within: name,
            });
        }
        if root.single_repo {
            // Keyed under the repository's name (its label) whether alone or not.
            let rel = if self.several {
                rel
            } else {
                rel.split_once('/').map_or(rel, |(_, r)| r)
            };
            return Some(OnDisk {
                repo_dir: root.path.clone(),
                within: rel.to_string(),
            });
        }
        Some(match rel.split_once('/') {
            Some((first, rest)) => OnDisk {
                repo_dir: root.path.join(first),
                within: rest.to_string(),
            },
            None => OnDisk {
                repo_dir: root.path.clone(),
                within: rel.to_string(),
            },
        })
    }
}

/// The git repository holding a directory: its work tree (canonical) and the directory's path
/// inside it (`""` at the top, else ending in `/`). `Err` is the reason it has none.
pub type Found = Result<(PathBuf, String), Undated>;

/// Why a class has no date.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Undated {
    /// Its file's directory is not in a git repository (or only in a bare one).
    NotGit,
    /// Its directory is gone from this machine (a store built elsewhere).
    Missing,
    /// No commit of HEAD's history holds its `class` line (uncommitted, or no commits).
    NotFound,
    /// libgit2 could not read the repository (the error is reported with its path).
    GitError,
}

impl Undated {
    pub fn key(self) -> &'static str {
        match self {
            Undated::NotGit => "not_git",
            Undated::Missing => "missing",
            Undated::NotFound => "not_found",
            Undated::GitError => "git_error",
        }
    }
}

/// Finds the repository of each directory once.
#[derive(Default)]
pub struct Finder {
    seen: HashMap<PathBuf, Found>,
}

impl Finder {
    pub fn find(&mut self, dir: &Path) -> Found {
        if let Some(found) = self.seen.get(dir) {
            return found.clone();
        }
        let found = discover(dir);
        self.seen.insert(dir.to_path_buf(), found.clone());
        found
    }
}

fn discover(dir: &Path) -> Found {
    let Ok(canonical) = std::fs::canonicalize(dir) else {
        return Err(Undated::Missing);
    };
    let repo = Repository::discover(&canonical).map_err(|_| Undated::NotGit)?;
    let workdir = repo.workdir().ok_or(Undated::NotGit)?;
    let workdir = std::fs::canonicalize(workdir).map_err(|_| Undated::NotGit)?;
    let inside = canonical
        .strip_prefix(&workdir)
        .map_err(|_| Undated::NotGit)?
        .components()
        .map(|c| c.as_os_str().to_string_lossy() + "/")
        .collect::<String>();
    Ok((workdir, inside))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_lead_back_to_their_files() {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        std::fs::create_dir_all(r.join("repos/one/.git")).unwrap();
        std::fs::create_dir_all(r.join("single/.git")).unwrap();
        std::fs::write(r.join("f.py"), "").unwrap();
        // A directory of repositories alone: keys are relative to it.
        let alone = Roots::new(&[r.join("repos")]);
        assert_eq!(
            alone.locate("one/pkg/m.py"),
            Some(OnDisk {
                repo_dir: r.join("repos/one"),
                within: "pkg/m.py".into()
            })
        );
        assert_eq!(alone.locate("top.py").unwrap().repo_dir, r.join("repos"));
        // One repository alone: keyed under its name.
        let single = Roots::new(&[r.join("single")]);
        assert_eq!(
            single.locate("single/a/b.py"),
            Some(OnDisk {
                repo_dir: r.join("single"),
                within: "a/b.py".into()
            })
        );
        // Several roots: under their labels.
        let several = Roots::new(&[r.join("repos"), r.join("single"), r.join("f.py")]);
        assert_eq!(
            several.locate("repos/one/m.py").unwrap().repo_dir,
            r.join("repos/one")
        );
        assert_eq!(several.locate("single/x.py").unwrap().within, "x.py");
        assert_eq!(several.locate("f.py").unwrap().within, "f.py");
        assert_eq!(several.locate("elsewhere/x.py"), None);
    }
}
