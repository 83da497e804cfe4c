//! The launcher: classlab re-executed in a hidden mode (`CLASSLAB_SANDBOX_LAUNCH`) that sets the
//! sandbox up in a fresh, single-threaded process and then executes Python. No async-signal
//! safety concerns: nothing else runs in this process.
//!
//! Process tree of one suite:
//! ```text
//! classlab (pool thread)
//!  └─ launcher          joins the suite cgroups, setsid, unshare(user?, net, mount, pid, ipc, uts)
//!      └─ init          PID 1 of the new PID namespace: private mounts (tmpfs work dir, /dev/shm,
//!          │            /proc), reaps everything, reports Python's end on the status fd, exits
//!          │            (which kills whatever is left in the namespace)
//!          └─ python    setsid, rlimits, capabilities dropped, no_new_privs, Landlock, exec
//! ```
//! Descriptors received from the parent: 0 `/dev/null`, 1/2 output pipes, 3 result pipe (write),
//! 4 nonce pipe (read), 5 status pipe (write; never reaches Python).
//! Status lines: `pid N` (no PID namespace), `python exit|signal N utime_us stime_us maxrss_kb`,
//! `init exit|signal N`, `error <what>: <why>`.

use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::rootfs::{self, RootPlan};
use super::seccomp;
use super::sys::{self, check};

mod probe;
pub(crate) use probe::ProbeResult;
use probe::probe;

/// Environment variable that selects the launcher mode (`run` or `probe`).
pub const LAUNCH_ENV: &str = "CLASSLAB_SANDBOX_LAUNCH";
/// First argument of a launcher invocation: an unknown subcommand for a classlab binary without
/// the hook, which then fails fast instead of starting its UI.
pub const LAUNCH_ARG: &str = "__sandbox-launch";
/// What a probe prints first, so the parent knows the hook is there.
pub const PROBE_MAGIC: &str = "classlab-sandbox-launcher/1";

const STATUS_FD: i32 = 5;

/// Everything the launcher needs, passed as JSON in argv[2].
#[derive(Debug, Clone, Serialize, Deserialize, Default)]
pub(crate) struct LaunchConfig {
    pub python: PathBuf,
    /// Full argv for Python (argv[0] included).
    pub argv: Vec<String>,
    pub env: Vec<(String, String)>,
    pub workdir: PathBuf,
    pub cgroup_procs: Vec<PathBuf>,
    pub parent_pid: i32,
    pub userns: bool,
    pub netns: bool,
    pub pidns: bool,
    pub mountns: bool,
    pub ipc_uts: bool,
    /// Size of the private tmpfs mounted over the work dir (needs `mountns`).
    pub tmpfs_bytes: Option<u64>,
    pub remount_proc: bool,
    /// 0: no Landlock.
    pub landlock_abi: u32,
    pub landlock_scoped: bool,
    pub read_paths: Vec<PathBuf>,
    pub write_paths: Vec<PathBuf>,
    /// (resource, soft, hard).
    pub rlimits: Vec<(i32, u64, u64)>,
    pub drop_caps: bool,
    /// Pivot into a root holding only `read_paths` (read-only), the work dir, `/tmp`, `/dev`
    /// and `/proc` (see `rootfs`); needs `mountns`.
    #[serde(default)]
    pub minimal_root: bool,
    /// Directories to create in that root (empty mount points for later suites).
    #[serde(default)]
    pub root_dirs: Vec<PathBuf>,
    /// Trees bound read-write into that root.
    #[serde(default)]
    pub rw_paths: Vec<PathBuf>,
    /// Run Python as this (uid, gid), no supplementary groups (when the launcher is root).
    #[serde(default)]
    pub run_as: Option<(u32, u32)>,
    /// seccomp programs (hex), installed last before Python starts.
    #[serde(default)]
    pub seccomp: Vec<String>,
}

