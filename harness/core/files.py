"""Writing files whole or not at all: a temporary file beside the target, then a rename; reading
the files a user names; JSON read and written as standard JSON only."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import signal
import stat
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from harness.core.errors import PATH_LIMIT, InputError, quoted


def write_atomically(target: Path, text: str, read_as: bytes | None = None) -> None:
    """Replace `target` with `text` (UTF-8), never half-written. An existing file keeps its
    permission bits and its owner (or is refused when its owner cannot be kept); a new one gets
    what the umask allows. A symbolic link is refused: nothing is ever written through one (a
    link planted where an output goes would redirect the write onto any file); so is a file with
    more than one hard link (`_replaceable` says why). With `read_as`
    (the bytes the new text was made from), a file that no longer holds them (edited while its
    new text was being made) is refused and left as it is: the edit is not lost."""
    target = Path(target)
    info = replaceable(target)
    mode = stat.S_IMODE(info.st_mode) if info is not None else 0o666 & ~umask()
    try:
        with temporary(target.parent, f".{target.name}.") as (fd, tmp):
            with os.fdopen(fd, "wb") as fh:
                fh.write(text.encode("utf-8"))
            if info is not None:
                _keep_owner(tmp, info, target)
            os.chmod(tmp, mode)  # (after chown, which may clear set-id bits)
            if read_as is not None and not _holds(target, read_as):
                raise InputError("changed while its new text was being made (edited meanwhile?): left as it is", str(target))
            replaceable(target)  # (a link made while the text was written counts too)
            os.replace(tmp, target)
    except OSError as exc:
        raise InputError(f"cannot write: {exc.strerror}", str(target)) from None


def replaceable(target: Path) -> os.stat_result | None:
    """`target`'s status when the file may be replaced by a rename (None: there is no file yet);
    else InputError saying why not.

    A file with more than one hard link is refused. A rename gives the path a new inode, so the
    other names would keep the old text: a silent split. Writing into the inode instead would
    reach every name, but could leave all of them half-written (a kill, a full disk), and would
    also rewrite a copy that relies on rename to stay as it was (`cp -al`, rsync --link-dest).
    Only refusing loses nothing; the user decides which names should change, and breaks the link."""
    if target.is_symlink():
        raise InputError("cannot write: a symbolic link (the harness never writes through one)", str(target))
    try:
        info = target.stat()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise InputError(f"cannot write: {exc.strerror}", str(target)) from None
    if not stat.S_ISREG(info.st_mode):
        raise InputError("cannot write: not a regular file", str(target))
    if not info.st_mode & stat.S_IWUSR:
        raise InputError("cannot write: the file is read-only", str(target))
    if info.st_nlink > 1:
        raise InputError(
            f"cannot write: the file has {info.st_nlink} hard links, and its other name(s) would keep the old text: "
            "left as it is (give it a file of its own first: cp FILE FILE.new && mv FILE.new FILE)",
            str(target),
        )
    return info


def _holds(path: Path, data: bytes) -> bool:
    """Whether `path` is a regular file holding exactly `data`."""
    try:
        return read_input(path, len(data), "file") == data
    except InputError:  # (larger, gone, or no longer a regular file)
        return False


# Every file this run read or ran (specs, known-bugs.yaml, documents, headers, tools and the
# files they load or a wrapper names), by device and inode: an output is never written onto one.
_USED: dict[tuple[int, int], str] = {}
_USED_LOCK = threading.Lock()


def note_used(path) -> None:
    """Record `path` (followed through links) as a file this run read or ran."""
    try:
        info = os.stat(path)
    except OSError:  # (one that cannot be read is refused where it is read)
        return
    with _USED_LOCK:
        _USED.setdefault((info.st_dev, info.st_ino), str(path))


def not_an_input(output: Path | None, flag: str) -> None:
    """Refuse (InputError) an output file that is a file this run read or ran (`note_used`),
    directly, through a link or as a second hard link: writing it would replace it."""
    if output is None:
        return
    try:
        info = os.stat(output)
    except OSError:  # (a new file, or a broken link: refused where it is written)
        return
    with _USED_LOCK:
        used = _USED.get((info.st_dev, info.st_ino))
    if used is not None:
        raise InputError(
            f"{flag} {quoted(str(output), PATH_LIMIT)} is the input {quoted(used, PATH_LIMIT)} (a file this run read or ran): the output would replace it"
        )


def write_output(target: Path, text: str, flag: str) -> None:
    """Write an output file the user named with `flag` (atomically), never onto a file this run
    read or ran."""
    not_an_input(target, flag)
    write_atomically(target, text)


def _keep_owner(tmp: str, info: os.stat_result, target: Path) -> None:
    """Give the replacement `target`'s owner and group; refuse when that is not allowed."""
    made = os.stat(tmp)
    if (made.st_uid, made.st_gid) == (info.st_uid, info.st_gid):
        return
    try:
        os.chown(tmp, info.st_uid, info.st_gid)
    except PermissionError:
        raise InputError(
            f"cannot write: the file belongs to uid {info.st_uid}, gid {info.st_gid}; replacing it would change that",
            str(target),
        ) from None


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
    never ends) of at most `limit` bytes; anything else is one error naming the file. The file is
    opened without blocking and judged by what was opened, so nothing swapped in between a look
    and the read can hang it."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise InputError(f"cannot read {what}: {exc.strerror}", str(path)) from None
    note_used(path)
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
        os.close(fd)
        if not stat.S_ISREG(info.st_mode):
            directory = ": a directory; name the files in it" if stat.S_ISDIR(info.st_mode) else ""
            raise InputError(f"not a regular file (a {what} must be one){directory}", str(path))
        raise InputError(f"{info.st_size:,} bytes: a {what} is at most {limit:,} bytes", str(path))
    with os.fdopen(fd, "rb") as fh:
        try:
            data = fh.read(limit + 1)
        except OSError as exc:
            raise InputError(f"cannot read {what}: {exc.strerror}", str(path)) from None
    if len(data) > limit:  # (it grew while being read)
        raise InputError(f"more than {limit:,} bytes: a {what} is at most {limit:,} bytes", str(path))
    return data


