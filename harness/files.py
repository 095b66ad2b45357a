"""Writing files whole or not at all: a temporary file beside the target, then a rename."""

from __future__ import annotations

import hashlib
import os
import stat
import tempfile
from pathlib import Path

from harness.errors import InputError


def write_atomically(target: Path, text: str) -> None:
    """Replace `target` with `text` (UTF-8), never half-written. An existing file keeps its
    permission bits; a new one gets what the umask allows."""
    # Through a symbolic link: the file it names is the one replaced, and the link stays.
    target = Path(os.path.realpath(target))
    try:
        mode = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        mode = 0o666 & ~umask()
    except OSError as exc:
        raise InputError(f"cannot write: {exc.strerror}", str(target)) from None
    if target.exists() and not target.is_file():
        raise InputError("cannot write: not a regular file", str(target))
    if target.exists() and not mode & stat.S_IWUSR:
        raise InputError("cannot write: the file is read-only", str(target))
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise InputError(f"cannot write: {exc.strerror}", str(target)) from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(text.encode("utf-8"))
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError):
            raise InputError(f"cannot write: {exc.strerror}", str(target)) from None
        raise


def umask() -> int:
    """The process's umask (read without changing it for long)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


def sha256_of(path) -> str:
    """The SHA-256 of a file's content, read in 1 MiB blocks."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(1 << 20):
            h.update(block)
    return h.hexdigest()
