"""The host side of a FUSE mount: is FUSE usable here, is a path mounted, unmount it.

Nothing here mounts: :mod:`hookconf.faultinject.mount.server` does, in a process of its own.
These helpers keep a run from ever leaving a mount behind:

- :func:`fuse_available` says whether this machine can serve a mount (``/dev/fuse``,
  ``fusermount3``, libfuse 3 and the ``mfusepy`` binding) and, when not, why — one line a
  report can print;
- :func:`mounted` reads ``/proc/self/mountinfo`` (never ``stat``: a dead server's mount answers
  ``ENOTCONN`` to it);
- :func:`unmount` detaches a mount lazily (``fusermount3 -u -z``, falling back to
  ``umount2(MNT_DETACH)``), which also clears a mount whose server hangs or died.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
import time

__all__ = ["FuseUnavailable", "fuse_available", "mounted", "unmount", "wait_mounted"]

_MNT_DETACH = 2


class FuseUnavailable(RuntimeError):
    """This machine cannot serve a FUSE mount; ``str()`` says why."""


def fuse_available() -> tuple[bool, str]:
    """``(True, "")`` when a mount can be served here, else ``(False, reason)``."""
    if not os.path.exists("/dev/fuse"):
        return False, "/dev/fuse does not exist (no FUSE in this kernel or container)"
    if not os.access("/dev/fuse", os.R_OK | os.W_OK):
        return False, "/dev/fuse is not readable and writable by this user"
    if shutil.which("fusermount3") is None:
        return False, "fusermount3 is not installed (Debian/Ubuntu: apt-get install fuse3)"
    try:
        import mfusepy  # noqa: F401
    except ImportError as exc:
        return False, (f"the FUSE binding cannot be loaded ({exc}); install the mount extra "
                       "(from a clone: pip install '.[mount]')")
    except OSError as exc:  # mfusepy raises when libfuse is missing
        return False, f"libfuse 3 cannot be loaded ({exc}); apt-get install fuse3"
    except Exception as exc:  # noqa: BLE001 - any import failure means "not here"
        return False, f"the FUSE binding failed to load: {type(exc).__name__}: {exc}"
    return True, ""


def _unescape(field: str) -> str:
    """``/proc/self/mountinfo`` escapes space, tab, newline and backslash as octal."""
    out, i = [], 0
    while i < len(field):
        if field[i] == "\\" and i + 3 < len(field) + 1 and field[i + 1:i + 4].isdigit():
            out.append(chr(int(field[i + 1:i + 4], 8)))
            i += 4
        else:
            out.append(field[i])
            i += 1
    return "".join(out)


def mounted(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` (made absolute, not resolved) is a mount point now."""
    want = os.path.abspath(os.fspath(path))
    try:
        with open("/proc/self/mountinfo", encoding="utf-8", errors="surrogateescape") as f:
            return any(_unescape(line.split(" ")[4]) == want for line in f if line.count(" ") > 4)
    except OSError:
        return False


def unmount(path: str | os.PathLike[str]) -> bool:
    """Lazily detach the mount at ``path`` if there is one; ``True`` when none is left.
    Never raises: a mount that cannot be removed is reported by the return value."""
    path = os.path.abspath(os.fspath(path))
    for _ in range(3):
        if not mounted(path):
            return True
        tool = shutil.which("fusermount3")
        if tool is not None:
            subprocess.run([tool, "-u", "-z", "-q", path], stdin=subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           timeout=10, check=False)
        if mounted(path):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.umount2(os.fsencode(path), _MNT_DETACH)
        time.sleep(0.01)
    return not mounted(path)


def wait_mounted(path: str | os.PathLike[str], timeout_s: float, alive: object = None) -> bool:
    """Poll until ``path`` is a mount point (``True``) or ``timeout_s`` passed or
    ``alive()`` (a callable) says the server is gone (``False``)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if mounted(path):
            return True
        if callable(alive) and not alive():
            return False
        time.sleep(0.01)
    return mounted(path)
