//! The launcher's probe (`__sandbox-launch probe`): which isolation steps this machine allows,
//! each tried in a throw-away child.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::{PROBE_MAGIC, fork};
use crate::exec::idmap::{idmap_over, userns_showing};
use crate::exec::{FIRST_SUITE_UID, seccomp, sys};

/// What this machine allows, found by trying each step in a throw-away child.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub(crate) struct ProbeResult {
    pub magic: String,
    pub root: bool,
    pub userns: bool,
    pub netns: bool,
    pub mountns: bool,
    pub tmpfs: bool,
    pub pidns: bool,
    pub proc_remount: bool,
    pub ipc_uts: bool,
    pub drop_caps: bool,
    pub landlock_abi: u32,
    /// pivot_root into a fresh tmpfs works (the sandbox's own root).
    #[serde(default)]
    pub pivot_root: bool,
    /// The seccomp filter installs and refuses a UNIX socket.
    #[serde(default)]
    pub seccomp: bool,
    /// Idmapped mounts of tmpfs work (the split harness's shared scratch directory).
    #[serde(default)]
    pub idmap: bool,
}

fn try_in_child(f: impl FnOnce() -> bool) -> bool {
    match fork() {
        Ok(0) => {
            let ok = f();
            // SAFETY: leave the probe child.
            unsafe { libc::_exit(if ok { 0 } else { 1 }) }
        }
        Ok(pid) => {
            let mut st = 0;
            // SAFETY: valid out-pointer.
            unsafe { libc::waitpid(pid, &mut st, 0) };
            libc::WIFEXITED(st) && libc::WEXITSTATUS(st) == 0
        }
        Err(_) => false,
    }
}

fn enter_userns() -> bool {
    // SAFETY: plain syscalls.
    let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
    if unsafe { libc::unshare(libc::CLONE_NEWUSER) } != 0 {
        return false;
    }
    let _ = std::fs::write("/proc/self/setgroups", "deny");
    std::fs::write("/proc/self/uid_map", format!("0 {uid} 1")).is_ok()
        && std::fs::write("/proc/self/gid_map", format!("0 {gid} 1")).is_ok()
}

/// An idmapped tmpfs directory lets a second uid create a file in a directory the first owns
/// with mode 0700 (what the split harness's host needs of the scratch directory).
fn idmap_works() -> bool {
    let dir = std::env::temp_dir().join(format!("classlab-probe-idmap-{}", std::process::id()));
    let _ = std::fs::create_dir(&dir);
    let (a, b) = (FIRST_SUITE_UID, FIRST_SUITE_UID + 1);
    let ok = try_in_child(|| {
        let sub = dir.join("scratch");
        // SAFETY: plain syscall in a throw-away child.
        let unshared = unsafe { libc::unshare(libc::CLONE_NEWNS) } == 0;
        unshared
            && sys::mount(
                "none",
                Path::new("/"),
                None,
                libc::MS_REC | libc::MS_PRIVATE,
                None,
            )
            .is_ok()
            && sys::mount("t", &dir, Some("tmpfs"), 0, Some("size=65536")).is_ok()
            && std::fs::create_dir(&sub).is_ok()
            && sys::cstr(&sub).is_ok_and(|c| {
                // SAFETY: valid C string.
                unsafe { libc::chown(c.as_ptr(), a, a) == 0 && libc::chmod(c.as_ptr(), 0o700) == 0 }
            })
            && userns_showing(a, b)
                .and_then(|ns| idmap_over(&sub, &ns))
                .is_ok()
            && try_in_child(|| {
                // SAFETY: plain syscalls in a throw-away child.
                let switched =
                    unsafe { libc::setresgid(b, b, b) == 0 && libc::setresuid(b, b, b) == 0 };
                switched && std::fs::write(sub.join("x"), "x").is_ok()
            })
    });
    let _ = std::fs::remove_dir(&dir);
    ok
}

