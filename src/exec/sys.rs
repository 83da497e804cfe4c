//! Thin wrappers over the Linux system calls the sandbox needs: pipes, poll, namespaces,
//! mounts, rlimits, capabilities and Landlock. Everything here is plain `libc`; errors carry the
//! operation's name so a failed setup step says what failed.

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

pub(crate) fn err(what: &str) -> io::Error {
    let e = io::Error::last_os_error();
    io::Error::new(e.kind(), format!("{what}: {e}"))
}

pub(crate) fn check(rc: libc::c_int, what: &str) -> io::Result<libc::c_int> {
    if rc < 0 { Err(err(what)) } else { Ok(rc) }
}

pub(crate) fn cstr(p: &Path) -> io::Result<CString> {
    CString::new(p.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "path with a NUL byte"))
}

/// A close-on-exec pipe: (read end, write end).
pub(crate) fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as RawFd; 2];
    // SAFETY: pipe2 writes two descriptors into the array on success.
    check(
        unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) },
        "pipe2",
    )?;
    // SAFETY: both descriptors are fresh and owned by nobody else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// A close-on-exec UNIX socket pair of `kind` (`SOCK_STREAM`, `SOCK_SEQPACKET`). The token
/// channel is one so that classlab's writes can use `MSG_NOSIGNAL`: a sandbox that went away
/// cannot kill classlab with SIGPIPE.
pub(crate) fn socket_pair(kind: libc::c_int) -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as RawFd; 2];
    // SAFETY: socketpair writes two descriptors into the array on success.
    check(
        unsafe {
            libc::socketpair(
                libc::AF_UNIX,
                kind | libc::SOCK_CLOEXEC,
                0,
                fds.as_mut_ptr(),
            )
        },
        "socketpair",
    )?;
    // SAFETY: both descriptors are fresh and owned by nobody else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// An anonymous in-memory file holding `data`, sealed against any change and rewound: how a
/// request of any size reaches a sandbox (its reader maps or reads it; nobody else sees it).
pub(crate) fn sealed_memfd(name: &str, data: &[u8]) -> io::Result<OwnedFd> {
    let c = CString::new(name).unwrap_or_default();
    // SAFETY: c is a valid C string.
    let fd = unsafe { libc::memfd_create(c.as_ptr(), libc::MFD_CLOEXEC | libc::MFD_ALLOW_SEALING) };
    check(fd, "memfd_create")?;
    // SAFETY: a fresh descriptor owned by nobody else.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    write_all(fd.as_raw_fd(), data)?;
    let seals = libc::F_SEAL_SHRINK | libc::F_SEAL_GROW | libc::F_SEAL_WRITE | libc::F_SEAL_SEAL;
    // SAFETY: fcntl and lseek on our own descriptor.
    unsafe {
        check(
            libc::fcntl(fd.as_raw_fd(), libc::F_ADD_SEALS, seals),
            "fcntl(F_ADD_SEALS)",
        )?;
        if libc::lseek(fd.as_raw_fd(), 0, libc::SEEK_SET) < 0 {
            return Err(err("lseek"));
        }
    }
    Ok(fd)
}

/// Send all of `data` on a socket without blocking and without SIGPIPE.
pub(crate) fn send_all(fd: &OwnedFd, data: &[u8]) -> io::Result<()> {
    let raw = fd.as_raw_fd();
    // SAFETY: `send` gets a pointer and length of a live slice.
    retry_all(data, |d| unsafe {
        libc::send(
            raw,
            d.as_ptr().cast(),
            d.len(),
            libc::MSG_NOSIGNAL | libc::MSG_DONTWAIT,
        )
    })
}

/// Call `op` on what is left of `data` until all of it is taken, retrying on EINTR.
fn retry_all(mut data: &[u8], mut op: impl FnMut(&[u8]) -> isize) -> io::Result<()> {
    while !data.is_empty() {
        let n = op(data);
        if n < 0 {
            let e = io::Error::last_os_error();
            if e.raw_os_error() == Some(libc::EINTR) {
                continue;
            }
            return Err(e);
        }
        data = &data[n as usize..];
    }
    Ok(())
}