/// Call first thing in `main`: when this process was started as the sandbox launcher, it does
/// the launcher's work and exits; otherwise it returns at once.
pub fn maybe_launch() {
    let Some(mode) = std::env::var_os(LAUNCH_ENV) else {
        return;
    };
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if args.get(1).map(|a| a.as_bytes()) != Some(LAUNCH_ARG.as_bytes()) {
        return;
    }
    let code = match mode.as_bytes() {
        b"run" => {
            let cfg = args
                .get(2)
                .and_then(|a| serde_json::from_slice::<LaunchConfig>(a.as_bytes()).ok());
            match cfg {
                Some(cfg) => run(&cfg),
                None => {
                    status("error config: unreadable launcher configuration");
                    125
                }
            }
        }
        b"probe" => probe(),
        _ => 125,
    };
    // SAFETY: plain exit; nothing to unwind in the launcher.
    unsafe { libc::_exit(code) }
}

fn status(line: &str) {
    let mut l = line.replace('\n', " ");
    l.push('\n');
    let _ = sys::write_all(STATUS_FD, l.as_bytes());
}

fn fork() -> io::Result<i32> {
    // SAFETY: the launcher is single-threaded.
    let pid = unsafe { libc::fork() };
    check(pid, "fork")
}

fn close_from(first: i32) {
    // SAFETY: closing descriptors we own; close_range is a plain syscall.
    unsafe {
        if libc::syscall(libc::SYS_close_range, first as u32, u32::MAX, 0u32) != 0 {
            for fd in first..4096 {
                libc::close(fd);
            }
        }
    }
}

fn run(cfg: &LaunchConfig) -> i32 {
    match setup_and_fork(cfg) {
        Ok(code) => code,
        Err(e) => {
            status(&format!("error {e}"));
            125
        }
    }
}

fn setup_and_fork(cfg: &LaunchConfig) -> io::Result<i32> {
    close_from(STATUS_FD + 1);
    // SAFETY: plain fcntl/prctl calls.
    unsafe {
        libc::fcntl(STATUS_FD, libc::F_SETFD, libc::FD_CLOEXEC);
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
        if libc::getppid() != cfg.parent_pid {
            return Err(io::Error::other("parent: classlab went away"));
        }
    }
    let me = std::process::id().to_string();
    for p in &cfg.cgroup_procs {
        std::fs::write(p, &me)
            .map_err(|e| io::Error::new(e.kind(), format!("cgroup join {}: {e}", p.display())))?;
    }
    // SAFETY: setsid has no preconditions (we are not a group leader: spawned by classlab).
    check(unsafe { libc::setsid() }, "setsid")?;
    if cfg.userns {
        // SAFETY: plain syscalls.
        let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
        check(
            unsafe { libc::unshare(libc::CLONE_NEWUSER) },
            "unshare(user)",
        )?;
        let _ = std::fs::write("/proc/self/setgroups", "deny");
        std::fs::write("/proc/self/uid_map", format!("0 {uid} 1"))
            .map_err(|e| io::Error::new(e.kind(), format!("uid_map: {e}")))?;
        std::fs::write("/proc/self/gid_map", format!("0 {gid} 1"))
            .map_err(|e| io::Error::new(e.kind(), format!("gid_map: {e}")))?;
    }
    let mut flags = 0;
    if cfg.netns {
        flags |= libc::CLONE_NEWNET;
    }
    if cfg.mountns {
        flags |= libc::CLONE_NEWNS;
    }
    if cfg.pidns {
        flags |= libc::CLONE_NEWPID;
    }
    if cfg.ipc_uts {
        flags |= libc::CLONE_NEWIPC | libc::CLONE_NEWUTS;
    }
    if flags != 0 {
        // SAFETY: plain syscall.
        check(unsafe { libc::unshare(flags) }, "unshare")?;
    }
    let init = fork()?;
    if init == 0 {
        let code = match init_main(cfg) {
            Ok(c) => c,
            Err(e) => {
                status(&format!("error {e}"));
                125
            }
        };
        // SAFETY: leave the child without running the parent's exit handlers.
        unsafe { libc::_exit(code) }
    }
    // The launcher keeps only the status descriptor: the pipes must reach end of file when the
    // sandbox is gone.
    for fd in 0..STATUS_FD {
        // SAFETY: closing our own descriptors.
        unsafe { libc::close(fd) };
    }
    let mut st = 0;
    loop {
        // SAFETY: st is a valid int.
        let r = unsafe { libc::waitpid(init, &mut st, 0) };
        if r == init {
            break;
        }
        if r < 0 && io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
            break;
        }
    }
    if libc::WIFSIGNALED(st) {
        status(&format!("init signal {}", libc::WTERMSIG(st)));
    } else if libc::WIFEXITED(st) && libc::WEXITSTATUS(st) != 0 {
        status(&format!("init exit {}", libc::WEXITSTATUS(st)));
    }
    Ok(0)
}

