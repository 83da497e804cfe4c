//! The split harness's shared scratch directory, as the host sees it: an idmapped mount in
//! which the runner's uid shows as the host's (and the host's writes are stored as the
//! runner's). Runner and host keep distinct uids for everything else (signals, `/proc`, the
//! tests' and the code's directories), yet a directory the tests make with `tempfile.mkdtemp`
//! (mode 0700) is the code's to use, and what the code makes is the tests' to read and remove
//! — as in one process. Needs idmapped mounts of tmpfs (Linux ≥ 6.3); the launcher's probe says
//! whether the machine has them.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::path::Path;

use super::sys::{self, check};

const OPEN_TREE_CLONE: libc::c_uint = 1;
const MOVE_MOUNT_F_EMPTY_PATH: libc::c_uint = 4;
const MOUNT_ATTR_IDMAP: u64 = 0x0010_0000;

#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}

/// A user namespace whose uid and gid maps show `from` as `to` (what an idmapped mount is
/// described by): made by a child that unshares one and waits while it is mapped and opened.
/// The cold launcher makes it before the host's PID namespace, so that its child takes no pid
/// there (the host is PID 1 of its namespace); warm suites get one that classlab made once for
/// their uid pair (`warm.rs`).
pub(crate) fn userns_showing(from: u32, to: u32) -> io::Result<OwnedFd> {
    let (ready_r, ready_w) = sys::pipe()?;
    let (done_r, done_w) = sys::pipe()?;
    // SAFETY: the child makes only async-signal-safe syscalls (no allocation, no lock), so
    // forking is sound from a process with other threads (classlab's workers) as well.
    let pid = check(unsafe { libc::fork() }, "fork")?;
    if pid == 0 {
        // SAFETY: plain syscalls in the child, which then leaves. It holds only its own ends:
        // the parent's closing `done_w` must reach it as end of file.
        unsafe {
            libc::close(ready_r.as_raw_fd());
            libc::close(done_w.as_raw_fd());
            let ok = libc::unshare(libc::CLONE_NEWUSER) == 0;
            libc::write(ready_w.as_raw_fd(), [u8::from(ok)].as_ptr().cast(), 1);
            let mut b = [0u8; 1];
            libc::read(done_r.as_raw_fd(), b.as_mut_ptr().cast(), 1);
            libc::_exit(0);
        }
    }
    drop((ready_w, done_r));
    let result = (|| {
        let mut b = [0u8; 1];
        // SAFETY: reading one byte into a valid buffer.
        let n = unsafe { libc::read(ready_r.as_raw_fd(), b.as_mut_ptr().cast(), 1) };
        if n != 1 || b[0] != 1 {
            return Err(io::Error::other("unshare(user) for the idmap failed"));
        }
        // Inside `from` is outside `to`: an on-disk `from` shows as `to` through the mount.
        std::fs::write(format!("/proc/{pid}/uid_map"), format!("{from} {to} 1\n"))?;
        std::fs::write(format!("/proc/{pid}/gid_map"), format!("{from} {to} 1\n"))?;
        let ns = std::fs::File::open(format!("/proc/{pid}/ns/user"))?;
        Ok(OwnedFd::from(ns))
    })();
    drop(done_w);
    let mut st = 0;
    // SAFETY: waiting for our own child.
    unsafe { libc::waitpid(pid, &mut st, 0) };
    result
}

/// Put over `dir` (in the calling process's mount namespace) an idmapped bind of itself,
/// submounts included, mapped as `userns` says (see [`userns_showing`]).
pub(crate) fn idmap_over(dir: &Path, userns: &OwnedFd) -> io::Result<()> {
    let path = sys::cstr(dir)?;
    let empty = c"";
    // SAFETY: valid C strings; the returned descriptor is ours.
    let tree = unsafe {
        libc::syscall(
            libc::SYS_open_tree,
            libc::AT_FDCWD,
            path.as_ptr(),
            OPEN_TREE_CLONE | libc::O_CLOEXEC as libc::c_uint | libc::AT_RECURSIVE as libc::c_uint,
        )
    };
    check(tree as i32, "open_tree")?;
    // SAFETY: a fresh descriptor.
    let tree = unsafe { OwnedFd::from_raw_fd(tree as i32) };
    let attr = MountAttr {
        attr_set: MOUNT_ATTR_IDMAP,
        attr_clr: 0,
        propagation: 0,
        userns_fd: userns.as_raw_fd() as u64,
    };
    // SAFETY: attr is a valid mount_attr of the size given.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_mount_setattr,
            tree.as_raw_fd(),
            empty.as_ptr(),
            (libc::AT_EMPTY_PATH | libc::AT_RECURSIVE) as libc::c_uint,
            &attr as *const MountAttr,
            std::mem::size_of::<MountAttr>(),
        )
    };
    check(rc as i32, "mount_setattr(idmap)")?;
    // SAFETY: valid descriptors and C strings.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_move_mount,
            tree.as_raw_fd(),
            empty.as_ptr(),
            libc::AT_FDCWD,
            path.as_ptr(),
            MOVE_MOUNT_F_EMPTY_PATH,
        )
    };
    check(rc as i32, "move_mount")?;
    Ok(())
}
