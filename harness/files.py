"""Writing files whole or not at all: a temporary file beside the target, then a rename."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path
from typing import Callable

from harness.errors import InputError

# Rewrites the file just written at the given (temporary) path; returns its whole new text.
Fill = Callable[[Path], str]


def write_atomically(target: Path, text: str, fill: Fill | None = None) -> None:
    """Replace `target` with `text` (UTF-8). An existing file keeps its permission bits; a new one
    gets what the umask allows. `fill`, when given, may rewrite the temporary file first (its RUN
    lines read the file itself, e.g. to generate CHECK lines) — `target` is never half-written."""
    target = Path(target)
    try:
        mode = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        mode = 0o666 & ~_umask()
    except OSError as exc:
        raise InputError(f"cannot write: {exc.strerror}", str(target)) from None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise InputError(f"cannot write: {exc.strerror}", str(target)) from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(text.encode("utf-8"))
        if fill is not None:
            final = fill(Path(tmp))
            with open(tmp, "wb") as fh:
                fh.write(final.encode("utf-8"))
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


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
