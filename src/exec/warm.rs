//! Warm interpreters: one pre-started Python (the *zygote*, `assets/harness/zygote.py`) that
//! has imported the harness and unittest (pytest once a suite runs with it), and forks once
//! per suite.
//!
//! The zygote runs through the launcher in its own network, mount, PID, IPC and UTS namespaces,
//! keeps its capabilities (it sets each child up) and never runs code under test. It shares
//! nothing between suites:
//! * it never reads a request: classlab sends a fixed header and descriptors, among them two
//!   sealed memory files holding the request ([`request_parts`]); the zygote forks at once and
//!   the child reads them. No earlier suite's code, tests or data is in the heap later suites
//!   are forked from (readable through `/proc/self/mem`), and a request of any size is
//!   delivered (or refused for that suite alone: files larger than its disk);
//! * every suite gets a PID namespace of its own (the zygote unshares one before each fork and
//!   goes back to its own after): the child is the namespace's init, with its own `/proc`, and
//!   forks the runner; a suite cannot see, signal or name another suite's processes;
//! * as root, every suite runs as a uid of its own (see `uids.rs`), and the seccomp filter lets
//!   `prlimit64`, `setpriority` and the like act on the calling process only (`seccomp.rs`).
//!
//! The runner applies, before the harness imports anything of the suite, the same isolation
//! as a cold start: rlimits, all capabilities dropped with locked securebits, `no_new_privs`,
//! Landlock, seccomp. What differs from cold: one hash seed (the zygote's, 0; suites asking for
//! another run cold), and the suite's processes are killed through its cgroup as well as its
//! namespace (warm mode requires a cgroup that can kill).

use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;

use std::collections::BTreeMap;
use std::collections::hash_map::Entry;
use std::path::Path;

use super::config::SuiteLaunch;
use super::idmap::userns_showing;
use super::launch::{CONFIG_ON_FD, LAUNCH_ARG, LAUNCH_ENV, LaunchConfig};
use super::{HARNESS, HOST, Limits, SPLIT_RUNNER, Sandbox, SuiteKind, SuiteSpec, sys};

/// The zygote program.
pub(crate) const ZYGOTE: &str = include_str!("../../assets/harness/zygote.py");

/// The two parts of a warm request (JSON): the suite's (how to set the sandbox up, the files
/// every process of the suite may see, and the split harness's host) and the runner's (its
/// spec and the files only it may see: the test modules). The suite's init reads the first,
/// sets up and starts the host, and only then reads the second: the host is forked before any
/// test is in memory.
pub(crate) fn request_parts(
    launch: &SuiteLaunch,
    spec: &SuiteSpec,
    work_root: &Path,
) -> io::Result<(Vec<u8>, Vec<u8>)> {
    let config = &launch.config;
    let env = |e: &[(String, String)]| e.iter().cloned().collect::<BTreeMap<String, String>>();
    let (mut shared, mut runner_only) = (Vec::new(), Vec::new());
    for ((rel, runner), (_, content)) in launch.files.iter().zip(&spec.files) {
        if *runner {
            runner_only.push((rel, content));
        } else {
            shared.push((rel, content));
        }
    }
    let host = config.host.as_ref().map(|h| {
        serde_json::json!({
            "spec": launch.host_spec,
            "env": env(&h.env),
            "run_as": h.run_as,
            "scratch_idmap": h.scratch_idmap,
            "cpu": h.cpu,
            "read_paths": h.read_paths,
            "write_paths": h.write_paths,
        })
    });
    let suite = serde_json::json!({
        "work_root": work_root,
        "minimal_root": config.minimal_root,
        "run_as": config.run_as,
        "seccomp": config.seccomp,
        "workdir": config.workdir,
        "cwd": config.cwd(),
        "dirs": config.dirs,
        "env": env(&config.env),
        "rlimits": config.rlimits,
        "cgroup_procs": config.cgroup_procs,
        "netns": config.netns,
        "tmpfs_bytes": config.tmpfs_bytes,
        "drop_caps": config.drop_caps,
        "landlock_abi": config.landlock_abi,
        "read_paths": config.read_paths,
        "write_paths": config.write_paths,
        "files": shared,
        "host": host,
    });
    let runner = serde_json::json!({
        "harness": spec.harness,
        "spec": launch.runner_spec,
        "files": runner_only,
    });
    Ok((
        serde_json::to_vec(&suite).map_err(io::Error::other)?,
        serde_json::to_vec(&runner).map_err(io::Error::other)?,
    ))
}

