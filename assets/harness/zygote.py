# classlab warm interpreter ("zygote"): a Python that has imported the harnesses' modules (and
# pytest, once a suite runs with it) and forks once per suite. It never runs code under test
# itself, and it never reads a request: whatever it holds, every suite forked from it inherits.
#
# Started by the classlab launcher as `python -s -P -B -c <this file>` inside
# network/IPC/UTS/mount/PID namespaces and the sandbox's own root (only the interpreter's trees,
# read-only, and an empty mount point for the work dirs), with its capabilities (it needs them
# to set each child up) and without Landlock or seccomp. fd 3 is a SOCK_SEQPACKET socket to
# classlab; fd 4 a memory file with the harnesses' sources (JSON: "inproc", "split", "host"),
# compiled once here. A request is a fixed header and eight descriptors: stdout, stderr, result
# (write), token (read), status (write), two sealed memory files holding the request itself
# (the suite's part, the runner's part), and the user namespace that maps the runner's uid to
# the host's for the split harness's idmapped scratch (classlab makes one per uid pair and keeps
# it, so no suite forks for it; /dev/null where there is none). The zygote forks at once, in a
# fresh PID namespace, and keeps nothing: the child is PID 1 of the suite's namespace (its init), reads the suite's part,
# joins the suite's cgroups, makes new mount/network/IPC/UTS namespaces, the namespace's own
# /proc, a private /tmp, the work dir and /dev/shm, writes the files every process may see
# (read-only), and, for the split harness, forks the host as PID 1 of a PID namespace one level
# down (before any test is in its memory). Then it reads the runner's part (the tests), writes
# it, and forks the runner. Each Python applies descriptors, rlimits, securebits and bounding
# set, its unprivileged user, every capability dropped, no_new_privs, Landlock and seccomp, then
# runs its harness. The init reaps, writes the host's end if it comes first (`host exit|signal
# ...`) and the runner's to the status descriptor (`python exit|signal N utime_us stime_us
# maxrss_kb`, then `leftover` and `tampered` lines, like the cold launcher), and exits, which
# ends whatever the suite left, the host with it.

import ctypes
import fcntl
import json
import os
import resource
import select
import signal
import _signal
import socket
import struct
import sys

# Warm imports shared by every suite (the runner's, then the host's).
import unittest  # noqa: F401
import unittest.case  # noqa: F401
import unittest.loader  # noqa: F401
import unittest.mock  # noqa: F401
import traceback  # noqa: F401
import types  # noqa: F401
import re  # noqa: F401
import collections  # noqa: F401
import enum  # noqa: F401
import weakref  # noqa: F401
import operator  # noqa: F401
import abc  # noqa: F401
import importlib  # noqa: F401
import importlib.util  # noqa: F401
# What the split harness's runner and host import as they start (wire.py, split.py, host.py).
import datetime  # noqa: F401
import decimal  # noqa: F401
import fractions  # noqa: F401
import io  # noqa: F401
import random  # noqa: F401


def import_pytest():
    """pytest (when installed), imported the first time a suite that runs with it comes: it
    grows the heap every suite is forked from by ~9 MB, which costs each fork and exit of a
    suite's three processes ~1.3 ms of CPU (measured), and ClassEval's suites never use it."""
    try:
        import pytest  # noqa: F401
        import _pytest.python  # noqa: F401
        import _pytest.runner  # noqa: F401
        import _pytest.reports  # noqa: F401
        import _pytest.skipping  # noqa: F401
        import pluggy  # noqa: F401
    except BaseException:
        pass


def load_sources():
    """The harnesses, compiled once into namespaces of their own (each child runs one)."""
    with os.fdopen(4, "rb") as f:
        sources = json.loads(f.read())
    out = {}
    for key, name in (("inproc", "classlab_harness"), ("split", "classlab_harness"),
                      ("host", "classlab_host")):
        ns = {"__name__": name, "__builtins__": __builtins__}
        exec(compile(sources[key], "<classlab-harness>", "exec"), ns)
        out[key] = ns
    return out


HARNESSES = load_sources()

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong,
                       ctypes.c_char_p]
libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong,
                       ctypes.c_ulong]

CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWNET = 0x20000, 0x4000000, 0x8000000, 0x40000000
CLONE_NEWPID = 0x20000000
MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REC, MS_PRIVATE = 2, 4, 8, 16384, 1 << 18
PR_SET_NO_NEW_PRIVS, PR_CAPBSET_DROP, PR_SET_SECUREBITS, PR_CAP_AMBIENT = 38, 24, 28, 47
PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 22, 2
PR_SET_PDEATHSIG = 1
PR_SET_NAME = 15
MS_RDONLY, MS_REMOUNT, MS_BIND = 1, 32, 4096
PR_CAP_AMBIENT_CLEAR_ALL = 4
SECBITS_LOCKDOWN = 0xEF  # NOROOT, NO_SETUID_FIXUP, NO_CAP_AMBIENT_RAISE (+ locks), KEEP_CAPS_LOCKED
SYS_CAPSET, SYS_LL_CREATE, SYS_LL_ADD, SYS_LL_RESTRICT = 126, 444, 445, 446  # x86_64
O_PATH = 0o10000000


# Each process of a suite by its part (`ps`, `perf` tell them apart), the names kept here.
NAMES = {k: ctypes.create_string_buffer(b"classlab-" + k.encode()) for k in
         ("init", "host", "runner")}


def name_process(kind):
    libc.prctl(PR_SET_NAME, ctypes.addressof(NAMES[kind]), 0, 0, 0)


class Fail(Exception):
    pass


def check(rc, what):
    if rc < 0:
        e = ctypes.get_errno()
        raise Fail("%s: %s" % (what, os.strerror(e)))
    return rc


def mount(src, target, fstype, flags, data):
    check(libc.mount(src.encode(), target.encode(), fstype.encode() if fstype else None, flags,
                     data.encode() if data else None), "mount " + target)


def cap_last_cap():
    try:
        with open("/proc/sys/kernel/cap_last_cap") as f:
            return int(f.read())
    except (OSError, ValueError):
        return None


# The kernel's, read once here where it can be (a suite reads it if this could not).
CAP_LAST = cap_last_cap()


def drop_caps(run_as):
    check(libc.prctl(PR_SET_SECUREBITS, SECBITS_LOCKDOWN, 0, 0, 0), "securebits")
    last = CAP_LAST or cap_last_cap() or 63
    for cap in range(last + 1):
        libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)
    libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    if run_as:  # the securebits keep CAP_SETUID across the switch until capset below
        uid, gid = run_as
        os.setgroups([])
        os.setresgid(gid, gid, gid)
        os.setresuid(uid, uid, uid)
    hdr = struct.pack("Ii", 0x20080522, 0)
    data = bytes(24)
    check(libc.syscall(SYS_CAPSET, hdr, data), "capset")


LL_FILE_RIGHTS = (1 << 0) | (1 << 1) | (1 << 2) | (1 << 14)
LL_READ = (1 << 0) | (1 << 2) | (1 << 3)


def ll_handled(abi):
    v = (1 << 13) - 1
    if abi >= 2:
        v |= 1 << 13
    if abi >= 3:
        v |= 1 << 14
    return v


def landlock(abi, read, write, scoped):
    handled = ll_handled(abi)
    net = 3 if abi >= 4 else 0
    scope = 3 if abi >= 6 and scoped else 0
    size = 8 if abi <= 3 else (16 if abi <= 5 else 24)
    attr = struct.pack("QQQ", handled, net, scope)[:size]
    fd = check(libc.syscall(SYS_LL_CREATE, attr, ctypes.c_size_t(size), ctypes.c_uint32(0)),
               "landlock_create_ruleset")
    write_rights = handled & ~((1 << 6) | (1 << 11))
    for paths, rights in ((read, LL_READ), (write, write_rights)):
        for p in paths:
            try:
                pfd = os.open(p, O_PATH | os.O_CLOEXEC)
            except OSError:
                continue
            try:
                is_dir = os.path.isdir(p)
                allowed = (rights if is_dir else rights & LL_FILE_RIGHTS) & handled
                rule = struct.pack("=Qi", allowed, pfd)
                check(libc.syscall(SYS_LL_ADD, ctypes.c_int(fd), ctypes.c_int(1), rule,
                                   ctypes.c_uint32(0)), "landlock_add_rule " + p)
            finally:
                os.close(pfd)
    check(libc.syscall(SYS_LL_RESTRICT, ctypes.c_int(fd), ctypes.c_uint32(0)),
          "landlock_restrict_self")
    os.close(fd)


class Fprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


OWN_PID = 0x4F574E50  # where the programs want the installing process's pid (seccomp.rs)
BPF_JEQ_K = 0x15
OWN_PID_K = struct.pack("=I", OWN_PID)


def seccomp(programs, own_pid):
    pid = struct.pack("=I", own_pid)
    for hexed in programs:
        raw = bytearray.fromhex(hexed)
        # The placeholder where it is an instruction's k (bytes 4-7 of 8) in a JEQ: found by
        # search, not by unpacking each of the program's ~650 instructions (~0.15 ms).
        at = raw.find(OWN_PID_K)
        while at >= 0:
            if at % 8 == 4 and struct.unpack_from("=H", raw, at - 4)[0] == BPF_JEQ_K:
                raw[at:at + 4] = pid
            at = raw.find(OWN_PID_K, at + 1)
        buf = ctypes.create_string_buffer(bytes(raw), len(raw))
        prog = Fprog(len(raw) // 8, ctypes.addressof(buf))
        check(libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.addressof(prog), 0, 0),
              "seccomp")


def read_only(path):
    mount(path, path, None, MS_BIND, None)
    mount("none", path, None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, None)


def own_work_dir(req):
    """The sandbox's root holds no work dirs: a private /tmp, a tmpfs over the work dirs' root
    with this suite's dir, and /dev/shm."""
    size = req.get("tmpfs_bytes") or (64 << 20)
    small = min(size, 64 << 20)
    mount("classlab-tmp", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "size=%d,mode=1777" % small)
    root = req["work_root"]
    os.makedirs(root, exist_ok=True)
    mount("classlab-work", root, "tmpfs", MS_NOSUID | MS_NODEV, "size=%d,mode=0711" % size)
    os.makedirs(req["workdir"], exist_ok=True)
    if os.path.isdir("/dev/shm"):
        mount("classlab-shm", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
              "size=%d,mode=1777" % small)


# A request's header: the same for every suite, but for whether it runs with pytest.
HEADER = b"classlab-suite/3"
HEADER_PYTEST = b"classlab-suite/3 pytest"
NFDS = 8


def read_part(fd):
    """One part of the request: JSON in a sealed memory file (read here, in the suite's own
    process, never in the zygote)."""
    size = os.fstat(fd).st_size
    chunks, off = [], 0
    while off < size:
        b = os.pread(fd, min(size - off, 1 << 20), off)
        if not b:
            break
        chunks.append(b)
        off += len(b)
    os.close(fd)
    return json.loads(b"".join(chunks))


