"""Writing files whole or not at all: a temporary file beside the target, then a rename."""

from __future__ import annotations

import contextlib
import hashlib
import os
import signal
import stat
import tempfile
from collections.abc import Iterator
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
        with temporary(target.parent, f".{target.name}.") as (fd, tmp):
            with os.fdopen(fd, "wb") as fh:
                fh.write(text.encode("utf-8"))
            os.chmod(tmp, mode)
            os.replace(tmp, target)
    except OSError as exc:
        raise InputError(f"cannot write: {exc.strerror}", str(target)) from None


_INTERRUPTS = {signal.SIGINT, signal.SIGTERM}


@contextlib.contextmanager
def temporary(directory: Path, prefix: str, suffix: str = ".tmp") -> Iterator[tuple[int, str]]:
    """A new file in `directory` as (fd, path), removed when the block ends unless the block
    renamed it away. Ctrl-C and SIGTERM are held while it is made, so no interrupt can fall
    between its creation and the cleanup that removes it."""
    held = signal.pthread_sigmask(signal.SIG_BLOCK, _INTERRUPTS)
    try:
        fd, path = tempfile.mkstemp(prefix=prefix, suffix=suffix, dir=directory)
    except BaseException:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)
        raise
    try:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)  # a held interrupt lands here, inside the cleanup
        yield fd, path
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)


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


def read_input(path: Path, limit: int, what: str) -> bytes:
    """The bytes of an input file the user named: a regular file (a FIFO would block, a device
    never ends) of at most `limit` bytes; anything else is one error naming the file."""
    try:
        info = path.stat()
    except OSError as exc:
        raise InputError(f"cannot read {what}: {exc.strerror}", str(path)) from None
    if not stat.S_ISREG(info.st_mode):
        raise InputError(f"not a regular file (a {what} must be one)", str(path))
    if info.st_size > limit:
        raise InputError(f"{info.st_size:,} bytes: a {what} is at most {limit:,} bytes", str(path))
    try:
        with open(path, "rb") as fh:
            data = fh.read(limit + 1)
    except OSError as exc:
        raise InputError(f"cannot read {what}: {exc.strerror}", str(path)) from None
    if len(data) > limit:  # (it grew while being read)
        raise InputError(f"more than {limit:,} bytes: a {what} is at most {limit:,} bytes", str(path))
    return data