pub(crate) fn set_nonblocking(fd: &OwnedFd) -> io::Result<()> {
    let raw = fd.as_raw_fd();
    // SAFETY: fcntl on a descriptor we own.
    let flags = check(unsafe { libc::fcntl(raw, libc::F_GETFL) }, "fcntl(F_GETFL)")?;
    check(
        unsafe { libc::fcntl(raw, libc::F_SETFL, flags | libc::O_NONBLOCK) },
        "fcntl(F_SETFL)",
    )?;
    Ok(())
}

/// Read what is available without blocking: `Ok(None)` at end of file, `Ok(Some(0))` when
/// nothing is ready.
pub(crate) fn read_some(fd: &OwnedFd, buf: &mut [u8]) -> io::Result<Option<usize>> {
    loop {
        // SAFETY: buf is valid for buf.len() bytes.
        let n = unsafe { libc::read(fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
        if n > 0 {
            return Ok(Some(n as usize));
        }
        if n == 0 {
            return Ok(None);
        }
        let e = io::Error::last_os_error();
        match e.raw_os_error() {
            Some(libc::EINTR) => continue,
            Some(libc::EAGAIN) => return Ok(Some(0)),
            _ => return Err(e),
        }
    }
}

pub(crate) fn write_all(fd: RawFd, data: &[u8]) -> io::Result<()> {
    // SAFETY: `write` gets a pointer and length of a live slice.
    retry_all(data, |d| unsafe {
        libc::write(fd, d.as_ptr().cast(), d.len())
    })
}

/// Wait until one of `fds` is readable (or hung up), at most `timeout_ms`.
/// Returns, per descriptor, whether it has something to read or reached end of file.
pub(crate) fn poll_readable(fds: &[RawFd], timeout_ms: i32) -> io::Result<Vec<bool>> {
    let mut pfds: Vec<libc::pollfd> = fds
        .iter()
        .map(|&fd| libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        })
        .collect();
    // SAFETY: pfds is a valid array of pollfd.
    let rc = unsafe { libc::poll(pfds.as_mut_ptr(), pfds.len() as libc::nfds_t, timeout_ms) };
    if rc < 0 {
        let e = io::Error::last_os_error();
        if e.raw_os_error() == Some(libc::EINTR) {
            return Ok(vec![false; fds.len()]);
        }
        return Err(e);
    }
    Ok(pfds
        .iter()
        .map(|p| p.fd >= 0 && p.revents & (libc::POLLIN | libc::POLLHUP | libc::POLLERR) != 0)
        .collect())
}

/// 16 random bytes as 32 hex digits.
pub(crate) fn random_hex() -> String {
    let mut buf = [0u8; 16];
    // SAFETY: buf is valid for its length.
    let n = unsafe { libc::getrandom(buf.as_mut_ptr().cast(), buf.len(), 0) };
    if n != buf.len() as isize {
        use std::io::Read;
        let got = std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut buf));
        assert!(got.is_ok(), "no randomness available for the sandbox nonce");
    }
    buf.iter().map(|b| format!("{b:02x}")).collect()
}

pub(crate) fn kill(pid: i32, sig: i32) -> bool {
    // SAFETY: kill has no memory-safety preconditions.
    unsafe { libc::kill(pid, sig) == 0 }
}

/// Make the child see `fds` as descriptors 3, 4, 5… (the launcher's protocol), whatever
/// numbers they have in the parent.
pub(crate) fn place_fds_at_3<const N: usize>(cmd: &mut std::process::Command, fds: [RawFd; N]) {
    use std::os::unix::process::CommandExt;
    // SAFETY: only fcntl/dup2 (async-signal-safe) run between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            // First move all of them above 16, so that placing one cannot clobber another.
            let mut high = [0; N];
            for (i, fd) in fds.iter().enumerate() {
                high[i] = libc::fcntl(*fd, libc::F_DUPFD_CLOEXEC, 16);
                if high[i] < 0 {
                    return Err(io::Error::last_os_error());
                }
            }
            for (i, fd) in high.iter().enumerate() {
                if libc::dup2(*fd, 3 + i as i32) < 0 {
                    return Err(io::Error::last_os_error());
                }
            }
            Ok(())
        });
    }
}