def place_files(wd, files):
    """The files (path relative to the work dir, text), each then read-only."""
    written = []
    for rel, content in files:
        p = os.path.join(wd, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        data = content.encode("utf-8")
        with open(p, "wb") as f:
            f.write(data)
        written.append((p, data))
    for p, _ in written:
        read_only(p)
    return written


def tmpfs_work_dir(req):
    """Without a root of its own: a private tmpfs over the suite's work dir (and /dev/shm)."""
    wd, size = req["workdir"], req["tmpfs_bytes"]
    mount("classlab", wd, "tmpfs", MS_NOSUID | MS_NODEV, "size=%d,mode=0700,nr_inodes=65536" % size)
    if os.path.isdir("/dev/shm"):
        mount("classlab-shm", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
              "size=%d,mode=1777" % min(size, 64 << 20))


def work_dir(req):
    """The work dir: the runner's (mode 0700) or, for the split harness, root's (0711) with
    the tests', the code's and the scratch directory, each with its owner and mode."""
    if req.get("minimal_root"):
        own_work_dir(req)
    elif req.get("tmpfs_bytes"):
        tmpfs_work_dir(req)
    wd = req["workdir"]
    dirs = req.get("dirs") or []
    if dirs:
        os.chown(wd, 0, 0)
        os.chmod(wd, 0o711)
    else:
        uid, gid = req.get("run_as") or (0, 0)
        os.chown(wd, uid, gid)
        os.chmod(wd, 0o700)
    for path, uid, gid, mode in dirs:
        os.makedirs(path, exist_ok=True)
        os.chown(path, uid, gid)
        os.chmod(path, mode)


def suite_init(fds):
    """PID 1 of the suite's PID namespace: set the suite up, fork the host (split) and the
    runner, reap, report."""
    out_w, err_w, res_w, tok_r, st_w, suite_fd, runner_fd, userns = fds
    st_w = fcntl.fcntl(st_w, fcntl.F_DUPFD_CLOEXEC, 100)
    os.close(fds[4])
    host, pair = None, None
    try:
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        name_process("init")
        os.setsid()
        for s in (signal.SIGCHLD, signal.SIGTERM, signal.SIGPIPE):
            signal.signal(s, signal.SIG_DFL)
        req = read_part(suite_fd)
        # Joined before anything else is allocated: the request's size counts against the
        # suite's memory limit, not the zygote's.
        for p in req["cgroup_procs"]:
            with open(p, "w") as f:
                f.write("0")
        cpu = (req.get("host") or {}).get("cpu")
        if cpu is not None:
            # The runner and the host take turns: on one CPU a request hands it over in place
            # (see cpus.rs). A CPU this process may not use leaves it where it was.
            try:
                os.sched_setaffinity(0, {cpu})
            except (OSError, ValueError, TypeError):
                pass
        flags = CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS | (CLONE_NEWNET if req["netns"] else 0)
        check(libc.unshare(flags), "unshare")
        mount("none", "/", None, MS_REC | MS_PRIVATE, None)
        # The namespace's own /proc: this suite's processes only.
        mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, None)
        work_dir(req)
        wd = req["workdir"]
        written = place_files(wd, req.get("files") or [])
        if req.get("host"):
            pair = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
            host = start_host(req, pair, (out_w, err_w), (res_w, tok_r, runner_fd), st_w, userns)
        os.close(userns)
        run = read_part(runner_fd)
        written += place_files(wd, run.get("files") or [])
    except BaseException as e:
        report(st_w, "error zygote child setup: %s\n" % e)
        os._exit(125)
    pid = os.fork()
    if pid == 0:
        sock = None
        if pair is not None:
            sock = pair[0].detach()
            pair[1].close()
        runner(req, run, (out_w, err_w, res_w, tok_r), sock, st_w)
        os._exit(124)
    for fd in (out_w, err_w, res_w, tok_r):
        os.close(fd)
    if pair is not None:
        for end in pair:
            end.close()
    del req, run
    reap(pid, st_w, written, wd, host)


def start_host(req, pair, outputs, runner_fds, st_w, userns):
    """The host, PID 1 of a PID namespace nested in the suite's: it mounts that namespace's own
    /proc in a mount namespace of its own, then becomes the host's Python (no init of its own:
    one fork less per suite; whatever the code forks ends with it). Only the suite's part of the
    request is in memory here (no test). `userns`: the user namespace that describes the host's
    idmapped view of scratch (classlab makes one per uid pair and sends it with the request).
    Returns the host's pid."""
    idmap = req["host"].get("scratch_idmap")
    own = os.open("/proc/self/ns/pid", os.O_RDONLY | os.O_CLOEXEC)
    check(libc.unshare(CLONE_NEWPID), "unshare(pid) for the host")
    pid = os.fork()
    if pid != 0:
        # The runner is forked in the suite's namespace, not the host's.
        check(libc.setns(own, CLONE_NEWPID), "setns(pid)")
        os.close(own)
        return pid
    try:
        os.close(own)
        for fd in runner_fds:
            os.close(fd)
        pair[0].close()
        check(libc.unshare(CLONE_NEWNS), "unshare(mount) for the host")
        mount("none", "/", None, MS_REC | MS_PRIVATE, None)
        mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, None)
        if idmap:
            idmap_over(idmap[0], userns)
        os.close(userns)
    except BaseException as e:
        report(st_w, "error host setup: %s\n" % e)
        os._exit(125)
    h = req["host"]
    name_process("host")
    python(req, dict(req, **h), HARNESSES["host"]["_host_entry"], h["spec"],
           list(outputs) + [pair[1].detach()], st_w)
    os._exit(124)


