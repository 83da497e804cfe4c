//! The sandbox's own file system: a fresh root holding only what Python needs, read-only, plus
//! the suite's work dir, a private `/tmp`, a minimal `/dev` and the namespace's `/proc`. The
//! host's `/tmp`, `/run`, home directories, private keys and sockets are simply not there, so no
//! path leads to them (Landlock then narrows what is there; seccomp refuses UNIX sockets).
//!
//! Runs in the launcher's init (PID 1 of the suite's PID namespace, in its own mount
//! namespace, still privileged there), before Python is started:
//! ```text
//! tmpfs over the work dir path (the new root, built while the host tree is still visible)
//!   /usr, /lib…, interpreter and package trees, a few /etc files   bind mounts, read-only
//!   /dev        tmpfs: null zero full random urandom (bound), fd/std* links, shm (tmpfs)
//!   /proc       the PID namespace's own
//!   /tmp        tmpfs
//!   <work dir>  tmpfs (size-capped) owned by the sandbox user; the suite's files bound
//!               read-only onto themselves (the code under test cannot rewrite its tests)
//! pivot_root into it, detach the old root, remount the new root read-only
//! ```

use std::io;
use std::os::unix::fs::symlink;
use std::path::{Component, Path, PathBuf};

use super::sys::{self, check};

/// What the new root is made of.
#[derive(Debug, Clone)]
pub(crate) struct RootPlan<'a> {
    /// Trees and files Python may read (bound read-only at the same paths).
    pub read: &'a [PathBuf],
    pub workdir: &'a Path,
    /// The work dir's files, as read from the host before the root was built.
    pub files: Vec<(PathBuf, Option<Vec<u8>>)>,
    /// Size of the work dir's tmpfs (and cap of `/tmp` and `/dev/shm`).
    pub disk_bytes: u64,
    /// Owner of the work dir (the user Python will run as; root for the split harness, whose
    /// two users each own a directory in it).
    pub owner: (u32, u32),
    /// Mode of the work dir (0700; 0711 for the split harness).
    pub work_mode: u32,
    /// Mount the PID namespace's own `/proc` (else the host's is bound read-only).
    pub own_proc: bool,
    /// Empty directories to create (mount points for what comes later).
    pub mkdirs: &'a [PathBuf],
    /// Trees bound read-write (the warm interpreter's cgroup directories).
    pub rw: &'a [PathBuf],
}

const DEVICES: &[&str] = &["null", "zero", "full", "random", "urandom"];

/// `root` joined with an absolute `path`.
fn under(root: &Path, path: &Path) -> PathBuf {
    let mut out = root.to_path_buf();
    for c in path.components() {
        if let Component::Normal(n) = c {
            out.push(n);
        }
    }
    out
}

fn mkdirs(p: &Path) -> io::Result<()> {
    std::fs::create_dir_all(p)
        .map_err(|e| io::Error::new(e.kind(), format!("mkdir {}: {e}", p.display())))
}

fn bind(src: &Path, dst: &Path, read_only: bool) -> io::Result<()> {
    sys::mount(
        &src.to_string_lossy(),
        dst,
        None,
        libc::MS_BIND | libc::MS_REC,
        None,
    )?;
    if read_only {
        remount_read_only(dst)?;
    }
    Ok(())
}

/// Make a bind mount read-only, keeping the flags its source mount has locked (a remount that
/// dropped a locked `nosuid`/`nodev`/`noexec` is refused in a user namespace).
fn remount_read_only(dst: &Path) -> io::Result<()> {
    let c = sys::cstr(dst)?;
    // SAFETY: st is a valid statvfs buffer and c a valid C string.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    check(unsafe { libc::statvfs(c.as_ptr(), &mut st) }, "statvfs")?;
    let mut flags = libc::MS_BIND | libc::MS_REMOUNT | libc::MS_RDONLY | libc::MS_NOSUID;
    for (st_flag, ms) in [
        (libc::ST_NODEV, libc::MS_NODEV),
        (libc::ST_NOEXEC, libc::MS_NOEXEC),
        (libc::ST_NOATIME, libc::MS_NOATIME),
        (libc::ST_NODIRATIME, libc::MS_NODIRATIME),
        (libc::ST_RELATIME, libc::MS_RELATIME),
    ] {
        if st.f_flag & st_flag != 0 {
            flags |= ms;
        }
    }
    sys::mount("none", dst, None, flags, None)
}