/// What the zygote compiles once, at start (JSON on its descriptor 4): the in-process
/// harness, and the split harness's runner and host.
fn sources() -> Vec<u8> {
    serde_json::json!({ "inproc": HARNESS, "split": SPLIT_RUNNER, "host": HOST })
        .to_string()
        .into_bytes()
}

impl Sandbox {
    /// The zygote's own launch: namespaces and the sandbox's root (with an empty mount point
    /// for the suites' work dirs), no Landlock or seccomp, capabilities kept (it sets children
    /// up).
    fn zygote_config(&self) -> io::Result<LaunchConfig> {
        let base = SuiteSpec::unittest_one_module("", "").with_limits(Limits {
            disk_bytes: 16 << 20,
            ..Limits::default()
        });
        let home = self
            .work_root
            .join(format!("zygote-{}", &sys::random_hex()[..8]));
        std::fs::create_dir_all(&home)?;
        let mut cfg = self.launch_config(&base, &home, Vec::new(), None);
        cfg.argv
            .extend(["-s", "-P", "-B", "-c", ZYGOTE].map(String::from));
        cfg.env.retain(|(k, _)| k != "PYTHONHASHSEED");
        cfg.env.push(("PYTHONHASHSEED".into(), "0".into()));
        cfg.landlock_abi = 0;
        cfg.write_paths.clear();
        cfg.rlimits = vec![(libc::RLIMIT_CORE as i32, 0, 0)];
        cfg.drop_caps = false;
        cfg.seccomp.clear();
        cfg.root_dirs = vec![self.work_root.clone()];
        // Children join their suite's cgroups from inside the zygote's root.
        if let Some(c) = &self.report.cgroup {
            cfg.rw_paths = [&c.pids, &c.memory, &c.freezer]
                .into_iter()
                .flatten()
                .cloned()
                .collect();
        }
        if !cfg.minimal_root {
            cfg.tmpfs_bytes = None;
            cfg.read_paths.clear();
        }
        Ok(cfg)
    }

    /// Hand a suite to the zygote (started, or restarted, on demand). A zygote that is alive
    /// but refuses the request is left alone (its suites keep running); this suite then runs
    /// cold.
    pub(crate) fn warm_request(
        &self,
        launch: &SuiteLaunch,
        spec: &SuiteSpec,
        fds: [RawFd; 5],
    ) -> io::Result<()> {
        let (suite, runner) = request_parts(launch, spec, &self.work_root)?;
        let suite = sys::sealed_memfd("classlab-suite", &suite)?;
        let runner = sys::sealed_memfd("classlab-runner", &runner)?;
        let [out, err, res, tok, st] = fds;
        let pair = launch
            .config
            .host
            .as_ref()
            .and_then(|h| h.scratch_idmap.as_ref())
            .map(|(_, from, to)| (*from, *to));
        let placeholder;
        let userns = match pair {
            Some((from, to)) => self.idmap_userns(from, to)?,
            None => {
                placeholder = OwnedFd::from(std::fs::File::open("/dev/null")?);
                placeholder.as_raw_fd()
            }
        };
        let all = [
            out,
            err,
            res,
            tok,
            st,
            suite.as_raw_fd(),
            runner.as_raw_fd(),
            userns,
        ];
        let mut slot = self.zygote.lock().unwrap_or_else(|e| e.into_inner());
        if slot.as_ref().is_none_or(|z| !z.alive()) {
            *slot = None;
            *slot = Some(Zygote::start(&self.report.launcher, self.zygote_config()?)?);
        }
        let header = match spec.kind {
            SuiteKind::Pytest { .. } => HEADER_PYTEST,
            SuiteKind::Unittest { .. } => HEADER,
        };
        match slot.as_ref() {
            Some(z) => z.request(header, all),
            None => Err(io::Error::other("zygote unavailable")),
        }
    }
}