pub(super) fn probe() -> i32 {
    let root = sys::is_root();
    let userns = !root && try_in_child(enter_userns);
    let pre = move || root || (userns && enter_userns());
    let unshare = |flags| unsafe { libc::unshare(flags) } == 0;
    let mut r = ProbeResult {
        magic: PROBE_MAGIC.to_string(),
        root,
        userns,
        landlock_abi: sys::landlock_abi(),
        ..ProbeResult::default()
    };
    r.netns = try_in_child(|| pre() && unshare(libc::CLONE_NEWNET));
    r.ipc_uts = try_in_child(|| pre() && unshare(libc::CLONE_NEWIPC | libc::CLONE_NEWUTS));
    // A mount namespace whose mounts do not propagate back to ours.
    let private_mounts = || {
        unshare(libc::CLONE_NEWNS)
            && sys::mount(
                "none",
                Path::new("/"),
                None,
                libc::MS_REC | libc::MS_PRIVATE,
                None,
            )
            .is_ok()
    };
    r.mountns = try_in_child(|| pre() && private_mounts());
    // The directory is made here, not in the child (whose pid differs), and removed here: in
    // the child it is a mount point until the child exits.
    let dir = std::env::temp_dir().join(format!("classlab-probe-{}", std::process::id()));
    let _ = std::fs::create_dir(&dir);
    r.tmpfs = r.mountns
        && try_in_child(|| {
            pre()
                && private_mounts()
                && sys::mount("t", &dir, Some("tmpfs"), 0, Some("size=65536")).is_ok()
                && std::fs::write(dir.join("x"), "x").is_ok()
        });
    let _ = std::fs::remove_dir(&dir);
    r.pidns = try_in_child(|| {
        pre() && unshare(libc::CLONE_NEWPID) && try_in_child(|| unsafe { libc::getpid() } == 1)
    });
    r.proc_remount = r.pidns
        && r.mountns
        && try_in_child(|| {
            pre()
                && unshare(libc::CLONE_NEWPID)
                && private_mounts()
                && try_in_child(|| {
                    sys::mount(
                        "proc",
                        Path::new("/proc"),
                        Some("proc"),
                        libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
                        None,
                    )
                    .is_ok()
                })
        });
    r.drop_caps = try_in_child(|| pre() && sys::drop_all_capabilities(None).is_ok());
    let dir = std::env::temp_dir().join(format!("classlab-probe-root-{}", std::process::id()));
    let _ = std::fs::create_dir(&dir);
    r.pivot_root = r.mountns
        && try_in_child(|| {
            pre() && private_mounts() && {
                let old = dir.join("old");
                sys::mount("t", &dir, Some("tmpfs"), 0, Some("size=65536")).is_ok()
                    && std::fs::create_dir(&old).is_ok()
                    && match (sys::cstr(&dir), sys::cstr(&old)) {
                        (Ok(n), Ok(o)) => unsafe {
                            // SAFETY: valid C strings.
                            libc::syscall(libc::SYS_pivot_root, n.as_ptr(), o.as_ptr()) == 0
                        },
                        _ => false,
                    }
            }
        });
    let _ = std::fs::remove_dir(&dir);
    r.seccomp = try_in_child(|| {
        let Ok(progs) = seccomp::programs(false) else {
            return false;
        };
        let hex: Vec<String> = progs.iter().map(seccomp::to_hex).collect();
        sys::no_new_privs().is_ok()
            // SAFETY: getpid cannot fail.
            && seccomp::install(&hex, unsafe { libc::getpid() } as u32).is_ok()
            // SAFETY: plain syscall.
            && unsafe { libc::socket(libc::AF_UNIX, libc::SOCK_STREAM, 0) } < 0
    });
    r.idmap = root && r.mountns && idmap_works();
    let json = serde_json::to_string(&r).unwrap_or_default();
    let _ = sys::write_all(1, format!("{json}\n").as_bytes());
    0
}
