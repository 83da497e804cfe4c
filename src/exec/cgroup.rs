//! Control groups for one suite: a process limit (`pids`), a memory limit (`memory`), and a way
//! to kill the whole tree (`freezer` + SIGKILL on cgroup v1, `cgroup.kill` on v2).
//!
//! Suite cgroups are created *below the cgroup classlab itself runs in*, so whatever limits
//! apply to classlab also apply to its sandboxes. cgroup v1 controllers are used where they are
//! mounted and writable; otherwise a delegated cgroup v2 subtree (controllers enabled in
//! `cgroup.subtree_control`); otherwise none (the sandbox falls back to rlimits and says so).

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde::Serialize;

/// Where suite cgroups go, found once by [`CgroupBase::detect`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CgroupBase {
    /// 1 or 2.
    pub version: u8,
    /// v1: parent directories per controller; v2: the one parent directory.
    pub pids: Option<PathBuf>,
    pub memory: Option<PathBuf>,
    /// v1 freezer parent (v2 uses `cgroup.kill`, and `freezer` stays `None`).
    pub freezer: Option<PathBuf>,
    /// v2: `cgroup.kill` exists (Linux ≥ 5.14).
    pub kill_file: bool,
}

/// Parse `/proc/self/mountinfo` for cgroup mounts: (mount point, fs type, super options).
fn cgroup_mounts() -> Vec<(PathBuf, String, String)> {
    let Ok(text) = fs::read_to_string("/proc/self/mountinfo") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for line in text.lines() {
        let Some((left, right)) = line.split_once(" - ") else {
            continue;
        };
        let mount_point = left.split_whitespace().nth(4).unwrap_or("");
        let mut r = right.split_whitespace();
        let fstype = r.next().unwrap_or("");
        let _source = r.next();
        let opts = r.next().unwrap_or("");
        if fstype == "cgroup" || fstype == "cgroup2" {
            out.push((unescape(mount_point), fstype.to_string(), opts.to_string()));
        }
    }
    out
}

fn unescape(s: &str) -> PathBuf {
    PathBuf::from(s.replace("\\040", " "))
}

/// `/proc/self/cgroup`: controller list → path.
fn own_cgroups() -> Vec<(String, String)> {
    let Ok(text) = fs::read_to_string("/proc/self/cgroup") else {
        return Vec::new();
    };
    text.lines()
        .filter_map(|l| {
            let mut parts = l.splitn(3, ':');
            let _id = parts.next()?;
            let ctrls = parts.next()?.to_string();
            let path = parts.next()?.to_string();
            Some((ctrls, path))
        })
        .collect()
}

fn writable_dir(p: &Path) -> bool {
    let probe = p.join(format!("classlab-probe-{}", std::process::id()));
    match fs::create_dir(&probe) {
        Ok(()) => {
            let _ = fs::remove_dir(&probe);
            true
        }
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            let _ = fs::remove_dir(&probe);
            true
        }
        Err(_) => false,
    }
}

impl CgroupBase {
    /// Find writable cgroup controllers for suite cgroups; `None` when there are none.
    pub fn detect() -> Option<CgroupBase> {
        let mounts = cgroup_mounts();
        let own = own_cgroups();
        let v1_dir = |ctrl: &str| -> Option<PathBuf> {
            let (mp, _, _) = mounts
                .iter()
                .find(|(_, t, o)| t == "cgroup" && o.split(',').any(|x| x == ctrl))?;
            let (_, path) = own.iter().find(|(c, _)| c.split(',').any(|x| x == ctrl))?;
            let dir = mp.join(path.trim_start_matches('/'));
            (dir.is_dir() && writable_dir(&dir)).then_some(dir)
        };
        let pids = v1_dir("pids");
        let memory = v1_dir("memory");
        if pids.is_some() || memory.is_some() {
            let freezer = v1_dir("freezer");
            let base = CgroupBase {
                version: 1,
                pids,
                memory,
                freezer,
                kill_file: false,
            };
            base.remove_stale();
            return Some(base);
        }
        // cgroup v2: our own cgroup must delegate the controllers to children.
        let (mp, _, _) = mounts.iter().find(|(_, t, _)| t == "cgroup2")?;
        let (_, path) = own.iter().find(|(c, _)| c.is_empty())?;
        let dir = mp.join(path.trim_start_matches('/'));
        let enabled = fs::read_to_string(dir.join("cgroup.subtree_control")).unwrap_or_default();
        let has = |c: &str| enabled.split_whitespace().any(|x| x == c);
        if !(has("pids") || has("memory")) || !writable_dir(&dir) {
            return None;
        }
        let kill_file = fs::metadata(dir.join("cgroup.kill")).is_ok()
            || fs::read_to_string("/proc/sys/kernel/osrelease").is_ok_and(|r| {
                let mut v = r
                    .trim()
                    .split(['.', '-'])
                    .filter_map(|x| x.parse::<u32>().ok());
                (v.next().unwrap_or(0), v.next().unwrap_or(0)) >= (5, 14)
            });
        let base = CgroupBase {
            version: 2,
            pids: has("pids").then(|| dir.clone()),
            memory: has("memory").then(|| dir.clone()),
            freezer: None,
            kill_file,
        };
        base.remove_stale();
        Some(base)
    }