/// The paths to bind, canonical, without any that lies under another; and the symbolic links
/// met on the way (recreated in the new root so that `/bin`, `/lib64` and the like resolve).
fn plan_binds(read: &[PathBuf]) -> (Vec<PathBuf>, Vec<(PathBuf, PathBuf)>) {
    let mut links = Vec::new();
    let mut real: Vec<PathBuf> = Vec::new();
    for p in read {
        // /proc and /dev are made afresh.
        if !p.is_absolute() || p.starts_with("/proc") || p.starts_with("/dev") {
            continue;
        }
        // Links along the path (e.g. /lib64 -> usr/lib64, /etc/localtime -> ...).
        let mut walked = PathBuf::from("/");
        for c in p.components().skip(1) {
            walked.push(c);
            if let Ok(target) = std::fs::read_link(&walked) {
                links.push((walked.clone(), target));
            }
        }
        if let Ok(c) = std::fs::canonicalize(p) {
            real.push(c);
        }
    }
    real.sort();
    real.dedup();
    let mut kept: Vec<PathBuf> = Vec::new();
    for p in real {
        if kept.iter().any(|k| p.starts_with(k)) {
            continue;
        }
        kept.push(p);
    }
    links.sort();
    links.dedup();
    (kept, links)
}

/// Build the new root on a tmpfs mounted at `plan.workdir` (any directory would do; this one
/// is ours) and move into it.
pub(crate) fn enter(plan: &RootPlan) -> io::Result<()> {
    let root = plan.workdir.to_path_buf();
    sys::mount(
        "classlab-root",
        &root,
        Some("tmpfs"),
        libc::MS_NOSUID | libc::MS_NODEV,
        Some("size=16m,mode=0755,nr_inodes=65536"),
    )?;
    let (binds, links) = plan_binds(plan.read);
    for src in &binds {
        let dst = under(&root, src);
        if src.is_dir() {
            mkdirs(&dst)?;
        } else {
            if let Some(parent) = dst.parent() {
                mkdirs(parent)?;
            }
            if !dst.exists() {
                std::fs::write(&dst, b"")?;
            }
        }
        bind(src, &dst, true)
            .map_err(|e| io::Error::new(e.kind(), format!("bind {}: {e}", src.display())))?;
    }
    for (link, target) in &links {
        let at = under(&root, link);
        if std::fs::symlink_metadata(&at).is_ok() {
            continue; // a bound tree already holds it
        }
        if let Some(parent) = at.parent() {
            mkdirs(parent)?;
        }
        symlink(target, &at)
            .map_err(|e| io::Error::new(e.kind(), format!("symlink {}: {e}", at.display())))?;
    }
    for src in plan.rw {
        let dst = under(&root, src);
        mkdirs(&dst)?;
        bind(src, &dst, false)
            .map_err(|e| io::Error::new(e.kind(), format!("bind {}: {e}", src.display())))?;
    }
    make_dev(&root, plan.disk_bytes)?;
    let proc_dir = root.join("proc");
    mkdirs(&proc_dir)?;
    if plan.own_proc {
        sys::mount(
            "proc",
            &proc_dir,
            Some("proc"),
            libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
            None,
        )?;
    } else {
        bind(Path::new("/proc"), &proc_dir, true)?;
    }
    let small = plan.disk_bytes.min(64 << 20);
    let tmp = root.join("tmp");
    mkdirs(&tmp)?;
    sys::mount(
        "classlab-tmp",
        &tmp,
        Some("tmpfs"),
        libc::MS_NOSUID | libc::MS_NODEV,
        Some(&format!("size={small},mode=1777")),
    )?;
    for d in plan.mkdirs {
        mkdirs(&under(&root, d))?;
    }
    let work = under(&root, plan.workdir);
    mkdirs(&work)?;
    let (uid, gid) = plan.owner;
    sys::mount(
        "classlab",
        &work,
        Some("tmpfs"),
        libc::MS_NOSUID | libc::MS_NODEV,
        Some(&format!(
            "size={},mode={:o},uid={uid},gid={gid},nr_inodes=65536",
            plan.disk_bytes, plan.work_mode
        )),
    )?;
    write_files(&work, &plan.files)?;
    pivot(&root)
}

