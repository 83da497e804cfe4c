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
//!          ├─ python    the runner: setsid, rlimits, capabilities dropped, no_new_privs,
//!          │            Landlock, seccomp, exec
//!          └─ host      split harness only: the code under test's Python, as another uid,
//!                       PID 1 of a PID namespace nested in the suite's, with a mount namespace
//!                       and /proc of its own (see `child.rs`); its end is reported if it comes
//!                       before the runner's
//! ```
//! Descriptors received from the parent: 0 `/dev/null`, 1/2 output pipes, 3 result pipe (write),
//! 4 nonce pipe (read), 5 status pipe (write; never reaches Python), and 6 the configuration
//! (a sealed memory file) when argv\[2\] is [`CONFIG_ON_FD`] (a configuration above the
//! argument limit, 128 KiB, cannot travel in argv).
//! Status lines: `pid N` (no PID namespace), `python exit|signal N utime_us stime_us maxrss_kb`,
//! `host exit|signal N utime_us stime_us maxrss_kb`, `init exit|signal N`, `leftover …`,
//! `tampered <file>`, `error <what>: <why>`.

use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI32, Ordering};

use serde::{Deserialize, Serialize};

use super::idmap::userns_showing;
use super::rootfs::{self, RootPlan};
use super::sys::{self, check};

mod child;
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
/// argv\[2\] saying the configuration is on descriptor [`CONFIG_FD`], not in argv.
pub const CONFIG_ON_FD: &str = "@6";
const CONFIG_FD: i32 = 6;

/// Where status lines go: descriptor 5, until a child moves it out of a Python's way.
static STATUS_FD: AtomicI32 = AtomicI32::new(5);

/// Everything the launcher needs, passed as JSON (argv\[2\], or on descriptor 6).
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
    /// Directories of the work dir with their owner and mode: (path, uid, gid, mode), made
    /// before its files (the split harness's tests, code and scratch directories). With any,
    /// the work dir itself belongs to root (mode 0711).
    #[serde(default)]
    pub dirs: Vec<(PathBuf, u32, u32, u32)>,
    /// Python's working directory (default: the work dir).
    #[serde(default)]
    pub cwd: Option<PathBuf>,
    /// The split harness's host: a second Python beside the runner (see `child.rs`).
    #[serde(default)]
    pub host: Option<HostConfig>,
}

/// The split harness's host process: what differs from the runner's settings.
#[derive(Debug, Clone, Serialize, Deserialize, Default, PartialEq)]
pub(crate) struct HostConfig {
    /// Full argv (argv[0] included).
    pub argv: Vec<String>,
    pub env: Vec<(String, String)>,
    /// (uid, gid), never the runner's.
    pub run_as: Option<(u32, u32)>,
    pub read_paths: Vec<PathBuf>,
    pub write_paths: Vec<PathBuf>,
    /// The scratch directory and (runner uid, host uid): as the host sees it, an idmapped
    /// mount showing the runner's files as its own (see `idmap.rs`).
    #[serde(default)]
    pub scratch_idmap: Option<(PathBuf, u32, u32)>,
    /// The CPU the suite's processes share (`cpus.rs`); None: wherever the kernel puts them.
    #[serde(default)]
    pub cpu: Option<usize>,
}

impl LaunchConfig {
    /// Where Python starts.
    pub fn cwd(&self) -> &Path {
        self.cwd.as_deref().unwrap_or(&self.workdir)
    }
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
        b"run" => match args.get(2).and_then(|a| read_config(a.as_bytes())) {
            Some(cfg) => run(&cfg),
            None => {
                status("error config: unreadable launcher configuration");
                125
            }
        },
        b"probe" => probe(),
        _ => 125,
    };
    // SAFETY: plain exit; nothing to unwind in the launcher.
    unsafe { libc::_exit(code) }
}

