//! The sandbox's system-call filter (seccomp-bpf, built with `seccompiler`): what namespaces
//! and Landlock do not cover.
//!
//! * `socket()` of any family but IPv4/IPv6 (which the network namespace leaves unreachable)
//!   fails with `EPERM`: no UNIX socket can be opened to reach a host service (a terminal
//!   multiplexer, a container daemon, an ssh-agent, D-Bus), pathname or abstract, and no
//!   netlink, packet or other family. `socketpair()` stays (multiprocessing needs it).
//! * Ways out of, or around, the sandbox fail with `EPERM`: ptrace and reading or writing other
//!   processes' memory, new namespaces (`unshare`, `setns`, namespace flags to `clone`), mounts,
//!   io_uring (which could open sockets without `socket()`), BPF, perf events, userfaultfd,
//!   kernel keyrings, module and kexec loading, open_by_handle_at, reboot, swap, accounting.
//! * `clone3` answers `ENOSYS` (its flags are behind a pointer, out of a filter's sight): the C
//!   library then falls back to `clone`, whose flags the filter checks.
//! * Calls that act on another process by its pid act on the calling process only: `prlimit64`,
//!   `setpriority`, `ioprio_set`, `migrate_pages` and `move_pages` (and, where a suite has no
//!   PID namespace of its own, `sched_setaffinity`, `sched_setscheduler`, `sched_setparam` and
//!   `sched_setattr`, which libraries also call on their own threads) are refused (`EPERM`)
//!   unless the pid is 0
//!   (what the C library passes for `setrlimit`, `nice` and the like) or the caller's own pid
//!   (what `resource.prlimit(os.getpid(), …)` and psutil pass); `setpriority` and `ioprio_set`
//!   only for one process, never a process group or a user. `pidfd_getfd`, `kcmp` and
//!   `process_madvise` (other processes' descriptors and memory) are refused outright. The own
//!   pid is not known when the programs are built: they carry [`OWN_PID`] where it goes, and
//!   [`install`] puts the installing process's pid there.
//!
//! A call from another architecture's system-call table (e.g. 32-bit `int 0x80` on x86-64) kills
//! the process (seccompiler's architecture check); x32 numbers of the refused calls are refused
//! too. The two programs are built once per sandbox and installed last, right before `execve`.

use std::collections::BTreeMap;
use std::io;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

/// Bit that marks an x32 system call on x86-64.
const X32: i64 = 0x4000_0000;

fn arch() -> Option<TargetArch> {
    if cfg!(target_arch = "x86_64") {
        Some(TargetArch::x86_64)
    } else if cfg!(target_arch = "aarch64") {
        Some(TargetArch::aarch64)
    } else if cfg!(target_arch = "riscv64") {
        Some(TargetArch::riscv64)
    } else {
        None
    }
}

/// System calls refused outright.
fn refused() -> Vec<i64> {
    let mut v: Vec<i64> = vec![
        libc::SYS_ptrace,
        libc::SYS_process_vm_readv,
        libc::SYS_process_vm_writev,
        libc::SYS_unshare,
        libc::SYS_setns,
        libc::SYS_mount,
        libc::SYS_umount2,
        libc::SYS_pivot_root,
        libc::SYS_io_uring_setup,
        libc::SYS_io_uring_enter,
        libc::SYS_io_uring_register,
        libc::SYS_bpf,
        libc::SYS_perf_event_open,
        libc::SYS_userfaultfd,
        libc::SYS_keyctl,
        libc::SYS_add_key,
        libc::SYS_request_key,
        libc::SYS_init_module,
        libc::SYS_finit_module,
        libc::SYS_delete_module,
        libc::SYS_kexec_load,
        libc::SYS_kexec_file_load,
        libc::SYS_open_by_handle_at,
        libc::SYS_reboot,
        libc::SYS_swapon,
        libc::SYS_swapoff,
        libc::SYS_acct,
        libc::SYS_fsopen,
        libc::SYS_fsmount,
        libc::SYS_move_mount,
        libc::SYS_open_tree,
        libc::SYS_mount_setattr,
        libc::SYS_pidfd_getfd,
        libc::SYS_kcmp,
        libc::SYS_process_madvise,
    ];
    v.sort_unstable();
    v.dedup();
    v
}

fn cond(arg: u8, op: SeccompCmpOp, value: u64) -> io::Result<SeccompCondition> {
    SeccompCondition::new(arg, SeccompCmpArgLen::Qword, op, value).map_err(io::Error::other)
}

/// Placeholder for the installing process's pid in the programs: above any pid the kernel
/// hands out (`pid_max` ≤ 2²²), and unlike any other constant of the programs.
pub(crate) const OWN_PID: u32 = 0x4f57_4e50;