impl Sandbox {
    /// The user namespace that describes a split host's idmapped view of scratch (runner uid
    /// `from` shown as host uid `to`): made once per uid pair (a fork) and kept for the
    /// sandbox's life, where each suite used to fork for its own.
    fn idmap_userns(&self, from: u32, to: u32) -> io::Result<RawFd> {
        let mut idmaps = self.idmaps.lock().unwrap_or_else(|e| e.into_inner());
        let ns = match idmaps.entry((from, to)) {
            Entry::Occupied(e) => e.into_mut(),
            Entry::Vacant(e) => e.insert(
                userns_showing(from, to)
                    .map_err(|e| io::Error::new(e.kind(), format!("idmap: {e}")))?,
            ),
        };
        // Never removed, so the raw descriptor stays valid after the lock.
        Ok(ns.as_raw_fd())
    }
}

/// What every request says (the zygote refuses anything else): the same for every suite but
/// for whether it runs with pytest, which the zygote imports the first time one does.
const HEADER: &[u8] = b"classlab-suite/3";
const HEADER_PYTEST: &[u8] = b"classlab-suite/3 pytest";
/// Descriptors of one request, in order: stdout, stderr, result (write), token (read), status
/// (write), the suite's part of the request and the runner's part (sealed memory files), and
/// the user namespace of the split harness's idmapped scratch (`/dev/null` without one).
pub(crate) const REQUEST_FDS: usize = 8;

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
        let sources = sys::sealed_memfd("classlab-sources", &sources())?;
        let (st_r, st_w) = sys::pipe()?;
        let json = serde_json::to_vec(&config).map_err(io::Error::other)?;
        let config = sys::sealed_memfd("classlab-launch", &json)?;
        let launcher = launcher.to_path_buf();
        let dead = Arc::new(AtomicBool::new(false));
        let dead2 = Arc::clone(&dead);
        let (tx, rx) = std::sync::mpsc::channel::<io::Result<i32>>();
        let thread = std::thread::Builder::new()
            .name("classlab-zygote".into())
            .spawn(move || {
                let mut cmd = Command::new(&launcher);
                cmd.arg(LAUNCH_ARG)
                    .arg(CONFIG_ON_FD)
                    .env_clear()
                    .env(LAUNCH_ENV, "run")
                    .stdin(Stdio::null())
                    .stdout(Stdio::null())
                    .stderr(Stdio::null());
                let fds = [
                    theirs.as_raw_fd(),
                    sources.as_raw_fd(),
                    st_w.as_raw_fd(),
                    config.as_raw_fd(),
                ];
                sys::place_fds_at_3(&mut cmd, fds);
                let child = cmd.spawn();
                drop((theirs, sources, st_w, config));
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

    /// Ask for one suite: a fixed header and [`REQUEST_FDS`] descriptors (stdout, stderr,
    /// result, token, status, the suite's part of the request, the runner's part, the idmap's
    /// user namespace), passed
    /// with SCM_RIGHTS. The request itself is in the two sealed memory files: the zygote never
    /// reads it (its child does, after the fork), so no size can overflow the socket and no
    /// suite's data stays in the heap later suites are forked from.
    pub fn request(&self, header: &[u8], fds: [RawFd; REQUEST_FDS]) -> io::Result<()> {
        let mut iov = libc::iovec {
            iov_base: header.as_ptr() as *mut _,
            iov_len: header.len(),
        };
        let payload = std::mem::size_of::<[RawFd; REQUEST_FDS]>() as u32;
        // SAFETY: CMSG_SPACE is a pure computation.
        let space = unsafe { libc::CMSG_SPACE(payload) } as usize;
        let mut control = vec![0u8; space];
        // SAFETY: msghdr is plain data; zeroed is a valid start.
        let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.as_mut_ptr().cast();
        msg.msg_controllen = space as _;
        // SAFETY: the control buffer has room for one cmsg with REQUEST_FDS descriptors.
        unsafe {
            let cmsg = libc::CMSG_FIRSTHDR(&msg);
            (*cmsg).cmsg_level = libc::SOL_SOCKET;
            (*cmsg).cmsg_type = libc::SCM_RIGHTS;
            (*cmsg).cmsg_len = libc::CMSG_LEN(payload) as _;
            std::ptr::copy_nonoverlapping(
                fds.as_ptr(),
                libc::CMSG_DATA(cmsg).cast::<RawFd>(),
                REQUEST_FDS,
            );
            let n = libc::sendmsg(self.sock.as_raw_fd(), &msg, libc::MSG_NOSIGNAL);
            if n < 0 {
                return Err(sys::err("sendmsg to the zygote"));
            }
            if n as usize != header.len() {
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
