//! The launcher's Python processes: the runner (every suite's Python; in the split harness, the
//! one that runs the tests and writes the verdicts) and the split harness's host (the code under
//! test), each set up in its own forked child and then replaced by Python.
//!
//! The host lives one PID namespace down (it is PID 1 there, [`host`], with a mount namespace
//! and `/proc` of its own): it sees no process of the suite but its own, so it cannot
//! name, signal, trace or read the runner, and `/proc/<runner>/cmdline` does not exist for it.
//! It runs as another uid, with Landlock rules of its own (the code directory, not the tests'),
//! and holds one descriptor besides its output: the host socket, as 3.
//!
//! Descriptors: the runner gets 0 `/dev/null`, 1/2 output, 3 result, 4 token, 5 the host socket
//! (split only); the host gets 0, 1/2 and 3 the host socket. The status descriptor never reaches
//! Python: it is moved above the others, close-on-exec, before anything is placed at 5.

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;

use super::{HostConfig, LaunchConfig, STATUS_FD};
use crate::exec::idmap::idmap_over;
use crate::exec::seccomp;
use crate::exec::sys::{self, check};

/// How a process ended, with its resource use: `exit|signal N utime_us stime_us maxrss_kb`.
pub(super) fn ended(st: i32, ru: &libc::rusage) -> String {
    let us = |t: libc::timeval| t.tv_sec * 1_000_000 + t.tv_usec;
    let (kind, n) = if libc::WIFSIGNALED(st) {
        ("signal", libc::WTERMSIG(st))
    } else {
        ("exit", libc::WEXITSTATUS(st))
    };
    format!(
        "{kind} {n} {} {} {}",
        us(ru.ru_utime),
        us(ru.ru_stime),
        ru.ru_maxrss
    )
}

/// Move the status descriptor out of the way (above 9, close-on-exec).
fn move_status_high() -> io::Result<()> {
    let old = STATUS_FD.load(Ordering::Relaxed);
    // SAFETY: fcntl/close on our own descriptors.
    let new = check(
        unsafe { libc::fcntl(old, libc::F_DUPFD_CLOEXEC, 10) },
        "fcntl(status)",
    )?;
    STATUS_FD.store(new, Ordering::Relaxed);
    unsafe { libc::close(old) };
    Ok(())
}

/// `fd` as `target` (inherited by Python).
fn place(fd: &OwnedFd, target: i32) -> io::Result<()> {
    // SAFETY: dup2 on descriptors we own.
    check(unsafe { libc::dup2(fd.as_raw_fd(), target) }, "dup2")?;
    Ok(())
}

/// What one Python process is given.
struct Python<'a> {
    argv: &'a [String],
    env: &'a [(String, String)],
    run_as: Option<(u32, u32)>,
    read: &'a [PathBuf],
    write: &'a [PathBuf],
}

/// The runner, in the child the suite's init forked: returns only on failure. `pair`: the
/// runner's end of the host socket (placed at 5) and the host's (closed), in split mode.
pub(super) fn runner_main(cfg: &LaunchConfig, pair: Option<(&OwnedFd, &OwnedFd)>) -> io::Error {
    let setup = || -> io::Result<()> {
        if let Some((mine, theirs)) = pair {
            move_status_high()?;
            place(mine, 5)?;
            // SAFETY: closing the host's end in this process.
            unsafe { libc::close(theirs.as_raw_fd()) };
        }
        Ok(())
    };
    if let Err(e) = setup() {
        return e;
    }
    exec_python(
        cfg,
        &Python {
            argv: &cfg.argv,
            env: &cfg.env,
            run_as: cfg.run_as,
            read: &cfg.read_paths,
            write: &cfg.write_paths,
        },
    )
}

/// The host: PID 1 of the PID namespace the suite's init unshared for it (no init of its own:
/// one fork less per suite; whatever the code forks ends with it). Mounts the namespace's own
/// `/proc` in a mount namespace of its own (and the idmapped scratch directory, with `idmap`'s
/// user namespace), then becomes Python: returns only on failure.
pub(super) fn host(
    cfg: &LaunchConfig,
    host: &HostConfig,
    sock: &OwnedFd,
    runner_end: &OwnedFd,
    idmap: Option<&OwnedFd>,
) -> io::Result<io::Error> {
    // SAFETY: plain prctl/close.
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
        libc::close(runner_end.as_raw_fd());
    }
    // SAFETY: plain syscall.
    check(
        unsafe { libc::unshare(libc::CLONE_NEWNS) },
        "unshare(mount)",
    )?;
    sys::mount(
        "none",
        Path::new("/"),
        None,
        libc::MS_REC | libc::MS_PRIVATE,
        None,
    )?;
    sys::mount(
        "proc",
        Path::new("/proc"),
        Some("proc"),
        libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
        None,
    )?;
    if let (Some((scratch, ..)), Some(ns)) = (&host.scratch_idmap, idmap) {
        idmap_over(scratch, ns)
            .map_err(|e| io::Error::new(e.kind(), format!("idmapped scratch: {e}")))?;
    }
    Ok(host_main(cfg, host, sock))
}

/// The host: descriptors 0-2 and the socket as 3, nothing else; then Python.
fn host_main(cfg: &LaunchConfig, host: &HostConfig, sock: &OwnedFd) -> io::Error {
    let setup = || -> io::Result<()> {
        move_status_high()?;
        place(sock, 3)?;
        // SAFETY: closing what the host must not hold (token; result is replaced at 3).
        unsafe { libc::close(4) };
        Ok(())
    };
    if let Err(e) = setup() {
        return e;
    }
    exec_python(
        cfg,
        &Python {
            argv: &host.argv,
            env: &host.env,
            run_as: host.run_as,
            read: &host.read_paths,
            write: &host.write_paths,
        },
    )
}

/// Apply the sandbox's last layers to this process and become Python: returns only on
/// failure.
fn exec_python(cfg: &LaunchConfig, py: &Python) -> io::Error {
    match setup_and_exec(cfg, py) {
        Ok(e) | Err(e) => e,
    }
}

fn setup_and_exec(cfg: &LaunchConfig, py: &Python) -> io::Result<io::Error> {
    // SAFETY: plain syscalls.
    check(unsafe { libc::setsid() }, "setsid (python)")?;
    for &(res, soft, hard) in &cfg.rlimits {
        sys::set_rlimit(res, soft, hard)?;
    }
    let wd = sys::cstr(cfg.cwd())?;
    // SAFETY: valid C string.
    check(unsafe { libc::chdir(wd.as_ptr()) }, "chdir")?;
    sys::no_new_privs()?;
    if cfg.drop_caps {
        sys::drop_all_capabilities(py.run_as)?;
    }
    if cfg.landlock_abi > 0 {
        let read: Vec<&Path> = py.read.iter().map(PathBuf::as_path).collect();
        let write: Vec<&Path> = py.write.iter().map(PathBuf::as_path).collect();
        sys::landlock_restrict(cfg.landlock_abi, &read, &write, cfg.landlock_scoped)?;
    }
    // SAFETY: getpid cannot fail.
    seccomp::install(&cfg.seccomp, unsafe { libc::getpid() } as u32)?;
    let prog = sys::cstr(&cfg.python)?;
    let argv: Vec<CString> = py
        .argv
        .iter()
        .map(|a| CString::new(a.as_str()).unwrap_or_default())
        .collect();
    let env: Vec<CString> = py
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