/// System calls whose first argument is a pid (0: the caller).
const PID_FIRST: &[i64] = &[
    libc::SYS_prlimit64,
    libc::SYS_migrate_pages,
    libc::SYS_move_pages,
];

/// Scheduling calls whose first argument is a pid: also what a library calls on its *own
/// threads* (libzmq's `pthread_setschedparam`, OpenMP's affinity), whose tids a filter cannot
/// tell from other processes' pids. Filtered only where the suite has no PID namespace of its
/// own; with one, they can reach nothing but the suite's own processes (and, as root, a suite
/// runs under a uid of its own, which the kernel checks too).
const SCHED_PID_FIRST: &[i64] = &[
    libc::SYS_sched_setaffinity,
    libc::SYS_sched_setscheduler,
    libc::SYS_sched_setparam,
    libc::SYS_sched_setattr,
];
const PRIO_PROCESS: u64 = 0;
const IOPRIO_WHO_PROCESS: u64 = 1;

/// Rules that match (and so refuse) a call aimed at another process: `pid_arg` neither 0 nor
/// the own pid (pids are `int`: only the low 32 bits count, as in the kernel).
fn other_process(pid_arg: u8, extra: Option<SeccompCondition>) -> io::Result<Vec<SeccompRule>> {
    let pid = |op, v| SeccompCondition::new(pid_arg, SeccompCmpArgLen::Dword, op, v);
    let not_self = SeccompRule::new(vec![
        pid(SeccompCmpOp::Ne, 0).map_err(io::Error::other)?,
        pid(SeccompCmpOp::Ne, u64::from(OWN_PID)).map_err(io::Error::other)?,
    ])
    .map_err(io::Error::other)?;
    let mut rules = vec![not_self];
    if let Some(c) = extra {
        rules.push(SeccompRule::new(vec![c]).map_err(io::Error::other)?);
    }
    Ok(rules)
}

/// The sandbox's filters, compiled for this machine; empty where seccomp filters cannot be
/// built for the architecture (the isolation report says so). `own_pid_namespace`: every
/// suite runs in a PID namespace of its own (then the scheduling calls are left to it).
pub(crate) fn programs(own_pid_namespace: bool) -> io::Result<Vec<BpfProgram>> {
    let Some(arch) = arch() else {
        return Ok(Vec::new());
    };
    let x86 = matches!(arch, TargetArch::x86_64);
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    let mut add = |nr: i64, r: Vec<SeccompRule>| {
        if x86 {
            rules.insert(nr | X32, r.clone());
        }
        rules.insert(nr, r);
    };
    for nr in refused() {
        add(nr, Vec::new());
    }
    // socket(): only AF_INET and AF_INET6.
    let socket_rule = SeccompRule::new(vec![
        cond(0, SeccompCmpOp::Ne, libc::AF_INET as u64)?,
        cond(0, SeccompCmpOp::Ne, libc::AF_INET6 as u64)?,
    ])
    .map_err(io::Error::other)?;
    add(libc::SYS_socket, vec![socket_rule]);
    // clone(): no namespace flags.
    let ns_flags = [
        libc::CLONE_NEWNS,
        libc::CLONE_NEWCGROUP,
        libc::CLONE_NEWUTS,
        libc::CLONE_NEWIPC,
        libc::CLONE_NEWUSER,
        libc::CLONE_NEWPID,
        libc::CLONE_NEWNET,
    ];
    let clone_rules = ns_flags
        .iter()
        .map(|&f| {
            let f = f as u64;
            SeccompRule::new(vec![cond(0, SeccompCmpOp::MaskedEq(f), f)?]).map_err(io::Error::other)
        })
        .collect::<io::Result<Vec<_>>>()?;
    add(libc::SYS_clone, clone_rules);
    for &nr in PID_FIRST {
        add(nr, other_process(0, None)?);
    }
    if !own_pid_namespace {
        for &nr in SCHED_PID_FIRST {
            add(nr, other_process(0, None)?);
        }
    }
    // (which, who, …): one process (which = PRIO_PROCESS / IOPRIO_WHO_PROCESS), never a
    // process group or every process of a user.
    let which = |v| {
        SeccompCondition::new(0, SeccompCmpArgLen::Dword, SeccompCmpOp::Ne, v)
            .map_err(io::Error::other)
    };
    add(
        libc::SYS_setpriority,
        other_process(1, Some(which(PRIO_PROCESS)?))?,
    );
    add(
        libc::SYS_ioprio_set,
        other_process(1, Some(which(IOPRIO_WHO_PROCESS)?))?,
    );
    if x86 {
        // Compat numbers of x32 (syscall table entries 512+): ptrace, process_vm_readv/writev,
        // move_pages.
        for nr in [521, 533, 539, 540] {
            rules.insert(nr | X32, Vec::new());
        }
    }
    let refuse = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        arch,
    )
    .map_err(io::Error::other)?;
    let mut no_clone3 = BTreeMap::new();
    no_clone3.insert(libc::SYS_clone3, Vec::new());
    let enosys = SeccompFilter::new(
        no_clone3,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::ENOSYS as u32),
        arch,
    )
    .map_err(io::Error::other)?;
    Ok(vec![
        refuse.try_into().map_err(io::Error::other)?,
        enosys.try_into().map_err(io::Error::other)?,
    ])
}