SYS_OPEN_TREE, SYS_MOVE_MOUNT, SYS_MOUNT_SETATTR = 428, 429, 442  # x86_64
OPEN_TREE_CLONE, AT_RECURSIVE, AT_EMPTY_PATH, MOVE_MOUNT_F_EMPTY_PATH = 1, 0x8000, 0x1000, 4
MOUNT_ATTR_IDMAP, AT_FDCWD = 0x00100000, -100


def idmap_over(path, userns):
    """An idmapped bind of `path` over itself, mapped as `userns` says: the scratch directory
    as the split harness's host sees it."""
    tree = check(libc.syscall(SYS_OPEN_TREE, AT_FDCWD, path.encode(),
                              OPEN_TREE_CLONE | os.O_CLOEXEC | AT_RECURSIVE), "open_tree")
    attr = struct.pack("QQQQ", MOUNT_ATTR_IDMAP, 0, 0, userns)
    check(libc.syscall(SYS_MOUNT_SETATTR, tree, b"", AT_EMPTY_PATH | AT_RECURSIVE, attr,
                       len(attr)), "mount_setattr(idmap)")
    check(libc.syscall(SYS_MOVE_MOUNT, tree, b"", AT_FDCWD, path.encode(),
                       MOVE_MOUNT_F_EMPTY_PATH), "move_mount")
    os.close(tree)


def report(fd, text):
    try:
        os.write(fd, text.encode())
    except OSError:
        pass


def ended(st, ru):
    if os.WIFSIGNALED(st):
        kind, n = "signal", os.WTERMSIG(st)
    else:
        kind, n = "exit", os.WEXITSTATUS(st)
    return "%s %d %d %d %d" % (kind, n, int(ru.ru_utime * 1e6), int(ru.ru_stime * 1e6),
                               ru.ru_maxrss)


def nspids(pid):
    """The pid's NSpid entries (this namespace's, then nested ones'); None once it is gone."""
    try:
        with open("/proc/%s/status" % pid) as f:
            for line in f:
                if line.startswith("NSpid:"):
                    return line.split()[1:]
    except OSError:
        return None
    return []


def reap(runner_pid, st_w, written, wd, host):
    while True:
        try:
            pid, st, ru = os.wait4(-1, 0)
        except ChildProcessError:
            os._exit(0)
        if pid == host:
            report(st_w, "host %s\n" % ended(st, ru))
        if pid != runner_pid:
            continue
        lines = ["python " + ended(st, ru)]
        for name in os.listdir("/proc"):
            if not name.isdigit() or name == "1" or int(name) == host:
                continue
            # Gone by now (the host ends on its own once the runner closed the socket): not
            # left behind.
            if nspids(name) is None:
                continue
            try:
                with open("/proc/%s/comm" % name) as f:
                    comm = f.read().strip()
            except OSError:
                continue
            lines.append("leftover %s (%s) [pid in the sandbox]" % (name, comm))
        # The suite's files are mounted read-only; say so if one changed all the same.
        for p, data in written:
            try:
                with open(p, "rb") as f:
                    same = f.read() == data
            except OSError:
                same = False
            if not same:
                lines.append("tampered %s" % os.path.relpath(p, wd))
        report(st_w, "".join(line + "\n" for line in lines))
        # Exiting as PID 1 of the namespace kills everything the suite left behind, the
        # split harness's host with it.
        os._exit(0)


def runner(req, run, fds, sock, st_w):
    ns = HARNESSES["split" if run.get("harness") == "split" else "inproc"]
    name_process("runner")
    python(req, req, ns["_main"], run["spec"], list(fds) + ([sock] if sock is not None else []),
           st_w)