pub(crate) fn is_root() -> bool {
    // SAFETY: geteuid cannot fail.
    unsafe { libc::geteuid() == 0 }
}

// ---------------------------------------------------------------------------------------------
// Landlock (uapi constants; stable kernel ABI).

pub(crate) mod landlock {
    pub const CREATE_RULESET_VERSION: u32 = 1;
    pub const RULE_PATH_BENEATH: libc::c_int = 1;

    pub const FS_EXECUTE: u64 = 1 << 0;
    pub const FS_WRITE_FILE: u64 = 1 << 1;
    pub const FS_READ_FILE: u64 = 1 << 2;
    pub const FS_READ_DIR: u64 = 1 << 3;
    pub const FS_REMOVE_DIR: u64 = 1 << 4;
    pub const FS_REMOVE_FILE: u64 = 1 << 5;
    pub const FS_MAKE_CHAR: u64 = 1 << 6;
    pub const FS_MAKE_DIR: u64 = 1 << 7;
    pub const FS_MAKE_REG: u64 = 1 << 8;
    pub const FS_MAKE_SOCK: u64 = 1 << 9;
    pub const FS_MAKE_FIFO: u64 = 1 << 10;
    pub const FS_MAKE_BLOCK: u64 = 1 << 11;
    pub const FS_MAKE_SYM: u64 = 1 << 12;
    pub const FS_REFER: u64 = 1 << 13;
    pub const FS_TRUNCATE: u64 = 1 << 14;

    pub const NET_BIND_TCP: u64 = 1 << 0;
    pub const NET_CONNECT_TCP: u64 = 1 << 1;

    pub const SCOPE_ABSTRACT_UNIX_SOCKET: u64 = 1 << 0;
    pub const SCOPE_SIGNAL: u64 = 1 << 1;

    /// Rights that apply to a regular file (a rule on a file may only carry these).
    pub const FILE_RIGHTS: u64 = FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE;
    pub const READ: u64 = FS_EXECUTE | FS_READ_FILE | FS_READ_DIR;

    /// File-system rights handled at a given ABI (device ioctls are left alone).
    pub fn fs_handled(abi: u32) -> u64 {
        let mut v = FS_EXECUTE
            | FS_WRITE_FILE
            | FS_READ_FILE
            | FS_READ_DIR
            | FS_REMOVE_DIR
            | FS_REMOVE_FILE
            | FS_MAKE_CHAR
            | FS_MAKE_DIR
            | FS_MAKE_REG
            | FS_MAKE_SOCK
            | FS_MAKE_FIFO
            | FS_MAKE_BLOCK
            | FS_MAKE_SYM;
        if abi >= 2 {
            v |= FS_REFER;
        }
        if abi >= 3 {
            v |= FS_TRUNCATE;
        }
        v
    }

    /// Everything but device nodes: what the work dir allows.
    pub fn write_rights(abi: u32) -> u64 {
        fs_handled(abi) & !(FS_MAKE_CHAR | FS_MAKE_BLOCK)
    }

    #[repr(C)]
    pub struct RulesetAttr {
        pub handled_access_fs: u64,
        pub handled_access_net: u64,
        pub scoped: u64,
    }

    #[repr(C, packed)]
    pub struct PathBeneathAttr {
        pub allowed_access: u64,
        pub parent_fd: i32,
    }
}

