//! How one suite is launched: its work dir, where each of its files goes and who may read it,
//! and the launcher's configuration, for both harnesses.
//!
//! In-process (`Harness::Inproc`): one Python (`runner.py`) in the work dir with every file.
//! Split (`Harness::Split`, see /work/notes/split-interface.md and docs/sandbox.md): the work
//! dir (root's, mode 0711) holds three directories:
//! * `tests/` — the test modules; the runner's uid, mode 0700; only the runner's Landlock
//!   rules name it;
//! * `code/` — the code under test; the host's uid, mode 0700; only the host's rules name it;
//! * `scratch/` — data files and whatever tests and code create; mode 0777 (both uids create
//!   and remove there; not sticky); both processes' cwd, `HOME` and `TMPDIR`.
//!
//! The runner runs the tests and writes the verdicts; the host (another uid, one PID namespace
//! down) imports the code and answers the runner over the host socket.

use std::io;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::launch::{HostConfig, LaunchConfig};
use super::uids::UidLease;
use super::{
    HARNESS, HOST, Harness, Placement, Probe, SPLIT_RUNNER, Sandbox, SplitDirs, SuiteSpec, WorkDir,
    python_argv, sys,
};

/// What one suite's launch is made of, beside the launcher's configuration: the two
/// processes' specs (`sys.argv[1]`) and each file's place in the work dir.
pub(crate) struct SuiteLaunch {
    pub config: LaunchConfig,
    /// The runner's spec.
    pub runner_spec: String,
    /// The host's spec (split only).
    pub host_spec: Option<String>,
    /// Per file of the spec: its path relative to the work dir, and whether it belongs to
    /// the runner alone (a test module of the split harness; every file in-process).
    pub files: Vec<(String, bool)>,
}

/// The split harness's directories in a work dir.
pub(crate) fn split_dirs(workdir: &Path) -> SplitDirs {
    SplitDirs {
        tests: workdir.join("tests"),
        code: workdir.join("code"),
        scratch: workdir.join("scratch"),
    }
}

/// Where `rel` goes, relative to the work dir, and whether only the runner may see it.
fn placed(spec: &SuiteSpec, rel: &str) -> (String, bool) {
    match spec.harness {
        Harness::Inproc => (rel.to_string(), true),
        Harness::Split => match spec.placement(rel) {
            Placement::Tests => (format!("tests/{rel}"), true),
            Placement::Code => (format!("code/{rel}"), false),
            Placement::Data => (format!("scratch/{rel}"), false),
        },
    }
}

/// The interpreter's flags (`-I` without `-E`: the environment is ours, scrubbed, and
/// `PYTHONHASHSEED` must apply), then `args`.
fn python_cmd(python: &Path, args: Vec<String>) -> Vec<String> {
    let mut argv = vec![
        python.to_string_lossy().into_owned(),
        "-s".into(),
        "-P".into(),
        "-B".into(),
    ];
    argv.extend(args);
    argv
}

