# classlab warm interpreter ("zygote"): a Python that has imported the harness's modules (and
# pytest, when installed) and forks once per suite. It never runs code under test itself.
#
# Started by the classlab launcher as `python -s -P -B -c <this file> <runner source>` inside
# network/IPC/UTS/mount/PID namespaces and the sandbox's own root (only the interpreter's trees,
# read-only, and an empty mount point for the work dirs), with its capabilities (it needs them
# to set each child up) and without Landlock or seccomp. fd 3 is a SOCK_SEQPACKET socket to
# classlab. Each request is one JSON message (with the suite's files) and five descriptors:
# stdout, stderr, result (write), token (read), status (write). The child applies the same
# isolation as a cold start, in this order: setsid, joins the suite's cgroups, new
# mount/network/IPC/UTS namespaces, private /tmp, work dir (the suite's files, read-only) and
# /dev/shm, descriptors 0-4, rlimits, securebits and bounding set, the unprivileged user, every
# capability dropped, no_new_privs, Landlock, seccomp, then runs the harness. The zygote writes the child's end to the status descriptor
# (`python exit|signal N utime_us stime_us maxrss_kb`), like the cold launcher.

import ctypes
import fcntl
import json
import os
import resource
import select
import signal
import socket
import struct
import sys

import unittest  # noqa: F401  (warm imports shared by every suite)
import unittest.case  # noqa: F401
import unittest.loader  # noqa: F401
import traceback  # noqa: F401
import types  # noqa: F401
import re  # noqa: F401

try:
    import pytest  # noqa: F401
    import _pytest.python  # noqa: F401
    import _pytest.runner  # noqa: F401
    import _pytest.reports  # noqa: F401
    import _pytest.skipping  # noqa: F401
    import pluggy  # noqa: F401
except BaseException:
    pass

RUNNER = {"__name__": "classlab_harness", "__builtins__": __builtins__}
exec(compile(sys.argv[1], "<classlab-harness>", "exec"), RUNNER)

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong,
                       ctypes.c_char_p]
libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong,
                       ctypes.c_ulong]

CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWNET = 0x20000, 0x4000000, 0x8000000, 0x40000000
MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REC, MS_PRIVATE = 2, 4, 8, 16384, 1 << 18
PR_SET_NO_NEW_PRIVS, PR_CAPBSET_DROP, PR_SET_SECUREBITS, PR_CAP_AMBIENT = 38, 24, 28, 47
PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 22, 2
MS_RDONLY, MS_REMOUNT, MS_BIND = 1, 32, 4096
PR_CAP_AMBIENT_CLEAR_ALL = 4
SECBITS_LOCKDOWN = 0xEF  # NOROOT, NO_SETUID_FIXUP, NO_CAP_AMBIENT_RAISE (+ locks), KEEP_CAPS_LOCKED
SYS_CAPSET, SYS_LL_CREATE, SYS_LL_ADD, SYS_LL_RESTRICT = 126, 444, 445, 446  # x86_64
O_PATH = 0o10000000


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


def snapshot(root, rel=""):
    out = []
    for name in sorted(os.listdir(os.path.join(root, rel))):
        r = os.path.join(rel, name)
        p = os.path.join(root, r)
        if os.path.isdir(p) and not os.path.islink(p):
            out.append((r, None))
            out.extend(snapshot(root, r))
        elif os.path.isfile(p):
            with open(p, "rb") as f:
                out.append((r, f.read()))
    return out


def drop_caps(run_as):
    check(libc.prctl(PR_SET_SECUREBITS, SECBITS_LOCKDOWN, 0, 0, 0), "securebits")
    try:
        with open("/proc/sys/kernel/cap_last_cap") as f:
            last = int(f.read())
    except OSError:
        last = 63
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


def seccomp(programs):
    for hexed in programs:
        raw = bytes.fromhex(hexed)
        buf = ctypes.create_string_buffer(raw, len(raw))
        prog = Fprog(len(raw) // 8, ctypes.addressof(buf))
        check(libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.addressof(prog), 0, 0),
              "seccomp")


def read_only(path):
    mount(path, path, None, MS_BIND, None)
    mount("none", path, None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, None)