/// The Landlock ABI version the kernel offers, 0 when Landlock is unavailable.
pub(crate) fn landlock_abi() -> u32 {
    // SAFETY: with the VERSION flag the kernel ignores attr and size.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<landlock::RulesetAttr>(),
            0usize,
            landlock::CREATE_RULESET_VERSION,
        )
    };
    if rc < 0 { 0 } else { rc as u32 }
}

/// Build a Landlock ruleset and enforce it on the calling thread (which must be the only one,
/// with no_new_privs set). `read`: trees readable (and executable); `write`: trees with every
/// right but device creation; file rules get the file subset of their rights. Missing paths
/// are skipped.
pub(crate) fn landlock_restrict(
    abi: u32,
    read: &[&Path],
    write: &[&Path],
    scoped: bool,
) -> io::Result<()> {
    use landlock::*;
    if abi == 0 {
        return Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "landlock unavailable",
        ));
    }
    let attr = RulesetAttr {
        handled_access_fs: fs_handled(abi),
        handled_access_net: if abi >= 4 {
            NET_BIND_TCP | NET_CONNECT_TCP
        } else {
            0
        },
        scoped: if abi >= 6 && scoped {
            SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL
        } else {
            0
        },
    };
    let size = match abi {
        1..=3 => 8,
        4..=5 => 16,
        _ => 24,
    };
    // SAFETY: attr is valid for `size` bytes (size ≤ size_of::<RulesetAttr>()).
    let rc = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            &attr as *const RulesetAttr,
            size,
            0u32,
        )
    };
    if rc < 0 {
        return Err(err("landlock_create_ruleset"));
    }
    // SAFETY: a fresh descriptor owned by us.
    let ruleset = unsafe { OwnedFd::from_raw_fd(rc as RawFd) };
    let add = |path: &Path, rights: u64| -> io::Result<()> {
        let Ok(c) = cstr(path) else { return Ok(()) };
        // SAFETY: c is a valid C string.
        let fd = unsafe { libc::open(c.as_ptr(), libc::O_PATH | libc::O_CLOEXEC) };
        if fd < 0 {
            return Ok(()); // a path that does not exist needs no rule
        }
        // SAFETY: fresh descriptor.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        // SAFETY: st is a valid stat buffer.
        check(unsafe { libc::fstat(fd.as_raw_fd(), &mut st) }, "fstat")?;
        let is_dir = st.st_mode & libc::S_IFMT == libc::S_IFDIR;
        let allowed = if is_dir { rights } else { rights & FILE_RIGHTS } & fs_handled(abi);
        let rule = PathBeneathAttr {
            allowed_access: allowed,
            parent_fd: fd.as_raw_fd(),
        };
        // SAFETY: rule is a valid landlock_path_beneath_attr.
        let rc = unsafe {
            libc::syscall(
                libc::SYS_landlock_add_rule,
                ruleset.as_raw_fd(),
                RULE_PATH_BENEATH,
                &rule as *const PathBeneathAttr,
                0u32,
            )
        };
        if rc < 0 {
            return Err(err(&format!("landlock_add_rule {}", path.display())));
        }
        Ok(())
    };
    for p in read {
        add(p, READ)?;
    }
    for p in write {
        add(p, write_rights(abi))?;
    }
    // SAFETY: plain syscall on our ruleset descriptor.
    let rc = unsafe { libc::syscall(libc::SYS_landlock_restrict_self, ruleset.as_raw_fd(), 0u32) };
    if rc < 0 {
        return Err(err("landlock_restrict_self"));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Capabilities.

const SECBITS_LOCKDOWN: libc::c_ulong = (libc::SECBIT_NOROOT
    | libc::SECBIT_NOROOT_LOCKED
    | libc::SECBIT_NO_SETUID_FIXUP
    | libc::SECBIT_NO_SETUID_FIXUP_LOCKED
    | libc::SECBIT_KEEP_CAPS_LOCKED
    | libc::SECBIT_NO_CAP_AMBIENT_RAISE
    | libc::SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED)
    as libc::c_ulong;

/// Drop every capability for good: lock the securebits so that exec as uid 0 grants none,
/// empty the bounding and ambient sets, become `run_as` (uid, gid; no supplementary groups)
/// when given, then empty the permitted/effective/inheritable sets.
pub(crate) fn drop_all_capabilities(run_as: Option<(u32, u32)>) -> io::Result<()> {
    // SAFETY: prctl/capset calls with plain integer arguments and valid pointers.
    unsafe {
        check(
            libc::prctl(libc::PR_SET_SECUREBITS, SECBITS_LOCKDOWN, 0, 0, 0),
            "prctl(PR_SET_SECUREBITS)",
        )?;
        let last = std::fs::read_to_string("/proc/sys/kernel/cap_last_cap")
            .ok()
            .and_then(|s| s.trim().parse::<libc::c_ulong>().ok())
            .unwrap_or(63);
        for cap in 0..=last {
            if libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0) < 0 {
                let e = io::Error::last_os_error();
                if e.raw_os_error() != Some(libc::EINVAL) {
                    return Err(err("prctl(PR_CAPBSET_DROP)"));
                }
            }
        }
        libc::prctl(
            libc::PR_CAP_AMBIENT,
            libc::PR_CAP_AMBIENT_CLEAR_ALL,
            0,
            0,
            0,
        );
        // The securebits keep CAP_SETUID across the switch (no set-uid fixup) until capset.
        if let Some((uid, gid)) = run_as {
            check(libc::setgroups(0, std::ptr::null()), "setgroups")?;
            check(libc::setresgid(gid, gid, gid), "setresgid")?;
            check(libc::setresuid(uid, uid, uid), "setresuid")?;
        }
        #[repr(C)]
        struct Header {
            version: u32,
            pid: i32,
        }
        #[repr(C)]
        #[derive(Clone, Copy)]
        struct Data {
            effective: u32,
            permitted: u32,
            inheritable: u32,
        }
        let hdr = Header {
            version: 0x2008_0522,
            pid: 0,
        };
        let data = [Data {
            effective: 0,
            permitted: 0,
            inheritable: 0,
        }; 2];
        if libc::syscall(libc::SYS_capset, &hdr as *const Header, data.as_ptr()) < 0 {
            return Err(err("capset"));
        }
    }
    Ok(())
}

