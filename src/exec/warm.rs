//! Warm interpreters: one pre-started Python (the *zygote*, `assets/harness/zygote.py`) that
//! has imported the harness, unittest and pytest, and forks once per suite.
//!
//! The zygote runs through the launcher in its own network, mount, PID, IPC and UTS namespaces,
//! keeps its capabilities (it sets each child up) and never runs code under test. Each child
//! applies, before the harness imports anything of the suite: setsid, the suite's cgroups, new
//! mount/network/IPC/UTS namespaces, a private tmpfs work dir and `/dev/shm`, rlimits, all
//! capabilities dropped with locked securebits, `no_new_privs` and the same Landlock policy as a
//! cold start. Differences from cold, and why they are acceptable:
//! * no PID namespace per suite: the suite's processes are killed through its cgroup (freezer /
//!   `cgroup.kill`), which a double fork cannot escape; warm mode requires such a cgroup. Suites
//!   share the zygote's PID namespace and `/proc`; Landlock's scoping (ABI ≥ 6) keeps them from
//!   signalling each other or the zygote, and ptrace across Landlock domains is denied;
//! * one hash seed (the zygote's, 0): suites asking for another seed run cold.

use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;

use super::launch::{LAUNCH_ARG, LAUNCH_ENV, LaunchConfig};
use super::sys;

/// The zygote program.
pub(crate) const ZYGOTE: &str = include_str!("../../assets/harness/zygote.py");

pub(crate) struct Zygote {
    sock: OwnedFd,
    dead: Arc<AtomicBool>,
    pid: i32,
    thread: Option<JoinHandle<()>>,
}

impl Zygote {
    /// Start the zygote from a thread of its own (the launcher's parent-death signal is tied
    /// to the spawning thread, which must live as long as the zygote).
    pub fn start(launcher: &std::path::Path, config: LaunchConfig) -> io::Result<Zygote> {
        let (mine, theirs) = sys::socket_pair(libc::SOCK_SEQPACKET)?;
        let (dummy_r, dummy_w) = sys::pipe()?;
        drop(dummy_w);
        let (st_r, st_w) = sys::pipe()?;
        let json = serde_json::to_string(&config).map_err(io::Error::other)?;
        let launcher = launcher.to_path_buf();
        let dead = Arc::new(AtomicBool::new(false));
        let dead2 = Arc::clone(&dead);
        let (tx, rx) = std::sync::mpsc::channel::<io::Result<i32>>();
        let thread = std::thread::Builder::new()
            .name("classlab-zygote".into())
            .spawn(move || {
                let mut cmd = Command::new(&launcher);
                cmd.arg(LAUNCH_ARG)
                    .arg(&json)
                    .env_clear()
                    .env(LAUNCH_ENV, "run")
                    .stdin(Stdio::null())
                    .stdout(Stdio::null())
                    .stderr(Stdio::null());
                let fds = [theirs.as_raw_fd(), dummy_r.as_raw_fd(), st_w.as_raw_fd()];
                sys::place_fds_at_3(&mut cmd, fds);
                let child = cmd.spawn();
                drop((theirs, dummy_r, st_w));
                match child {
                    Ok(mut c) => {
                        let _ = tx.send(Ok(c.id() as i32));
                        let _ = c.wait();
                    }
                    Err(e) => {
                        let _ = tx.send(Err(e));
                    }
                }
                drop(st_r);
                dead2.store(true, Ordering::SeqCst);
            })?;
        let pid = rx
            .recv()
            .map_err(|_| io::Error::other("zygote thread ended"))??;
        Ok(Zygote {
            sock: mine,
            dead,
            pid,
            thread: Some(thread),
        })
    }

    pub fn alive(&self) -> bool {
        !self.dead.load(Ordering::SeqCst)
    }

    /// Ask for one suite: the request JSON and five descriptors (stdout, stderr, result,
    /// nonce, status), passed with SCM_RIGHTS.
    pub fn request(&self, json: &[u8], fds: [RawFd; 5]) -> io::Result<()> {
        let mut iov = libc::iovec {
            iov_base: json.as_ptr() as *mut _,
            iov_len: json.len(),
        };
        let payload = std::mem::size_of::<[RawFd; 5]>() as u32;
        // SAFETY: CMSG_SPACE is a pure computation.
        let space = unsafe { libc::CMSG_SPACE(payload) } as usize;
        let mut control = vec![0u8; space];
        // SAFETY: msghdr is plain data; zeroed is a valid start.
        let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.as_mut_ptr().cast();
        msg.msg_controllen = space as _;
        // SAFETY: the control buffer has room for one cmsg with five descriptors.
        unsafe {
            let cmsg = libc::CMSG_FIRSTHDR(&msg);
            (*cmsg).cmsg_level = libc::SOL_SOCKET;
            (*cmsg).cmsg_type = libc::SCM_RIGHTS;
            (*cmsg).cmsg_len = libc::CMSG_LEN(payload) as _;
            std::ptr::copy_nonoverlapping(fds.as_ptr(), libc::CMSG_DATA(cmsg).cast::<RawFd>(), 5);
            let n = libc::sendmsg(self.sock.as_raw_fd(), &msg, libc::MSG_NOSIGNAL);
            if n < 0 {
                return Err(sys::err("sendmsg to the zygote"));
            }
            if n as usize != json.len() {
                return Err(io::Error::other("short write to the zygote"));
            }
        }
        Ok(())
    }
}

impl Drop for Zygote {
    fn drop(&mut self) {
        // Closing our end makes the zygote exit; make sure of it.
        // SAFETY: shutdown on our own socket.
        unsafe { libc::shutdown(self.sock.as_raw_fd(), libc::SHUT_RDWR) };
        sys::kill(self.pid, libc::SIGKILL);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