    /// Remove `classlab-<pid>-*` cgroups left by classlab processes that no longer exist.
    fn remove_stale(&self) {
        for dir in [&self.pids, &self.memory, &self.freezer]
            .into_iter()
            .flatten()
        {
            let Ok(entries) = fs::read_dir(dir) else {
                continue;
            };
            for e in entries.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                let Some(rest) = name.strip_prefix("classlab-") else {
                    continue;
                };
                let Some(pid) = rest.split('-').next().and_then(|p| p.parse::<u32>().ok()) else {
                    continue;
                };
                if !Path::new(&format!("/proc/{pid}")).exists() {
                    let cg = e.path();
                    kill_all_in(&cg);
                    let _ = fs::remove_dir(&cg);
                }
            }
        }
    }

    pub fn has_kill(&self) -> bool {
        self.freezer.is_some() || self.kill_file || self.pids.is_some() || self.memory.is_some()
    }

    /// Create the cgroups of one suite with its limits.
    pub fn create(&self, pids_max: u32, memory_bytes: u64) -> io::Result<SuiteCgroup> {
        static SEQ: AtomicU64 = AtomicU64::new(0);
        let name = format!(
            "classlab-{}-{}",
            std::process::id(),
            SEQ.fetch_add(1, Ordering::Relaxed)
        );
        let mut cg = SuiteCgroup {
            version: self.version,
            dirs: Vec::new(),
            memory: None,
            kill_file: false,
        };
        let mk = |parent: &Path| -> io::Result<PathBuf> {
            let d = parent.join(&name);
            match fs::create_dir(&d) {
                Ok(()) => Ok(d),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(d),
                Err(e) => Err(io::Error::new(
                    e.kind(),
                    format!("mkdir {}: {e}", d.display()),
                )),
            }
        };
        let result = (|| -> io::Result<()> {
            if self.version == 2 {
                let parent = self
                    .pids
                    .as_ref()
                    .or(self.memory.as_ref())
                    .expect("v2 base");
                let d = mk(parent)?;
                cg.dirs.push(d.clone());
                if self.pids.is_some() {
                    write(&d.join("pids.max"), &pids_max.to_string())?;
                }
                if self.memory.is_some() {
                    write(&d.join("memory.max"), &memory_bytes.to_string())?;
                    let _ = write(&d.join("memory.swap.max"), "0");
                    cg.memory = Some(d.clone());
                }
                cg.kill_file = d.join("cgroup.kill").exists();
                return Ok(());
            }
            if let Some(p) = &self.pids {
                let d = mk(p)?;
                cg.dirs.push(d.clone());
                write(&d.join("pids.max"), &pids_max.to_string())?;
            }
            if let Some(m) = &self.memory {
                let d = mk(m)?;
                cg.dirs.push(d.clone());
                write(&d.join("memory.limit_in_bytes"), &memory_bytes.to_string())?;
                // Swap counts too, where the kernel accounts it.
                let _ = write(
                    &d.join("memory.memsw.limit_in_bytes"),
                    &memory_bytes.to_string(),
                );
                let _ = write(&d.join("memory.swappiness"), "0");
                cg.memory = Some(d);
            }
            if let Some(f) = &self.freezer {
                let d = mk(f)?;
                cg.dirs.push(d);
            }
            Ok(())
        })();
        if let Err(e) = result {
            cg.remove();
            return Err(e);
        }
        Ok(cg)
    }
}

fn write(p: &Path, v: &str) -> io::Result<()> {
    fs::write(p, v).map_err(|e| io::Error::new(e.kind(), format!("write {}: {e}", p.display())))
}