impl Sandbox {
    /// A fresh, empty work dir for `spec`, whose files must fit its disk.
    pub(crate) fn make_workdir(&self, spec: &SuiteSpec) -> io::Result<WorkDir> {
        let total: usize = spec.files.iter().map(|(_, c)| c.len()).sum();
        if total as u64 > spec.limits.disk_bytes {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "the suite's files ({total} bytes) do not fit its disk ({} bytes)",
                    spec.limits.disk_bytes
                ),
            ));
        }
        for (rel, _) in &spec.files {
            let rp = Path::new(rel);
            if rel.is_empty() || !rp.components().all(|c| matches!(c, Component::Normal(_))) {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("suite file path {rel:?} is not a plain relative path"),
                ));
            }
        }
        static SEQ: AtomicU64 = AtomicU64::new(0);
        let name = format!(
            "classlab-sbx-{}-{}-{}",
            std::process::id(),
            SEQ.fetch_add(1, Ordering::Relaxed),
            &sys::random_hex()[..8]
        );
        let dir = self.work_root.join(name);
        std::fs::create_dir(&dir)?;
        let wd = WorkDir(dir);
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&wd.0, std::fs::Permissions::from_mode(0o700))?;
        Ok(wd)
    }

    /// The suite's files into its work dir, each in its place, for a cold start (the launcher
    /// copies them into the sandbox; a warm start gets them in the request instead).
    pub(crate) fn write_files(launch: &SuiteLaunch, spec: &SuiteSpec) -> io::Result<()> {
        let workdir = &launch.config.workdir;
        for ((rel, _), (_, content)) in launch.files.iter().zip(&spec.files) {
            let p = workdir.join(rel);
            if let Some(parent) = p.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(&p, content)?;
        }
        for (dir, ..) in &launch.config.dirs {
            std::fs::create_dir_all(dir)?;
        }
        Ok(())
    }

    /// The in-process harness's spec.
    fn harness_spec(&self, spec: &SuiteSpec, workdir: &Path, probe: Option<&Probe>) -> String {
        let mut v = spec.harness_fields();
        v["workdir"] = workdir.to_string_lossy().into_owned().into();
        if let Some(p) = probe {
            v["probe"] = p.harness_json(spec);
        }
        v.to_string()
    }

    /// The environment of the suite's Pythons, with `home` as `HOME`, `TMPDIR` and `PWD`.
    fn suite_env(&self, spec: &SuiteSpec, home: &Path) -> Vec<(String, String)> {
        let python = &self.report.python.executable;
        let mut path = String::new();
        if let Some(d) = python.parent() {
            path.push_str(&d.to_string_lossy());
            path.push(':');
        }
        path.push_str("/usr/local/bin:/usr/bin:/bin");
        let home = home.to_string_lossy().into_owned();
        let mut env: Vec<(String, String)> = vec![
            ("PATH".into(), path),
            ("HOME".into(), home.clone()),
            ("TMPDIR".into(), home.clone()),
            ("PWD".into(), home),
            ("LANG".into(), "C.UTF-8".into()),
            (
                "PYTHONHASHSEED".into(),
                spec.hash_seed.unwrap_or(0).to_string(),
            ),
            ("PYTHONDONTWRITEBYTECODE".into(), "1".into()),
            ("PYTHONIOENCODING".into(), "utf-8".into()),
            ("PYTEST_DISABLE_PLUGIN_AUTOLOAD".into(), "1".into()),
            ("OPENBLAS_NUM_THREADS".into(), "1".into()),
            ("OMP_NUM_THREADS".into(), "1".into()),
            ("MKL_NUM_THREADS".into(), "1".into()),
            ("NUMEXPR_NUM_THREADS".into(), "1".into()),
            ("MPLBACKEND".into(), "Agg".into()),
        ];
        env.extend(self.options.extra_env.iter().cloned());
        env
    }

    /// What a suite's Python may write: `dir`, and the sandbox's own `/tmp` and `/dev/shm`.
    fn writable(&self, dir: &Path) -> Vec<PathBuf> {
        let mut write = vec![dir.to_path_buf(), PathBuf::from("/dev/null")];
        if self.probe.tmpfs || self.report.minimal_root {
            write.push(PathBuf::from("/dev/shm"));
        }
        if self.report.minimal_root {
            write.push(PathBuf::from("/tmp")); // the sandbox's own
        }
        write
    }

    /// The launch of one suite in `workdir`: its harness's processes, `uids` (as root), the
    /// cgroups it joins (`procs`) and an optional probe (in-process only).
    pub(crate) fn suite_launch(
        &self,
        spec: &SuiteSpec,
        workdir: &Path,
        procs: Vec<PathBuf>,
        probe: Option<&Probe>,
        uids: Option<&UidLease>,
    ) -> io::Result<SuiteLaunch> {
        let files = spec
            .files
            .iter()
            .map(|(rel, _)| placed(spec, rel))
            .collect();
        let run_as = uids.map(|u| (u.runner(), u.runner()));
        if spec.harness == Harness::Inproc {
            let runner_spec = self.harness_spec(spec, workdir, probe);
            let mut config = self.launch_config(spec, workdir, procs, run_as);
            config.argv = python_cmd(
                &config.python,
                vec!["-c".into(), HARNESS.into(), runner_spec.clone()],
            );
            return Ok(SuiteLaunch {
                config,
                runner_spec,
                host_spec: None,
                files,
            });
        }
        if !self.report.split_available() {
            return Err(io::Error::other(
                "the split harness needs PID and mount namespaces with a /proc of their own, \
                 which this machine does not allow (see `classlab doctor`)",
            ));
        }
        if probe.is_some() {
            return Err(io::Error::other(
                "the validation probe runs in-process only (it instruments the code under test)",
            ));
        }
        let dirs = split_dirs(workdir);
        let runner_spec = spec.runner_spec_json(&dirs);
        let host_spec = spec.host_spec_json(&dirs);
        let mut config = self.launch_config(spec, workdir, procs, run_as);
        let python = config.python.clone();
        config.argv = python_cmd(&python, python_argv(SPLIT_RUNNER, &runner_spec));
        config.env = self.suite_env(spec, &dirs.scratch);
        config.cwd = Some(dirs.scratch.clone());
        config.write_paths = self.writable(&dirs.scratch);
        let mut host_read = config.read_paths.clone();
        host_read.push(dirs.code.clone());
        config.read_paths.push(dirs.tests.clone());
        let host_as = uids.map(|u| (u.host(), u.host()));
        let (r, h) = (run_as.unwrap_or((0, 0)), host_as.unwrap_or((0, 0)));
        // Scratch belongs to the runner: through the host's idmapped view it is the host's
        // too (an idmapped mount writes nothing whose owner it cannot map).
        config.dirs = vec![
            (dirs.tests.clone(), r.0, r.1, 0o700),
            (dirs.code.clone(), h.0, h.1, 0o700),
            (dirs.scratch.clone(), r.0, r.1, 0o777),
        ];
        let scratch_idmap = match (run_as, host_as) {
            (Some(r), Some(h)) if self.report.scratch_idmap => {
                Some((dirs.scratch.clone(), r.0, h.0))
            }
            _ => None,
        };
        config.host = Some(HostConfig {
            argv: python_cmd(&python, python_argv(HOST, &host_spec)),
            env: config.env.clone(),
            run_as: host_as,
            read_paths: host_read,
            write_paths: config.write_paths.clone(),
            scratch_idmap,
            cpu: None,
        });
        Ok(SuiteLaunch {
            config,
            runner_spec,
            host_spec: Some(host_spec),
            files,
        })
    }

    /// The launcher's configuration for one Python in `workdir` (its argv is the caller's).
    pub(crate) fn launch_config(
        &self,
        spec: &SuiteSpec,
        workdir: &Path,
        procs: Vec<PathBuf>,
        run_as: Option<(u32, u32)>,
    ) -> LaunchConfig {
        let p = &self.probe;
        let l = &spec.limits;
        let python = self.report.python.executable.clone();
        let cpu = l.cpu.as_secs_f64().ceil().max(1.0) as u64;
        let mut rlimits = vec![
            (libc::RLIMIT_CPU as i32, cpu, cpu + 1),
            (
                libc::RLIMIT_AS as i32,
                l.address_space_bytes,
                l.address_space_bytes,
            ),
            (libc::RLIMIT_FSIZE as i32, l.file_size, l.file_size),
            (libc::RLIMIT_NOFILE as i32, l.open_files, l.open_files),
            (libc::RLIMIT_CORE as i32, 0, 0),
        ];
        if !p.root {
            let mine = count_own_processes();
            let n = mine + u64::from(l.pids);
            rlimits.push((libc::RLIMIT_NPROC as i32, n, n));
        }
        LaunchConfig {
            argv: vec![python.to_string_lossy().into_owned()],
            python,
            env: self.suite_env(spec, workdir),
            workdir: workdir.to_path_buf(),
            cgroup_procs: procs,
            parent_pid: std::process::id() as i32,
            userns: !p.root && p.userns,
            netns: p.netns,
            pidns: p.pidns,
            mountns: p.mountns,
            ipc_uts: p.ipc_uts,
            tmpfs_bytes: p.tmpfs.then_some(l.disk_bytes),
            remount_proc: p.proc_remount,
            landlock_abi: p.landlock_abi,
            landlock_scoped: true,
            read_paths: self.read_paths.clone(),
            write_paths: self.writable(workdir),
            rlimits,
            drop_caps: p.drop_caps,
            minimal_root: self.report.minimal_root,
            root_dirs: Vec::new(),
            rw_paths: Vec::new(),
            run_as,
            seccomp: self.seccomp.clone(),
            dirs: Vec::new(),
            cwd: None,
            host: None,
        }
    }
}

