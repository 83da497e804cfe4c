//! What the sandbox runs and how well it isolates: the interpreter as it describes itself
//! ([`PythonInfo`]) and the isolation in force ([`IsolationReport`], printed by
//! `classlab doctor`).

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde::Serialize;

use super::{CgroupBase, ExecError};

/// The interpreter, as it describes itself.
#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq)]
pub struct PythonInfo {
    /// The real interpreter (shims resolved; a venv's interpreter keeps its venv path).
    pub executable: PathBuf,
    pub version: String,
    pub prefix: PathBuf,
    pub base_prefix: PathBuf,
    pub exec_prefix: PathBuf,
    /// `sys.path` entries (user site excluded).
    pub path: Vec<PathBuf>,
    /// pytest version, when installed.
    pub pytest: Option<String>,
}

const PY_INFO: &str = r#"
import sys, json, importlib.util, os
v = None
if importlib.util.find_spec("pytest") is not None:
    try:
        from importlib.metadata import version
        v = version("pytest")
    except Exception:
        v = "?"
# A venv's interpreter must keep its own path (resolving the link would leave the venv); any
# other is resolved once, past shims.
exe = sys.executable if sys.prefix != sys.base_prefix else os.path.realpath(sys.executable)
print(json.dumps({"executable": exe, "version": sys.version.split()[0],
  "prefix": sys.prefix, "base_prefix": sys.base_prefix, "exec_prefix": sys.exec_prefix,
  "path": [p for p in sys.path if p], "pytest": v}))
"#;