def own_work_dir(req):
    """The sandbox's root holds no work dirs: a private /tmp, a tmpfs over the work dirs' root,
    this suite's dir (owned by the sandbox user) with its files, each read-only."""
    size = req.get("tmpfs_bytes") or (64 << 20)
    small = min(size, 64 << 20)
    mount("classlab-tmp", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "size=%d,mode=1777" % small)
    root = req["work_root"]
    os.makedirs(root, exist_ok=True)
    mount("classlab-work", root, "tmpfs", MS_NOSUID | MS_NODEV, "size=%d,mode=0711" % size)
    wd = req["workdir"]
    os.makedirs(wd, exist_ok=True)
    uid, gid = req.get("run_as") or (0, 0)
    os.chown(wd, uid, gid)
    os.chmod(wd, 0o700)
    files = req.get("files") or []
    for rel, content in files:
        p = os.path.join(wd, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w", encoding="utf-8") as f:
            f.write(content)
    for rel, _ in files:
        read_only(os.path.join(wd, rel))
    if os.path.isdir("/dev/shm"):
        mount("classlab-shm", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
              "size=%d,mode=1777" % small)


def child(req, fds):
    out_w, err_w, res_w, non_r, st_w = fds
    try:
        os.setsid()
        me = str(os.getpid())
        for p in req["cgroup_procs"]:
            with open(p, "w") as f:
                f.write(me)
        flags = CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS | (CLONE_NEWNET if req["netns"] else 0)
        check(libc.unshare(flags), "unshare")
        wd = req["workdir"]
        mount("none", "/", None, MS_REC | MS_PRIVATE, None)
        if req.get("minimal_root"):
            own_work_dir(req)
        elif req.get("tmpfs_bytes"):
            files = snapshot(wd)
            mount("classlab", wd, "tmpfs", MS_NOSUID | MS_NODEV,
                  "size=%d,mode=0700,nr_inodes=65536" % req["tmpfs_bytes"])
            for rel, content in files:
                p = os.path.join(wd, rel)
                if content is None:
                    os.makedirs(p, exist_ok=True)
                else:
                    with open(p, "wb") as f:
                        f.write(content)
            if os.path.isdir("/dev/shm"):
                mount("classlab-shm", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
                      "size=%d,mode=1777" % min(req["tmpfs_bytes"], 64 << 20))
        null = os.open("/dev/null", os.O_RDONLY)
        # Move the descriptors out of the way (above 100), then into place.
        hi = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 100)
              for fd in (null, out_w, err_w, res_w, non_r)]
        st_w = fcntl.fcntl(st_w, fcntl.F_DUPFD_CLOEXEC, 100)
        for target, fd in enumerate(hi):
            os.dup2(fd, target, inheritable=True)
        keep = {0, 1, 2, 3, 4, st_w}
        for fd in range(5, 1024):
            if fd not in keep:
                try:
                    os.close(fd)
                except OSError:
                    pass
        for res, soft, hard in req["rlimits"]:
            cur_soft, cur_hard = resource.getrlimit(res)
            hard = min(hard, cur_hard) if cur_hard != resource.RLIM_INFINITY else hard
            resource.setrlimit(res, (min(soft, hard), hard))
        os.chdir(wd)
        check(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
        if req["drop_caps"]:
            drop_caps(req.get("run_as"))
        if req["landlock_abi"]:
            landlock(req["landlock_abi"], req["read_paths"], req["write_paths"], True)
        seccomp(req.get("seccomp") or [])
        for s in (signal.SIGCHLD, signal.SIGTERM, signal.SIGPIPE):
            signal.signal(s, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        os.environ.clear()
        os.environ.update(req["env"])
        sys.argv = ["-c", req["spec"]]
        os.close(st_w)
    except BaseException as e:
        try:
            os.write(st_w, ("error zygote child setup: %s\n" % e).encode())
        except OSError:
            pass
        os._exit(125)
    RUNNER["_main"]()


def main():
    sock = socket.socket(fileno=3)
    children = {}
    # SIGCHLD wakes the select up through this pipe.
    wake_r, wake_w = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
    signal.set_wakeup_fd(wake_w, warn_on_full_buffer=False)
    signal.signal(signal.SIGCHLD, lambda *a: None)
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
        while children:
            try:
                pid, st, ru = os.wait4(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            fd = children.pop(pid, None)
            if fd is None:
                continue
            if os.WIFSIGNALED(st):
                kind, n = "signal", os.WTERMSIG(st)
            else:
                kind, n = "exit", os.WEXITSTATUS(st)
            line = "python %s %d %d %d %d\n" % (kind, n, int(ru.ru_utime * 1e6),
                                                int(ru.ru_stime * 1e6), ru.ru_maxrss)
            try:
                os.write(fd, line.encode())
            except OSError:
                pass
            os.close(fd)
        if sock not in ready:
            continue
        try:
            msg, fds, _flags, _addr = socket.recv_fds(sock, 1 << 22, 8)
        except InterruptedError:
            continue
        if not msg:
            os._exit(0)  # classlab went away
        if len(fds) != 5:
            for fd in fds:
                os.close(fd)
            continue
        req = json.loads(msg)
        pid = os.fork()
        if pid == 0:
            sock.close()
            signal.set_wakeup_fd(-1)
            os.close(wake_r)
            os.close(wake_w)
            child(req, fds)
            os._exit(124)
        for fd in fds[:4]:
            os.close(fd)
        children[pid] = fds[4]


main()