/// The suite's files into the work dir, each then bound read-only onto itself.
pub(crate) fn write_files(work: &Path, files: &[(PathBuf, Option<Vec<u8>>)]) -> io::Result<()> {
    for (rel, content) in files {
        let p = work.join(rel);
        match content {
            None => mkdirs(&p)?,
            Some(bytes) => std::fs::write(&p, bytes)?,
        }
    }
    for (rel, content) in files {
        if content.is_some() {
            let p = work.join(rel);
            bind(&p, &p, true)
                .map_err(|e| io::Error::new(e.kind(), format!("protect {}: {e}", rel.display())))?;
        }
    }
    Ok(())
}

fn make_dev(root: &Path, disk_bytes: u64) -> io::Result<()> {
    let dev = root.join("dev");
    mkdirs(&dev)?;
    sys::mount(
        "classlab-dev",
        &dev,
        Some("tmpfs"),
        libc::MS_NOSUID,
        Some("size=64k,mode=0755"),
    )?;
    for name in DEVICES {
        let host = Path::new("/dev").join(name);
        if !host.exists() {
            continue;
        }
        let at = dev.join(name);
        std::fs::write(&at, b"")?;
        sys::mount(&host.to_string_lossy(), &at, None, libc::MS_BIND, None)?;
    }
    for (name, target) in [
        ("fd", "/proc/self/fd"),
        ("stdin", "/proc/self/fd/0"),
        ("stdout", "/proc/self/fd/1"),
        ("stderr", "/proc/self/fd/2"),
    ] {
        symlink(target, dev.join(name))?;
    }
    let shm = dev.join("shm");
    mkdirs(&shm)?;
    sys::mount(
        "classlab-shm",
        &shm,
        Some("tmpfs"),
        libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
        Some(&format!("size={},mode=1777", disk_bytes.min(64 << 20))),
    )
}

/// Move into `root`: pivot_root, detach the old root, make `/` itself read-only.
fn pivot(root: &Path) -> io::Result<()> {
    let old = root.join(".old-root");
    mkdirs(&old)?;
    let new_c = sys::cstr(root)?;
    let old_c = sys::cstr(&old)?;
    // SAFETY: valid C strings; pivot_root has no other preconditions we do not meet.
    check(
        unsafe { libc::syscall(libc::SYS_pivot_root, new_c.as_ptr(), old_c.as_ptr()) } as i32,
        "pivot_root",
    )?;
    let slash = sys::cstr(Path::new("/"))?;
    // SAFETY: valid C string.
    check(unsafe { libc::chdir(slash.as_ptr()) }, "chdir /")?;
    let old_in = sys::cstr(Path::new("/.old-root"))?;
    // SAFETY: valid C string.
    check(
        unsafe { libc::umount2(old_in.as_ptr(), libc::MNT_DETACH) },
        "umount old root",
    )?;
    let _ = std::fs::remove_dir("/.old-root");
    sys::mount(
        "none",
        Path::new("/"),
        None,
        libc::MS_REMOUNT | libc::MS_BIND | libc::MS_RDONLY | libc::MS_NOSUID | libc::MS_NODEV,
        None,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn under_strips_the_root() {
        assert_eq!(
            under(Path::new("/r"), Path::new("/usr/lib")),
            PathBuf::from("/r/usr/lib")
        );
    }

    #[test]
    fn binds_are_canonical_and_not_nested() {
        let d = tempfile::tempdir().unwrap();
        let a = d.path().join("a");
        std::fs::create_dir_all(a.join("b")).unwrap();
        symlink("a", d.path().join("link")).unwrap();
        let (binds, links) = plan_binds(&[
            a.join("b"),
            a.clone(),
            d.path().join("link").join("b"),
            PathBuf::from("relative"),
            d.path().join("missing"),
        ]);
        let a = std::fs::canonicalize(&a).unwrap();
        assert_eq!(binds, vec![a]);
        assert_eq!(links.len(), 1, "{links:?}");
        assert_eq!(links[0].1, PathBuf::from("a"));
    }
}