impl PythonInfo {
    /// Ask the interpreter (trusted code only; runs outside the sandbox).
    pub fn query(python: &Path) -> Result<PythonInfo, ExecError> {
        let out = Command::new(python)
            .args(["-I", "-c", PY_INFO])
            .stdin(Stdio::null())
            .output()
            .map_err(|e| ExecError::Python(format!("{}: {e}", python.display())))?;
        if !out.status.success() {
            return Err(ExecError::Python(format!(
                "{} failed: {}",
                python.display(),
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
        serde_json::from_slice(&out.stdout).map_err(|e| {
            ExecError::Python(format!("{}: unexpected answer ({e})", python.display()))
        })
    }
}

/// Which isolation is in force (printed by `classlab doctor`).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct IsolationReport {
    pub python: PythonInfo,
    pub launcher: PathBuf,
    pub root: bool,
    pub user_namespace: bool,
    pub network_namespace: bool,
    pub pid_namespace: bool,
    pub mount_namespace: bool,
    /// The work dir is a private size-capped tmpfs (and `/dev/shm` a private small one).
    pub private_tmpfs: bool,
    /// `/proc` shows only the sandbox's processes.
    pub private_proc: bool,
    pub ipc_uts_namespace: bool,
    /// Landlock ABI in use (0: none). ≥ 4 also blocks TCP, ≥ 6 signals/abstract sockets.
    pub landlock_abi: u32,
    pub capabilities_dropped: bool,
    /// The sandbox sees its own root: only what Python needs, read-only (no host /tmp, /run,
    /// home directories, private keys or sockets).
    pub minimal_root: bool,
    /// When classlab runs as root: the first of the uids suites run as, one pair of its own
    /// per running suite (unprivileged: no access to root's files, nor to another suite's
    /// processes).
    pub run_as: Option<u32>,
    /// The seccomp filter (no UNIX/netlink sockets, no ptrace, namespaces, mounts, io_uring…).
    pub seccomp: bool,
    pub cgroup: Option<CgroupBase>,
    /// Always applied: cpu, as, fsize, nofile, core (and nproc when not root).
    pub rlimits: Vec<String>,
    /// Suites fork from a warm interpreter (asked for, and the machine allows it).
    pub warm: bool,
    /// The split harness's runner and host share the scratch directory through an idmapped
    /// mount (each sees the other's files as its own); without it, by modes only.
    #[serde(default)]
    pub scratch_idmap: bool,
    /// What is weaker than intended, one line each.
    pub warnings: Vec<String>,
}

impl IsolationReport {
    /// Every protection this module knows is active.
    pub fn complete(&self) -> bool {
        self.warnings.is_empty()
    }

    /// The split harness can run here: it puts the host in a PID namespace nested in the
    /// suite's, with a mount namespace and `/proc` of its own.
    pub fn split_available(&self) -> bool {
        self.pid_namespace && self.mount_namespace && self.private_proc
    }
}

impl fmt::Display for IsolationReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let yn = |b: bool| if b { "yes" } else { "NO" };
        writeln!(
            f,
            "python            {} ({})",
            self.python.executable.display(),
            self.python.version
        )?;
        writeln!(
            f,
            "pytest            {}",
            self.python.pytest.as_deref().unwrap_or("not installed")
        )?;
        writeln!(f, "launcher          {}", self.launcher.display())?;
        writeln!(f, "running as root   {}", yn(self.root))?;
        if self.root {
            writeln!(
                f,
                "user namespace    not needed (root: suites switch to an unprivileged uid instead)"
            )?;
        } else {
            writeln!(f, "user namespace    {}", yn(self.user_namespace))?;
        }
        writeln!(f, "network namespace {}", yn(self.network_namespace))?;
        writeln!(
            f,
            "pid namespace     {}",
            if self.pid_namespace {
                "yes (one per suite, warm or cold)"
            } else {
                "NO"
            }
        )?;
        writeln!(
            f,
            "mount namespace   {} (private tmpfs work dir: {}, private /proc: {})",
            yn(self.mount_namespace),
            yn(self.private_tmpfs),
            yn(self.private_proc)
        )?;
        writeln!(f, "ipc/uts namespace {}", yn(self.ipc_uts_namespace))?;
        writeln!(
            f,
            "own root          {} (only the interpreter's trees, read-only; suite files read-only)",
            yn(self.minimal_root)
        )?;
        match self.run_as {
            Some(uid) => writeln!(
                f,
                "runs as           a uid of its own per running suite, from {uid} (unprivileged)"
            )?,
            None if self.root => writeln!(f, "runs as           root (NOT switched)")?,
            None => writeln!(
                f,
                "runs as           the invoking user (root of a user namespace)"
            )?,
        }
        writeln!(
            f,
            "seccomp           {}",
            if self.seccomp {
                "yes (no UNIX/netlink sockets, ptrace, namespaces, mounts, io_uring, bpf; \
                 prlimit, setpriority, ioprio_set, sched_setaffinity on the calling process only)"
            } else {
                "NO"
            }
        )?;
        if self.landlock_abi > 0 {
            writeln!(
                f,
                "landlock          ABI {} (file access{}{})",
                self.landlock_abi,
                if self.landlock_abi >= 4 { ", TCP" } else { "" },
                if self.landlock_abi >= 6 {
                    ", scoped: abstract UNIX sockets and signals"
                } else {
                    ""
                }
            )?;
        } else {
            writeln!(f, "landlock          NO")?;
        }
        writeln!(
            f,
            "capabilities      {}",
            if self.capabilities_dropped {
                "all dropped"
            } else {
                "not dropped"
            }
        )?;
        match &self.cgroup {
            Some(c) => writeln!(
                f,
                "cgroups           v{}: pids {}, memory {}, kill {}",
                c.version,
                yn(c.pids.is_some()),
                yn(c.memory.is_some()),
                yn(c.freezer.is_some() || c.kill_file)
            )?,
            None => writeln!(f, "cgroups           NO")?,
        }
        writeln!(f, "rlimits           {}", self.rlimits.join(", "))?;
        writeln!(
            f,
            "interpreters      {}",
            if self.warm {
                "warm (fork server that never reads a request: no suite inherits another's data)"
            } else {
                "cold (one per suite)"
            }
        )?;
        if self.run_as.is_some() {
            writeln!(
                f,
                "split scratch     {}",
                if self.scratch_idmap {
                    "idmapped (runner and host each see the other's files as their own)"
                } else {
                    "by modes only (NO idmapped mounts)"
                }
            )?;
        }
        for w in &self.warnings {
            writeln!(f, "warning: {w}")?;
        }
        Ok(())
    }
}
