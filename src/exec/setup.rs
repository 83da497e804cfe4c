//! Setting a sandbox up: finding the interpreter and the launcher, and probing which
//! isolation the machine allows.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;

use super::launch::{LAUNCH_ARG, LAUNCH_ENV, PROBE_MAGIC, ProbeResult};
use super::{
    CgroupBase, ExecError, FIRST_SUITE_UID, IsolationReport, LAUNCHER_ENV, PythonInfo, Sandbox,
    SandboxOptions, remove_stale_workdirs, seccomp, sys,
};

fn find_launcher(explicit: Option<&Path>) -> Result<PathBuf, ExecError> {
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let Some(p) = explicit {
        candidates.push(p.to_path_buf());
    } else if let Some(p) = std::env::var_os(LAUNCHER_ENV) {
        candidates.push(PathBuf::from(p));
    } else if let Ok(exe) = std::env::current_exe() {
        if exe.file_stem().is_some_and(|s| s == "classlab") {
            candidates.push(exe.clone());
        }
        // Tests and benches run from target/<profile>/deps/: the binary is one level up.
        if let Some(dir) = exe.parent() {
            candidates.push(dir.join("classlab"));
            if let Some(up) = dir.parent() {
                candidates.push(up.join("classlab"));
            }
        }
    }
    let mut tried = Vec::new();
    for c in candidates {
        if !c.is_file() {
            tried.push(format!("{} (missing)", c.display()));
            continue;
        }
        return Ok(c);
    }
    Err(ExecError::Launcher(if tried.is_empty() {
        "no candidate binary".into()
    } else {
        format!("tried {}", tried.join(", "))
    }))
}

fn run_probe(launcher: &Path) -> Result<ProbeResult, ExecError> {
    let out = Command::new(launcher)
        .arg(LAUNCH_ARG)
        .env_clear()
        .env(LAUNCH_ENV, "probe")
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .map_err(|e| ExecError::Launcher(format!("{}: {e}", launcher.display())))?;
    let first = out.stdout.split(|&b| b == b'\n').next().unwrap_or(&[]);
    match serde_json::from_slice::<ProbeResult>(first) {
        Ok(p) if p.magic == PROBE_MAGIC => Ok(p),
        _ => Err(ExecError::Launcher(format!(
            "{} did not answer the launcher probe",
            launcher.display()
        ))),
    }
}