/// A program as hex (8 bytes per instruction, native order): how it travels to the launcher
/// and the warm interpreter.
pub(crate) fn to_hex(p: &BpfProgram) -> String {
    let mut out = String::with_capacity(p.len() * 16);
    for i in p {
        let mut b = Vec::with_capacity(8);
        b.extend_from_slice(&i.code.to_ne_bytes());
        b.push(i.jt);
        b.push(i.jf);
        b.extend_from_slice(&i.k.to_ne_bytes());
        for x in b {
            out.push_str(&format!("{x:02x}"));
        }
    }
    out
}

fn from_hex(s: &str) -> Option<Vec<libc::sock_filter>> {
    let bytes: Vec<u8> = (0..s.len())
        .step_by(2)
        .map(|i| s.get(i..i + 2).and_then(|h| u8::from_str_radix(h, 16).ok()))
        .collect::<Option<_>>()?;
    if !bytes.len().is_multiple_of(8) || bytes.is_empty() {
        return None;
    }
    Some(
        bytes
            .chunks_exact(8)
            .map(|c| libc::sock_filter {
                code: u16::from_ne_bytes([c[0], c[1]]),
                jt: c[2],
                jf: c[3],
                k: u32::from_ne_bytes([c[4], c[5], c[6], c[7]]),
            })
            .collect(),
    )
}

/// Install programs given as hex (no_new_privs must be set already), with `own_pid` (the
/// calling process's pid, as it sees it) where they carry [`OWN_PID`].
pub(crate) fn install(programs: &[String], own_pid: u32) -> io::Result<()> {
    for hex in programs {
        let Some(mut prog) = from_hex(hex) else {
            return Err(io::Error::other("seccomp: malformed program"));
        };
        for i in &mut prog {
            if i.k == OWN_PID && i.code == (libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K) as u16 {
                i.k = own_pid;
            }
        }
        let fprog = libc::sock_fprog {
            len: prog.len() as u16,
            filter: prog.as_mut_ptr(),
        };
        // SAFETY: fprog points at a valid program of `len` instructions.
        let rc = unsafe {
            libc::prctl(
                libc::PR_SET_SECCOMP,
                libc::SECCOMP_MODE_FILTER,
                &fprog as *const libc::sock_fprog,
                0,
                0,
            )
        };
        if rc != 0 {
            return Err(super::sys::err("prctl(PR_SET_SECCOMP)"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_round_trip_through_hex() {
        let progs = programs(false).unwrap();
        assert_eq!(progs.len(), 2);
        for p in &progs {
            let back = from_hex(&to_hex(p)).unwrap();
            assert_eq!(back.len(), p.len());
            assert!(
                back.iter()
                    .zip(p)
                    .all(|(a, b)| a.code == b.code && a.k == b.k)
            );
        }
        assert!(from_hex("abc").is_none());
        assert!(from_hex("").is_none());
    }

    #[test]
    fn a_filtered_child_cannot_open_unix_sockets_but_keeps_socketpair() {
        let progs: Vec<String> = programs(false).unwrap().iter().map(to_hex).collect();
        // SAFETY: fork in a test; the child only makes plain system calls and exits.
        let pid = unsafe { libc::fork() };
        if pid == 0 {
            let code = unsafe {
                if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0
                    || install(&progs, libc::getpid() as u32).is_err()
                {
                    10
                } else if libc::socket(libc::AF_UNIX, libc::SOCK_STREAM, 0) >= 0 {
                    11
                } else if libc::socket(libc::AF_NETLINK, libc::SOCK_RAW, 0) >= 0 {
                    12
                } else if libc::unshare(libc::CLONE_NEWUSER) == 0 {
                    13
                } else {
                    let mut fds = [0; 2];
                    if libc::socketpair(libc::AF_UNIX, libc::SOCK_STREAM, 0, fds.as_mut_ptr()) != 0
                    {
                        14
                    } else if libc::socket(libc::AF_INET, libc::SOCK_STREAM, 0) < 0 {
                        15
                    } else {
                        0
                    }
                }
            };
            unsafe { libc::_exit(code) };
        }
        let mut st = 0;
        // SAFETY: waiting for our own child.
        unsafe { libc::waitpid(pid, &mut st, 0) };
        assert!(libc::WIFEXITED(st), "status {st}");
        assert_eq!(libc::WEXITSTATUS(st), 0);
    }
}