fn count_own_processes() -> u64 {
    // SAFETY: getuid cannot fail.
    let uid = unsafe { libc::getuid() };
    let Ok(rd) = std::fs::read_dir("/proc") else {
        return 0;
    };
    rd.flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .bytes()
                .all(|b| b.is_ascii_digit())
        })
        .filter(|e| {
            use std::os::unix::fs::MetadataExt;
            e.metadata().is_ok_and(|m| m.uid() == uid)
        })
        .count() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_files_go_to_their_directories() {
        let spec = SuiteSpec::unittest_one_module("class A:\n    pass\n", "import unittest\n")
            .with_harness(Harness::Split);
        let places: Vec<(String, bool)> = spec
            .files
            .iter()
            .map(|(rel, _)| placed(&spec, rel))
            .collect();
        assert_eq!(
            places,
            [
                ("code/code_module.py".to_string(), false),
                ("tests/test_classeval.py".to_string(), true)
            ]
        );
        let mut data = SuiteSpec::pytest_snippet("snippet_1", "x = 1\n", "tests/t.py", "");
        data.files.push(("data.csv".into(), "a,b\n".into()));
        let data = data.with_harness(Harness::Split);
        assert_eq!(
            placed(&data, "data.csv"),
            ("scratch/data.csv".into(), false)
        );
        assert_eq!(
            placed(&data, "tests/t.py"),
            ("tests/tests/t.py".into(), true)
        );
        let inproc = SuiteSpec::unittest_one_module("x = 1\n", "");
        assert_eq!(
            placed(&inproc, "test_classeval.py"),
            ("test_classeval.py".into(), true)
        );
    }
}