def python(req, own, main, spec, fds, st_w):
    """Become one of the suite's Pythons: `fds` as 1, 2, 3… (0 is /dev/null), the rest closed;
    rlimits, cwd, no_new_privs, capabilities dropped as `own`'s user, Landlock with `own`'s
    paths, seccomp; then `main` with `spec` as sys.argv[1]."""
    try:
        os.setsid()
        null = os.open("/dev/null", os.O_RDONLY)
        # Move the descriptors out of the way (above 100), then into place.
        hi = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 100) for fd in [null] + list(fds)]
        for target, fd in enumerate(hi):
            os.dup2(fd, target, inheritable=True)
        os.closerange(len(hi), st_w)
        os.closerange(st_w + 1, 1024)
        for res, soft, hard in req["rlimits"]:
            cur_soft, cur_hard = resource.getrlimit(res)
            hard = min(hard, cur_hard) if cur_hard != resource.RLIM_INFINITY else hard
            resource.setrlimit(res, (min(soft, hard), hard))
        os.chdir(req.get("cwd") or req["workdir"])
        check(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
        if req["drop_caps"]:
            drop_caps(own.get("run_as"))
        if req["landlock_abi"]:
            landlock(req["landlock_abi"], own["read_paths"], own["write_paths"], True)
        seccomp(req.get("seccomp") or [], os.getpid())
        # _signal's: signal.signal makes an enum of the old handler, raising and catching a
        # ValueError for a function.
        _signal.signal(signal.SIGINT, signal.default_int_handler)
        os.environ.clear()
        os.environ.update(own["env"])
        sys.argv = ["-c", spec]
        os.close(st_w)
    except BaseException as e:
        report(st_w, "error zygote child setup: %s\n" % e)
        os._exit(125)
    main()


def start(fds, own_pidns):
    """Fork the suite's init as PID 1 of a fresh PID namespace; keep nothing of the request."""
    try:
        check(libc.unshare(CLONE_NEWPID), "unshare(pid)")
    except Fail as e:
        report(fds[4], "error zygote: %s\n" % e)
        return
    try:
        pid = os.fork()
    finally:
        # Later children go to the zygote's own namespace again (a second unshare needs it).
        if os.getpid() != 1 or True:
            pass
    if pid == 0:
        return fds
    if libc.setns(own_pidns, CLONE_NEWPID) != 0:
        # Every later suite would share this one's namespace: stop serving (classlab starts
        # another zygote; the suites running now finish first).
        os._exit(3)
    return None


def main():
    sock = socket.socket(fileno=3)
    own_pidns = os.open("/proc/self/ns/pid", os.O_RDONLY | os.O_CLOEXEC)
    # SIGCHLD wakes the select up through this pipe.
    wake_r, wake_w = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
    signal.set_wakeup_fd(wake_w, warn_on_full_buffer=False)
    signal.signal(signal.SIGCHLD, lambda *a: None)
    pytest_imported = False
    while True:
        try:
            ready, _, _ = select.select([sock, wake_r], [], [], 1.0)
        except InterruptedError:
            ready = []
        if wake_r in ready:
            try:
                os.read(wake_r, 4096)
            except OSError:
                pass
        while True:
            try:
                pid, _st = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
        if sock not in ready:
            continue
        try:
            msg, fds, _flags, _addr = socket.recv_fds(sock, 64, NFDS + 1)
        except InterruptedError:
            continue
        if not msg:
            os._exit(0)  # classlab went away
        if msg not in (HEADER, HEADER_PYTEST) or len(fds) != NFDS:
            for fd in fds:
                os.close(fd)
            continue
        if msg == HEADER_PYTEST and not pytest_imported:
            import_pytest()
            pytest_imported = True
        child = start(fds, own_pidns)
        if child is not None:
            sock.close()
            signal.set_wakeup_fd(-1)
            for fd in (wake_r, wake_w, own_pidns):
                os.close(fd)
            suite_init(child)
            os._exit(124)
        for fd in fds:
            os.close(fd)


main()