pub(crate) fn no_new_privs() -> io::Result<()> {
    // SAFETY: plain prctl.
    check(
        unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) },
        "prctl(NO_NEW_PRIVS)",
    )?;
    Ok(())
}

pub(crate) fn set_rlimit(resource: i32, soft: u64, hard: u64) -> io::Result<()> {
    let mut cur = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: valid rlimit pointers.
    unsafe {
        check(libc::getrlimit(resource as _, &mut cur), "getrlimit")?;
        // Hard limits can only go down without CAP_SYS_RESOURCE: clamp to the current one.
        let hard = hard.min(cur.rlim_max);
        let soft = soft.min(hard);
        let new = libc::rlimit {
            rlim_cur: soft,
            rlim_max: hard,
        };
        check(libc::setrlimit(resource as _, &new), "setrlimit")?;
    }
    Ok(())
}

pub(crate) fn mount(
    src: &str,
    target: &Path,
    fstype: Option<&str>,
    flags: libc::c_ulong,
    data: Option<&str>,
) -> io::Result<()> {
    let src = CString::new(src).unwrap_or_default();
    let tgt = cstr(target)?;
    let fs = fstype.map(|f| CString::new(f).unwrap_or_default());
    let data = data.map(|d| CString::new(d).unwrap_or_default());
    // SAFETY: all pointers are valid C strings or null.
    let rc = unsafe {
        libc::mount(
            src.as_ptr(),
            tgt.as_ptr(),
            fs.as_ref().map_or(std::ptr::null(), |f| f.as_ptr()),
            flags,
            data.as_ref()
                .map_or(std::ptr::null(), |d| d.as_ptr().cast()),
        )
    };
    check(rc, &format!("mount {}", target.display()))?;
    Ok(())
}
