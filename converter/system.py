"""Facts about the host that messages need (how this Linux distribution installs a package,
peak memory), and handing freed memory back to it."""

from __future__ import annotations

import ctypes
import os
from pathlib import Path

__all__ = ["install_command", "keep_freed_memory", "peak_rss_mib", "return_free_memory"]

_INSTALLERS = (({"debian", "ubuntu"}, "apt-get install {deb}"),
               ({"fedora", "rhel", "centos"}, "dnf install {rpm}"),
               ({"arch"}, "pacman -S {rpm}"),
               ({"suse", "opensuse"}, "zypper install {rpm}"))


def install_command(deb: str, rpm: str, os_release: Path = Path("/etc/os-release")) -> str:
    """The command that installs a package here, given its Debian and RPM names ('' if unknown)."""
    try:
        fields = dict(ln.split("=", 1) for ln in os_release.read_text().splitlines() if "=" in ln)
    except OSError:
        fields = {}
    ids = set(f"{fields.get('ID', '')} {fields.get('ID_LIKE', '')}".replace('"', "").split())
    sudo = "" if os.geteuid() == 0 else "sudo "
    for family, command in _INSTALLERS:
        if ids & family:
            return sudo + command.format(deb=deb, rpm=rpm)
    return ""


def peak_rss_mib() -> float:
    """This process's peak resident memory in MiB. Linux's VmHWM belongs to the process's own
    address space; ru_maxrss also carries the peak of the process that started it (kept across
    fork and exec), so a small conversion launched from a big process would report the big one."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # glibc's mallopt parameters


def keep_freed_memory(block: int = 32 << 20, held: int = 1 << 30) -> None:
    """Let this process's C heap serve blocks up to `block` bytes and keep up to `held` bytes of
    freed memory (glibc's mallopt; elsewhere nothing). An inference frees and allocates tensors
    of the same sizes every run; mapped afresh, each one is page-faulted in again, which cost
    small CNNs a third of their time."""
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError, TypeError):
        return
    mallopt(_M_MMAP_THRESHOLD, block)
    mallopt(_M_TRIM_THRESHOLD, held)


def return_free_memory() -> None:
    """Give the C heap's free pages back to the system (glibc's malloc_trim; elsewhere
    nothing): a parsed ONNX model's protobuf arena is freed into that heap, where the graph's
    small Python objects, allocated apart from it, would not reuse it."""
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError, TypeError):
        return
    trim(0)