fn which(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// Files under /etc the interpreter and common libraries read.
const ETC_FILES: &[&str] = &[
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/localtime",
    "/etc/timezone",
    "/etc/passwd",
    "/etc/group",
    "/etc/nsswitch.conf",
    "/etc/host.conf",
    "/etc/hosts",
    "/etc/hostname",
    "/etc/resolv.conf",
    "/etc/gai.conf",
    "/etc/protocols",
    "/etc/services",
    "/etc/mime.types",
    "/etc/ssl/certs",
    "/etc/ssl/openssl.cnf",
    "/etc/ca-certificates",
    "/etc/os-release",
    "/etc/locale.alias",
    "/etc/fonts",
    "/etc/matplotlibrc",
];

impl Sandbox {
    /// Find the interpreter and the launcher and probe what isolation is available.
    pub fn detect(python: Option<PathBuf>) -> Result<Sandbox, ExecError> {
        Sandbox::with_options(SandboxOptions {
            python,
            ..SandboxOptions::default()
        })
    }

    pub fn with_options(options: SandboxOptions) -> Result<Sandbox, ExecError> {
        let python = match &options.python {
            Some(p) => p.clone(),
            None => {
                which("python3").ok_or_else(|| ExecError::Python("python3 not on PATH".into()))?
            }
        };
        let info = PythonInfo::query(&python)?;
        let launcher = find_launcher(options.launcher.as_deref())?;
        let probe = run_probe(&launcher)?;
        let cgroup = if probe.root {
            CgroupBase::detect()
        } else {
            CgroupBase::detect().filter(|_| true)
        };
        let mut warnings = Vec::new();
        if !probe.root && !probe.userns {
            warnings.push("not root and no user namespaces: no namespaces at all".into());
        }
        if !probe.netns {
            if probe.landlock_abi >= 4 {
                warnings
                    .push("no network namespace: TCP is blocked by Landlock, UDP is not".into());
            } else {
                warnings.push("no network namespace and no Landlock network rules: the code under test can reach the network".into());
            }
        }
        if !probe.pidns {
            warnings.push(
                "no PID namespace: processes are contained by cgroup/process group only".into(),
            );
        }
        if !probe.tmpfs {
            warnings.push("no private tmpfs: the work dir is on the shared temp file system (disk use limited by RLIMIT_FSIZE only)".into());
        }
        if probe.landlock_abi == 0 {
            warnings.push(
                "no Landlock: the code under test can read and write the user's files".into(),
            );
        } else if probe.landlock_abi < 6 {
            warnings.push(format!(
                "Landlock ABI {} (< 6): signals to outside processes are not blocked by Landlock",
                probe.landlock_abi
            ));
        }
        match &cgroup {
            None => warnings.push(if probe.root {
                "no writable cgroups: no process limit for root (a fork bomb is contained only by the PID namespace and the wall clock), memory limited by RLIMIT_AS per process".into()
            } else {
                "no writable cgroups: processes limited by RLIMIT_NPROC, memory by RLIMIT_AS per process".into()
            }),
            Some(c) => {
                if c.pids.is_none() {
                    warnings.push("no pids cgroup".into());
                }
                if c.memory.is_none() {
                    warnings.push("no memory cgroup: memory limited by RLIMIT_AS per process".into());
                }
            }
        }
        if !probe.drop_caps && probe.root {
            warnings.push("capabilities could not be dropped".into());
        }
        let minimal_root = probe.mountns && probe.pivot_root;
        if !minimal_root {
            warnings.push("no root of its own (no mount namespace or pivot_root): the sandbox sees the host's file tree, limited by Landlock only".into());
        }
        let seccomp_programs: Vec<String> = if probe.seccomp {
            seccomp::programs(probe.pidns)
                .map(|ps| ps.iter().map(seccomp::to_hex).collect())
                .unwrap_or_default()
        } else {
            Vec::new()
        };
        if seccomp_programs.is_empty() {
            warnings.push("no seccomp filter: UNIX sockets of host services are reachable where the file tree shows them".into());
        }
        // Only inside its own root: on the host tree the interpreter may sit in root's home.
        let run_as = (probe.root && probe.drop_caps && minimal_root).then_some(FIRST_SUITE_UID);
        if run_as.is_some() && !probe.idmap {
            warnings.push("no idmapped mounts of tmpfs (Linux < 6.3?): the split harness's runner and host share their scratch directory by modes only (a directory one makes with mode 0700, e.g. tempfile.mkdtemp, is closed to the other)".into());
        }
        let mut rlimits: Vec<String> = ["cpu", "as", "fsize", "nofile", "core"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        if !probe.root {
            rlimits.push("nproc".into());
        }
        // What the interpreter needs to read.
        let mut read: Vec<PathBuf> = vec![
            info.prefix.clone(),
            info.base_prefix.clone(),
            info.exec_prefix.clone(),
        ];
        if let Some(d) = info.executable.parent() {
            read.push(d.to_path_buf());
        }
        read.extend(info.path.iter().filter(|p| p.is_absolute()).cloned());
        for p in [
            "/usr", "/lib", "/lib64", "/lib32", "/libx32", "/bin", "/sbin", "/opt",
        ] {
            read.push(PathBuf::from(p));
        }
        read.extend(ETC_FILES.iter().map(PathBuf::from));
        read.extend(
            ["/dev/zero", "/dev/urandom", "/dev/random", "/dev/full"]
                .iter()
                .map(PathBuf::from),
        );
        read.push(PathBuf::from("/sys/devices/system/cpu"));
        if probe.proc_remount {
            read.push(PathBuf::from("/proc"));
        } else {
            read.extend(
                ["/proc/self", "/proc/cpuinfo", "/proc/meminfo", "/proc/stat"]
                    .iter()
                    .map(PathBuf::from),
            );
        }
        read.extend(options.extra_read.iter().cloned());
        read.sort();
        read.dedup();
        remove_stale_workdirs(&std::env::temp_dir());
        let work_root = std::env::temp_dir().join(format!(
            "classlab-sbx-{}-{}",
            std::process::id(),
            &sys::random_hex()[..8]
        ));
        std::fs::create_dir(&work_root)?;
        {
            use std::os::unix::fs::PermissionsExt;
            // The sandbox user must reach its work dir below (nothing is listable here).
            std::fs::set_permissions(&work_root, std::fs::Permissions::from_mode(0o711))?;
        }
        let warm_ok = probe.root
            && probe.netns
            && probe.pidns
            && probe.tmpfs
            && probe.drop_caps
            && cgroup
                .as_ref()
                .is_some_and(|c| c.freezer.is_some() || c.kill_file);
        if options.warm && !warm_ok {
            warnings.push("warm interpreters need root, namespaces, a private tmpfs and a cgroup that can kill: running cold".into());
        }
        let report = IsolationReport {
            python: info,
            launcher,
            root: probe.root,
            user_namespace: probe.userns,
            network_namespace: probe.netns,
            pid_namespace: probe.pidns,
            mount_namespace: probe.mountns,
            private_tmpfs: probe.tmpfs,
            private_proc: probe.proc_remount,
            ipc_uts_namespace: probe.ipc_uts,
            landlock_abi: probe.landlock_abi,
            capabilities_dropped: probe.drop_caps,
            minimal_root,
            run_as,
            seccomp: !seccomp_programs.is_empty(),
            cgroup,
            rlimits,
            warm: options.warm && warm_ok,
            scratch_idmap: run_as.is_some() && probe.idmap,
            warnings,
        };
        Ok(Sandbox {
            report,
            probe,
            options,
            read_paths: read,
            work_root,
            seccomp: seccomp_programs,
            zygote: Mutex::new(None),
            idmaps: Mutex::default(),
            uids: Default::default(),
            cpus: super::cpus::CpuPool::of_this_process(),
        })
    }
}