/// Read the work dir's files (small: code and tests) to put them back on the tmpfs.
fn snapshot(dir: &Path, rel: &Path, out: &mut Vec<(PathBuf, Option<Vec<u8>>)>) -> io::Result<()> {
    for e in std::fs::read_dir(dir.join(rel))? {
        let e = e?;
        let r = rel.join(e.file_name());
        let ft = e.file_type()?;
        if ft.is_dir() {
            out.push((r.clone(), None));
            snapshot(dir, &r, out)?;
        } else if ft.is_file() {
            out.push((r.clone(), Some(std::fs::read(dir.join(&r))?)));
        }
    }
    Ok(())
}

fn init_main(cfg: &LaunchConfig) -> io::Result<i32> {
    // SAFETY: plain prctl.
    unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) };
    let mut written = Vec::new();
    if cfg.mountns {
        // Nothing mounted here propagates back to the host.
        sys::mount(
            "none",
            Path::new("/"),
            None,
            libc::MS_REC | libc::MS_PRIVATE,
            None,
        )?;
    }
    if cfg.mountns && cfg.minimal_root {
        snapshot(&cfg.workdir, Path::new(""), &mut written)
            .map_err(|e| io::Error::new(e.kind(), format!("read work dir: {e}")))?;
        rootfs::enter(&RootPlan {
            read: &cfg.read_paths,
            workdir: &cfg.workdir,
            files: written.clone(),
            disk_bytes: cfg.tmpfs_bytes.unwrap_or(64 << 20),
            owner: cfg.run_as.unwrap_or((0, 0)),
            own_proc: cfg.pidns && cfg.remount_proc,
            mkdirs: &cfg.root_dirs,
            rw: &cfg.rw_paths,
        })
        .map_err(|e| io::Error::new(e.kind(), format!("sandbox root: {e}")))?;
    } else if cfg.mountns {
        if let Some(size) = cfg.tmpfs_bytes {
            let mut files = Vec::new();
            snapshot(&cfg.workdir, Path::new(""), &mut files)
                .map_err(|e| io::Error::new(e.kind(), format!("read work dir: {e}")))?;
            sys::mount(
                "classlab",
                &cfg.workdir,
                Some("tmpfs"),
                libc::MS_NOSUID | libc::MS_NODEV,
                Some(&format!("size={size},mode=0700,nr_inodes=65536")),
            )?;
            for (rel, content) in files {
                let p = cfg.workdir.join(rel);
                match content {
                    None => std::fs::create_dir_all(&p)?,
                    Some(bytes) => std::fs::write(&p, bytes)?,
                }
            }
            let shm = Path::new("/dev/shm");
            if shm.is_dir() {
                sys::mount(
                    "classlab-shm",
                    shm,
                    Some("tmpfs"),
                    libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
                    Some(&format!("size={},mode=1777", size.min(64 << 20))),
                )?;
            }
        }
        if cfg.pidns && cfg.remount_proc {
            sys::mount(
                "proc",
                Path::new("/proc"),
                Some("proc"),
                libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
                None,
            )?;
        }
    }
    let child = fork()?;
    if child == 0 {
        let e = python_main(cfg);
        status(&format!("error {e}"));
        // SAFETY: leave the child.
        unsafe { libc::_exit(127) }
    }
    if !cfg.pidns {
        status(&format!("pid {child}"));
    }
    for fd in 0..STATUS_FD {
        // SAFETY: closing our own descriptors.
        unsafe { libc::close(fd) };
    }
    loop {
        let mut st = 0;
        // SAFETY: valid out-pointers.
        let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
        let r = unsafe { libc::wait4(-1, &mut st, 0, &mut ru) };
        if r < 0 {
            match io::Error::last_os_error().raw_os_error() {
                Some(libc::EINTR) => continue,
                _ => return Ok(0),
            }
        }
        if r == child {
            let us = |t: libc::timeval| t.tv_sec * 1_000_000 + t.tv_usec;
            let (kind, n) = if libc::WIFSIGNALED(st) {
                ("signal", libc::WTERMSIG(st))
            } else {
                ("exit", libc::WEXITSTATUS(st))
            };
            status(&format!(
                "python {kind} {n} {} {} {}",
                us(ru.ru_utime),
                us(ru.ru_stime),
                ru.ru_maxrss
            ));
            if cfg.pidns && cfg.remount_proc {
                report_leftovers();
            }
            // The suite's files are mounted read-only; say so if one changed all the same.
            for (rel, content) in &written {
                if let Some(bytes) = content
                    && std::fs::read(cfg.workdir.join(rel)).ok().as_ref() != Some(bytes)
                {
                    status(&format!("tampered {}", rel.display()));
                }
            }
            // Exiting as PID 1 of the namespace kills everything Python left behind.
            return Ok(0);
        }
    }
}