fn procs_of(dir: &Path) -> Vec<i32> {
    fs::read_to_string(dir.join("cgroup.procs"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect()
}

fn kill_all_in(dir: &Path) {
    for _ in 0..50 {
        let procs = procs_of(dir);
        if procs.is_empty() {
            return;
        }
        for p in procs {
            super::sys::kill(p, libc::SIGKILL);
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// The cgroups of one running suite.
#[derive(Debug)]
pub struct SuiteCgroup {
    version: u8,
    dirs: Vec<PathBuf>,
    memory: Option<PathBuf>,
    kill_file: bool,
}

impl SuiteCgroup {
    /// `cgroup.procs` files the launcher writes its own pid into (before it forks).
    pub fn procs_files(&self) -> Vec<PathBuf> {
        self.dirs.iter().map(|d| d.join("cgroup.procs")).collect()
    }

    fn freezer(&self) -> Option<&PathBuf> {
        self.dirs.iter().find(|d| d.join("freezer.state").exists())
    }

    /// Processes still in the suite's cgroups (host pids).
    pub fn procs(&self) -> Vec<i32> {
        let mut all: Vec<i32> = self.dirs.iter().flat_map(|d| procs_of(d)).collect();
        all.sort_unstable();
        all.dedup();
        all
    }

    /// Kill every process in the cgroups; a fork bomb cannot outrun it (frozen first on v1,
    /// `cgroup.kill` on v2). Returns once they are gone or after about a second.
    pub fn kill_all(&self) {
        if self.version == 2 && self.kill_file {
            if let Some(d) = self.dirs.first() {
                let _ = fs::write(d.join("cgroup.kill"), "1");
            }
        } else if let Some(f) = self.freezer() {
            let state = f.join("freezer.state");
            if fs::write(&state, "FROZEN").is_ok() {
                let t0 = Instant::now();
                while t0.elapsed() < Duration::from_millis(200) {
                    if fs::read_to_string(&state).is_ok_and(|s| s.trim() == "FROZEN") {
                        break;
                    }
                    std::thread::sleep(Duration::from_millis(1));
                }
                for p in procs_of(f) {
                    super::sys::kill(p, libc::SIGKILL);
                }
                let _ = fs::write(&state, "THAWED");
            }
        }
        let t0 = Instant::now();
        while t0.elapsed() < Duration::from_secs(1) {
            let procs = self.procs();
            if procs.is_empty() {
                return;
            }
            for p in procs {
                super::sys::kill(p, libc::SIGKILL);
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    /// The memory controller killed a process for exceeding the limit.
    pub fn oom_killed(&self) -> bool {
        let Some(m) = &self.memory else { return false };
        let file = if self.version == 2 {
            "memory.events"
        } else {
            "memory.oom_control"
        };
        fs::read_to_string(m.join(file)).is_ok_and(|t| {
            t.lines().any(|l| {
                let mut w = l.split_whitespace();
                w.next() == Some("oom_kill")
                    && w.next().and_then(|n| n.parse::<u64>().ok()).unwrap_or(0) > 0
            })
        })
    }

    /// Peak memory of the suite, when the controller reports it.
    pub fn max_usage(&self) -> Option<u64> {
        let m = self.memory.as_ref()?;
        let file = if self.version == 2 {
            "memory.peak"
        } else {
            "memory.max_usage_in_bytes"
        };
        fs::read_to_string(m.join(file)).ok()?.trim().parse().ok()
    }

    /// Remove the cgroups (killing anything left first).
    pub fn remove(&mut self) {
        for d in self.dirs.drain(..).rev() {
            for attempt in 0..100 {
                match fs::remove_dir(&d) {
                    Ok(()) => break,
                    Err(e) if e.kind() == io::ErrorKind::NotFound => break,
                    Err(_) => {
                        kill_all_in(&d);
                        if let Some(state) = Some(d.join("freezer.state")).filter(|s| s.exists()) {
                            let _ = fs::write(state, "THAWED");
                        }
                        std::thread::sleep(Duration::from_millis(if attempt < 10 {
                            1
                        } else {
                            10
                        }));
                    }
                }
            }
        }
    }
}

impl Drop for SuiteCgroup {
    fn drop(&mut self) {
        if !self.dirs.is_empty() {
            self.kill_all();
            self.remove();
        }
    }
}
