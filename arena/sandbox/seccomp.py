"""The seccomp filter every sandboxed command runs under, compiled by libseccomp.

A bot never needs the kernel's keyrings, mounts, new namespaces, ptrace, BPF, perf
events, modules or kexec; they are what a kernel bug would need, so the filter answers
them with EPERM (``clone3``, whose flags a filter cannot see, with ENOSYS, so that C
libraries fall back to ``clone``, whose namespace flags it can). Everything else is
allowed; system calls of another architecture (32-bit calls on x86-64) kill the process.

The filter is built with libseccomp (``libseccomp.so.2``, Debian's ``libseccomp2``),
the library Docker, systemd and Flatpak compile theirs with, through a few `ctypes`
calls, and exported as the classic BPF program bwrap loads with ``--seccomp FD``.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import functools
import os

DENIED = (
    # keyrings: a channel between sandboxes, and the host session's keys
    "keyctl", "add_key", "request_key",
    # the file system's shape
    "mount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree", "fsopen",
    "fsconfig", "fsmount", "fspick", "mount_setattr",
    # namespaces (and with them new user namespaces)
    "unshare", "setns",
    # other processes' memory and descriptors
    "ptrace", "process_vm_readv", "process_vm_writev", "process_madvise", "pidfd_getfd",
    "kcmp",
    # io_uring: system calls' work done where no filter sees it
    "io_uring_setup", "io_uring_enter", "io_uring_register",
    # the kernel's own machinery
    "bpf", "perf_event_open", "userfaultfd", "init_module", "finit_module", "delete_module",
    "kexec_load", "kexec_file_load", "reboot", "swapon", "swapoff", "acct", "syslog",
    "quotactl", "open_by_handle_at", "lookup_dcookie", "iopl", "ioperm", "uselib",
)
"""The system calls a sandboxed command is refused (EPERM)."""

NAMESPACE_FLAGS = {
    "CLONE_NEWNS": 0x00020000, "CLONE_NEWCGROUP": 0x02000000, "CLONE_NEWUTS": 0x04000000,
    "CLONE_NEWIPC": 0x08000000, "CLONE_NEWUSER": 0x10000000, "CLONE_NEWPID": 0x20000000,
    "CLONE_NEWNET": 0x40000000, "CLONE_NEWTIME": 0x00000080,
}
"""The `clone` flags that make a new namespace: a `clone` with any of them is refused."""

_ALLOW = 0x7FFF0000
_ERRNO = 0x00050000
_MASKED_EQ = 7


class _ArgCompare(ctypes.Structure):
    _fields_ = [("arg", ctypes.c_uint), ("op", ctypes.c_int), ("datum_a", ctypes.c_uint64),
                ("datum_b", ctypes.c_uint64)]


class SeccompError(RuntimeError):
    """The filter cannot be built here (libseccomp missing or refusing a rule)."""


@functools.cache
def _library() -> ctypes.CDLL:
    try:
        lib = ctypes.CDLL("libseccomp.so.2", use_errno=True)
    except OSError:
        name = ctypes.util.find_library("seccomp")  # runs ldconfig: only when needed
        try:
            lib = ctypes.CDLL(name or "libseccomp.so.2", use_errno=True)
        except OSError as exc:
            raise SeccompError(f"libseccomp is not installed ({exc})") from None
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_release.argtypes = [ctypes.c_void_p]
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_rule_add_array.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int,
                                           ctypes.c_uint, ctypes.POINTER(_ArgCompare)]
    lib.seccomp_export_bpf.argtypes = [ctypes.c_void_p, ctypes.c_int]
    return lib


def write_filter(fd: int) -> None:
    """Write the compiled filter (classic BPF, as bwrap's ``--seccomp`` reads it) to
    `fd`; `SeccompError` when it cannot be built."""
    lib = _library()
    context = lib.seccomp_init(_ALLOW)
    if not context:
        raise SeccompError("libseccomp cannot start a filter")
    try:
        for name in DENIED:
            _deny(lib, context, name, errno.EPERM)
        _deny(lib, context, "clone3", errno.ENOSYS)
        for flag in NAMESPACE_FLAGS.values():
            _deny(lib, context, "clone", errno.EPERM, (_ArgCompare(0, _MASKED_EQ, flag, flag),))
        if lib.seccomp_export_bpf(context, fd) != 0:
            raise SeccompError("libseccomp cannot export the filter")
    finally:
        lib.seccomp_release(context)


def _deny(lib: ctypes.CDLL, context: int, name: str, code: int,
          compare: tuple[_ArgCompare, ...] = ()) -> None:
    number = lib.seccomp_syscall_resolve_name(name.encode())
    if number < 0:
        return  # a call this kernel's architecture does not have (iopl on arm64, say)
    array = (_ArgCompare * len(compare))(*compare) if compare else None
    result = lib.seccomp_rule_add_array(context, _ERRNO | code, number, len(compare), array)
    if result != 0:
        raise SeccompError(f"libseccomp refuses the rule for {name}: "
                           f"{os.strerror(-result)}")


def filter_fd() -> int:
    """A new file descriptor (a memfd, inheritable) holding the compiled filter at its
    start; `SeccompError` when it cannot be built."""
    fd = os.memfd_create("arena-seccomp", 0)
    try:
        write_filter(fd)
        os.lseek(fd, 0, os.SEEK_SET)
    except BaseException:
        os.close(fd)
        raise
    os.set_inheritable(fd, True)
    return fd


@functools.cache
def unavailable() -> str | None:
    """Why the filter cannot be built here (None: it can)."""
    try:
        with open(os.devnull, "wb") as sink:
            write_filter(sink.fileno())
    except (SeccompError, OSError) as exc:
        return str(exc)
    return None