/// In the namespace's own /proc: every process but init is something the suite left behind.
fn report_leftovers() {
    let Ok(rd) = std::fs::read_dir("/proc") else {
        return;
    };
    for e in rd.flatten() {
        let name = e.file_name();
        let Some(pid) = name.to_str().and_then(|n| n.parse::<u32>().ok()) else {
            continue;
        };
        if pid == 1 {
            continue;
        }
        let comm = std::fs::read_to_string(e.path().join("comm")).unwrap_or_default();
        status(&format!(
            "leftover {pid} ({}) [pid in the sandbox]",
            comm.trim()
        ));
    }
}

/// Runs in the Python child: returns only on failure.
fn python_main(cfg: &LaunchConfig) -> io::Error {
    match python_setup(cfg) {
        Ok(e) | Err(e) => e,
    }
}

fn python_setup(cfg: &LaunchConfig) -> io::Result<io::Error> {
    // SAFETY: plain syscalls.
    check(unsafe { libc::setsid() }, "setsid (python)")?;
    for &(res, soft, hard) in &cfg.rlimits {
        sys::set_rlimit(res, soft, hard)?;
    }
    let wd = sys::cstr(&cfg.workdir)?;
    // SAFETY: valid C string.
    check(unsafe { libc::chdir(wd.as_ptr()) }, "chdir")?;
    sys::no_new_privs()?;
    if cfg.drop_caps {
        sys::drop_all_capabilities(cfg.run_as)?;
    }
    if cfg.landlock_abi > 0 {
        let read: Vec<&Path> = cfg.read_paths.iter().map(PathBuf::as_path).collect();
        let write: Vec<&Path> = cfg.write_paths.iter().map(PathBuf::as_path).collect();
        sys::landlock_restrict(cfg.landlock_abi, &read, &write, cfg.landlock_scoped)?;
    }
    // SAFETY: getpid cannot fail.
    seccomp::install(&cfg.seccomp, unsafe { libc::getpid() } as u32)?;
    let prog = sys::cstr(&cfg.python)?;
    let argv: Vec<CString> = cfg
        .argv
        .iter()
        .map(|a| CString::new(a.as_str()).unwrap_or_default())
        .collect();
    let env: Vec<CString> = cfg
        .env
        .iter()
        .map(|(k, v)| CString::new(format!("{k}={v}")).unwrap_or_default())
        .collect();
    let mut argv_p: Vec<*const libc::c_char> = argv.iter().map(|a| a.as_ptr()).collect();
    argv_p.push(std::ptr::null());
    let mut env_p: Vec<*const libc::c_char> = env.iter().map(|a| a.as_ptr()).collect();
    env_p.push(std::ptr::null());
    // SAFETY: NUL-terminated arrays of valid C strings.
    unsafe { libc::execve(prog.as_ptr(), argv_p.as_ptr(), env_p.as_ptr()) };
    Ok(sys::err(&format!("exec {}", cfg.python.display())))
}