def json_text(value: object, indent: int | None = 1, **options) -> str:
    """`value` as the text of a JSON document (RFC 8259), as the harness writes every one.
    JSON has no NaN or infinity: Python's json writes them as the bare words NaN and Infinity,
    which no JSON reader (this harness's `read_json` included) takes, so a value holding one is
    a ValueError here, never a document its reader cannot read."""
    return json.dumps(value, indent=indent, allow_nan=False, **options)


def read_json(path: Path, limit: int, what: str) -> Any:
    """The value of the JSON document in `path` (a regular file of at most `limit` bytes, as
    `read_input` reads it); `parse_json` says what it must be."""
    return parse_json(read_input(path, limit, what), str(path))


def parse_json(data: bytes, path: str) -> Any:
    """The value of a JSON document, read as RFC 8259 defines it: UTF-8 text holding one value.
    Anything else is one InputError at its line and column: bytes that are not UTF-8, a syntax
    error, and the constants NaN, Infinity and -Infinity, which Python's json reads (and writes)
    and no JSON reader takes: a document that carried one would be written out again invalid.
    Nesting deeper than Python's stack and integers of more digits than Python converts are
    refused by name."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, col = data.count(b"\n", 0, exc.start) + 1, exc.start - data.rfind(b"\n", 0, exc.start)
        raise InputError(f"not UTF-8 (byte 0x{data[exc.start]:02x})", path, line, col) from None
    try:
        return json.loads(text, parse_constant=_refuse_constant)
    except _NotJson as exc:
        at = next((m.start(1) for m in _JSON_CONSTANT.finditer(text) if m.group(1)), 0)
        raise InputError(f"not JSON: {exc.word} (JSON has no NaN or infinity)", path, *_position(text, at)) from None
    except json.JSONDecodeError as exc:
        raise InputError(f"not JSON: {exc.msg}", path, exc.lineno, exc.colno) from None
    except RecursionError:
        raise InputError("not JSON this harness reads: nested too deeply", path) from None
    except ValueError:  # (an integer past Python's limit on the digits it converts)
        raise InputError("not JSON this harness reads: an integer of more digits than any value it holds has", path) from None


class _NotJson(Exception):
    """A constant (NaN, Infinity, -Infinity) Python's json reads and JSON does not have."""

    def __init__(self, word: str):
        super().__init__(word)
        self.word = word


def _refuse_constant(word: str) -> object:
    raise _NotJson(word)


# A JSON string, or one of the constants outside strings: the first constant found is the one
# the parser met first (it read the text before it as JSON).
_JSON_CONSTANT = re.compile(r'"(?:[^"\\]|\\.)*"|(-?Infinity|NaN)', re.DOTALL)


def _position(text: str, index: int) -> tuple[int, int]:
    """1-based line and column of `text[index]`, lines ending at "\\n" (as JSONDecodeError counts)."""
    return text.count("\n", 0, index) + 1, index - text.rfind("\n", 0, index)


class ReaderLeft(Exception):
    """The reader of stdout went away (`harness run | head`) after the command had decided its
    exit status, `status`."""

    def __init__(self, status: int):
        super().__init__(status)
        self.status = status


@contextlib.contextmanager
def answering(status: int, why: str = "") -> Iterator[None]:
    """Print a command's answer, whose exit status is `status` already: a reader that goes away
    meanwhile raises ReaderLeft(status), so that the command line can still exit with it. `why`:
    a line for stderr after the answer (why nothing was judged), said whether or not the reader
    of stdout took the answer."""
    try:
        yield
        if why:
            sys.stdout.flush()  # (the answer first, then the line, on a terminal too)
    except BrokenPipeError:
        raise ReaderLeft(status) from None
    finally:
        if why:
            print(why, file=sys.stderr)