/// The configuration: argv\[2\] itself, or the memory file on descriptor 6 (then closed).
fn read_config(arg: &[u8]) -> Option<LaunchConfig> {
    if arg != CONFIG_ON_FD.as_bytes() {
        return serde_json::from_slice(arg).ok();
    }
    use std::io::Read;
    use std::os::fd::FromRawFd;
    // SAFETY: descriptor 6 is ours (the parent placed it) and read only here.
    let mut f = unsafe { std::fs::File::from_raw_fd(CONFIG_FD) };
    let mut bytes = Vec::new();
    f.read_to_end(&mut bytes).ok()?;
    serde_json::from_slice(&bytes).ok()
}

fn status(line: &str) {
    let mut l = line.replace('\n', " ");
    l.push('\n');
    let _ = sys::write_all(STATUS_FD.load(Ordering::Relaxed), l.as_bytes());
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

/// Close 0..=4: a process that only reports must not hold the suite's pipes open.
fn close_suite_fds() {
    for fd in 0..5 {
        // SAFETY: closing our own descriptors.
        unsafe { libc::close(fd) };
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
    let status_fd = STATUS_FD.load(Ordering::Relaxed);
    close_from(status_fd + 1);
    // SAFETY: plain fcntl/prctl calls.
    unsafe {
        libc::fcntl(status_fd, libc::F_SETFD, libc::FD_CLOEXEC);
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
    close_suite_fds();
    let st = wait_for(init);
    if libc::WIFSIGNALED(st) {
        status(&format!("init signal {}", libc::WTERMSIG(st)));
    } else if libc::WIFEXITED(st) && libc::WEXITSTATUS(st) != 0 {
        status(&format!("init exit {}", libc::WEXITSTATUS(st)));
    }
    Ok(0)
}

/// Wait for one child (retrying on EINTR); its wait status.
fn wait_for(pid: i32) -> i32 {
    let mut st = 0;
    loop {
        // SAFETY: st is a valid int.
        let r = unsafe { libc::waitpid(pid, &mut st, 0) };
        if r == pid || (r < 0 && io::Error::last_os_error().raw_os_error() != Some(libc::EINTR)) {
            return st;
        }
    }
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

/// The split harness's directories: their owner and mode (the files in them are root's and
/// read-only already).
fn own_dirs(cfg: &LaunchConfig) -> io::Result<()> {
    for (dir, uid, gid, mode) in &cfg.dirs {
        std::fs::create_dir_all(dir)?;
        let c = sys::cstr(dir)?;
        // SAFETY: valid C string.
        check(unsafe { libc::chown(c.as_ptr(), *uid, *gid) }, "chown")?;
        check(unsafe { libc::chmod(c.as_ptr(), *mode) }, "chmod")?;
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
    let split = !cfg.dirs.is_empty();
    if cfg.mountns && cfg.minimal_root {
        snapshot(&cfg.workdir, Path::new(""), &mut written)
            .map_err(|e| io::Error::new(e.kind(), format!("read work dir: {e}")))?;
        rootfs::enter(&RootPlan {
            read: &cfg.read_paths,
            workdir: &cfg.workdir,
            files: written.clone(),
            disk_bytes: cfg.tmpfs_bytes.unwrap_or(64 << 20),
            owner: if split {
                (0, 0)
            } else {
                cfg.run_as.unwrap_or((0, 0))
            },
            work_mode: if split { 0o711 } else { 0o700 },
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
            let mode = if split { "0711" } else { "0700" };
            sys::mount(
                "classlab",
                &cfg.workdir,
                Some("tmpfs"),
                libc::MS_NOSUID | libc::MS_NODEV,
                Some(&format!("size={size},mode={mode},nr_inodes=65536")),
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
    own_dirs(cfg).map_err(|e| io::Error::new(e.kind(), format!("split directories: {e}")))?;
    // The host socket: one end each, nothing else shared.
    let pair = match &cfg.host {
        Some(_) => Some(sys::socket_pair(libc::SOCK_STREAM)?),
        None => None,
    };
    if let Some(cpu) = cfg.host.as_ref().and_then(|h| h.cpu) {
        super::cpus::pin_to(cpu); // the runner and the host inherit it
    }
    let child = fork()?;
    if child == 0 {
        let e = child::runner_main(cfg, pair.as_ref().map(|(runner, host)| (runner, host)));
        status(&format!("error {e}"));
        // SAFETY: leave the child.
        unsafe { libc::_exit(127) }
    }
    if !cfg.pidns {
        status(&format!("pid {child}"));
    }
    let mut host_pid = None;
    if let (Some(host), Some((runner_end, host_end))) = (&cfg.host, pair.as_ref()) {
        // Before the host's PID namespace: its helper process takes no pid there.
        let idmap = match &host.scratch_idmap {
            Some((_, runner, host_uid)) => Some(
                userns_showing(*runner, *host_uid)
                    .map_err(|e| io::Error::new(e.kind(), format!("idmap: {e}")))?,
            ),
            None => None,
        };
        // Forked last: the PID namespace unshared here is only for the host's children.
        check(
            // SAFETY: plain syscall.
            unsafe { libc::unshare(libc::CLONE_NEWPID) },
            "unshare(pid) for the host",
        )?;
        let pid = fork()?;
        if pid == 0 {
            let e = match child::host(cfg, host, host_end, runner_end, idmap.as_ref()) {
                Ok(e) | Err(e) => e,
            };
            status(&format!("error host: {e}"));
            // SAFETY: leave the child.
            unsafe { libc::_exit(125) }
        }
        host_pid = Some(pid);
    }
    drop(pair);
    close_suite_fds();
    while let Some((r, st, ru)) = wait_any() {
        if Some(r) == host_pid {
            status(&format!("host {}", child::ended(st, &ru)));
        }
        if r == child {
            status(&format!("python {}", child::ended(st, &ru)));
            if cfg.pidns && cfg.remount_proc {
                report_leftovers(host_pid);
            }
            // The suite's files are mounted read-only; say so if one changed all the same.
            for (rel, content) in &written {
                if let Some(bytes) = content
                    && std::fs::read(cfg.workdir.join(rel)).ok().as_ref() != Some(bytes)
                {
                    status(&format!("tampered {}", rel.display()));
                }
            }
            // Exiting as PID 1 of the namespace kills everything Python left behind, the
            // split harness's host with it.
            return Ok(0);
        }
    }
    Ok(0)
}

/// Wait for any child, again when interrupted: its pid, status and resource usage; `None`
/// when no child is left.
pub(super) fn wait_any() -> Option<(libc::pid_t, i32, libc::rusage)> {
    loop {
        let mut st = 0;
        // SAFETY: a zeroed rusage is a valid value of it.
        let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: valid out-pointers.
        let r = unsafe { libc::wait4(-1, &mut st, 0, &mut ru) };
        if r >= 0 {
            return Some((r, st, ru));
        }
        if io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
            return None;
        }
    }
}

/// In the namespace's own /proc: every process but init is something the suite left behind,
/// except the split harness's host (it ends with the suite by design).
fn report_leftovers(host: Option<i32>) {
    let Ok(rd) = std::fs::read_dir("/proc") else {
        return;
    };
    for e in rd.flatten() {
        let name = e.file_name();
        let Some(pid) = name.to_str().and_then(|n| n.parse::<i32>().ok()) else {
            continue;
        };
        if pid == 1 || Some(pid) == host {
            continue;
        }
        // A process that is gone by now is not left behind (the host ends on its own once the
        // runner has closed the socket).
        if !e.path().join("status").exists() {
            continue;
        }
        let comm = std::fs::read_to_string(e.path().join("comm")).unwrap_or_default();
        status(&format!(
            "leftover {pid} ({}) [pid in the sandbox]",
            comm.trim()
        ));
    }
}
