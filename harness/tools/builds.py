"""What identifies an LLVM build on disk, and what it answered about itself.

A tool's *stamp* is the stat identity (real path, device, inode, size, modification and change
times) of its binary and of every shared library it loads from its own build (`libraries`): a
rebuild, a relink, a package upgrade or a file written in place changes it. Only an ELF binary
has one: a script may run another build's tool, which its own file does not show.

`Answers` keeps what a build said about itself (llc's `--version`, `-mcpu=help` per target, which
intrinsic declarations opt knows) under `<cache dir>/answers/`, keyed by the asking tool's stamp
and the question, so that a later process on the same build asks again nothing it was answered.
Only answers are kept: a probe that timed out, was killed or could not be read is asked again
next time. An entry that is not a regular file of bounded size, not JSON, not for its own key,
not matching the digest it carries of its key and answer (damaged in place), or not of the
answer's type is a miss, and is written again.

The on-disk cache of tool runs (`harness.tools.cache`) keeps its entries the same way
(`read_regular`, `write_under`) under the same directory (`default_dir`).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import stat
import struct
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from harness.core import files

T = TypeVar("T")
ANSWERS_FORMAT = 3  # bump when an answer's layout or its key material changes
ANSWER_LIMIT = 1 << 20  # bytes of one stored answer (every declaration's verdict of a target)


def default_dir() -> Path:
    """`$XDG_CACHE_HOME/matrix-harness`, else `~/.cache/matrix-harness`. A relative
    $XDG_CACHE_HOME is ignored, as the XDG base directory specification asks (it would put the
    cache under whatever directory the harness runs in)."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):
        base = os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "matrix-harness"


def read_regular(path: Path, limit: int) -> bytes:
    """The bytes of a regular file of at most `limit` bytes. FileNotFoundError when there is none;
    another OSError or ValueError when it is something else (opened without blocking, so a FIFO
    cannot hang the read, and judged by what was opened) or larger."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
            raise ValueError("not a regular file of at most the limit")
        with os.fdopen(os.dup(fd), "rb") as fh:
            data = fh.read(limit + 1)
    finally:
        os.close(fd)
    if len(data) > limit:
        raise ValueError("grew past the limit")
    return data


def write_under(root: Path, target: Path, data: bytes) -> bool:
    """Write `data` to `target`, a file under the cache directory `root`, atomically; False (and
    nothing left behind, an interrupt included) when that fails or a directory between them
    (`runs/`, `runs/ab/`) is a link: a link inside the cache must not send writes elsewhere."""
    try:
        inside = target.parent.relative_to(root)
        for part in (*reversed(inside.parents[:-1]), inside):  # runs, then runs/ab
            step = root / part
            step.mkdir(exist_ok=True)
            if step.is_symlink():
                return False
        with files.temporary(target.parent, f".{target.name}.") as (fd, tmp):
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.replace(tmp, target)
        return True
    except OSError:
        return False


def libraries(path: str) -> set[str]:
    """Real paths of the shared libraries `path` loads that belong to an LLVM build, transitively:
    those found through its RPATH, $LD_LIBRARY_PATH or RUNPATH (searched in the loader's order),
    and any libLLVM* found in the system's directories (Debian's libLLVM-14.so.1 has no RUNPATH).
    Other system libraries (libc, libstdc++, libz...) are left out."""
    env_dirs = [d for d in os.environ.get("LD_LIBRARY_PATH", "").split(":") if d]
    seen: set[str] = set()
    todo = [os.path.realpath(path)]
    while todo:
        obj = todo.pop()
        needed, rpath, runpath = _elf_dynamic(obj)
        origin = os.path.dirname(obj)
        own = [
            d.replace("${ORIGIN}", origin).replace("$ORIGIN", origin)
            for d in ((rpath if not runpath else []) + env_dirs + runpath)
        ]
        for name in needed:
            if "/" in name:
                found = os.path.realpath(name) if os.path.isfile(name) else None
            else:
                found = next((os.path.realpath(c) for c in (os.path.join(d, name) for d in own) if os.path.isfile(c)), None)
                if found is None and name.startswith("libLLVM"):
                    found = next(
                        (os.path.realpath(c) for c in (os.path.join(d, name) for d in _system_dirs()) if os.path.isfile(c)), None
                    )
            if found and found not in seen:
                seen.add(found)
                todo.append(found)
    return seen


def _system_dirs() -> list[str]:
    """The loader's default directories (a libLLVM found there belongs to the build too). Asked
    under a lock: sysconfig fills its variables on the first call, and a second thread asking
    meanwhile reads them half filled (no MULTIARCH: no libLLVM found, another identity)."""
    with _SYSTEM_DIRS_LOCK:
        return _system_dirs_once()


_SYSTEM_DIRS_LOCK = threading.Lock()


@functools.cache
def _system_dirs_once() -> list[str]:
    import sysconfig  # (only when a library is looked for there: its import costs start-up)

    multiarch = sysconfig.get_config_var("MULTIARCH") or ""
    dirs = (f"/lib/{multiarch}", f"/usr/lib/{multiarch}", "/lib64", "/usr/lib64", "/lib", "/usr/lib", "/usr/local/lib")
    return [d for d in dirs if not d.endswith("/")]


def _elf_dynamic(path: str) -> tuple[list[str], list[str], list[str]]:
    """(DT_NEEDED names, DT_RPATH directories, DT_RUNPATH directories) of an ELF file; empty for
    anything else or anything unreadable (a script, another object format, a truncated or
    damaged ELF file: every offset and size it gives is checked against the file's size before
    it is used, so no read goes past the file and no buffer is larger than it)."""
    try:
        with open(path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size

            def chunk(offset: int, length: int) -> bytes:
                if not (0 <= offset <= size and 0 <= length <= size - offset):
                    raise ValueError("outside the file")
                fh.seek(offset)
                return fh.read(length)

            found = _dynamic_section(chunk(0, min(64, size)), chunk)
            if found is None:
                return [], [], []
            entries, base = found

            def string(offset: int) -> str:
                start = base + offset
                return chunk(start, min(4096, max(0, size - start))).split(b"\0", 1)[0].decode(errors="replace")

            needed = [string(v) for t, v in entries if t == 1]
            runpath = [string(v) for t, v in entries if t == 29]
            rpath = [string(v) for t, v in entries if t == 15]
            split = lambda texts: [d for text in texts for d in text.split(":") if d]
            return needed, split(rpath), split(runpath)
    except (OSError, ValueError, struct.error):
        return [], [], []


def _dynamic_section(head: bytes, chunk: Callable[[int, int], bytes]) -> tuple[list[tuple[int, int]], int] | None:
    """The (tag, value) entries of an ELF file's dynamic section and the file offset its string
    table's offsets count from, or None (not ELF, no dynamic section, no string table in a
    loaded segment). `chunk(offset, length)` reads the file, raising ValueError outside it."""
    if len(head) < 52 or head[:4] != b"\x7fELF" or head[4] not in (1, 2) or head[5] not in (1, 2):
        return None
    wide, end = head[4] == 2, "<" if head[5] == 1 else ">"
    if wide:
        (phoff,) = struct.unpack_from(end + "Q", head, 32)
        phentsize, phnum = struct.unpack_from(end + "HH", head, 54)
        ph_fmt, dyn_fmt = end + "IIQQQQQQ", end + "qQ"
    else:
        (phoff,) = struct.unpack_from(end + "I", head, 28)
        phentsize, phnum = struct.unpack_from(end + "HH", head, 42)
        ph_fmt, dyn_fmt = end + "IIIIIIII", end + "iI"
    if phentsize < struct.calcsize(ph_fmt):
        return None
    table = chunk(phoff, phentsize * phnum)
    loads, dynamic = [], None
    for i in range(phnum):
        f = struct.unpack_from(ph_fmt, table, i * phentsize)
        # (type, offset, vaddr, filesz) from either layout
        kind, offset, vaddr, filesz = (f[0], f[2], f[3], f[5]) if wide else (f[0], f[1], f[2], f[4])
        if kind == 1:
            loads.append((vaddr, offset, filesz))
        elif kind == 2:
            dynamic = (offset, filesz)
    if dynamic is None:
        return None
    raw = chunk(*dynamic)
    step = struct.calcsize(dyn_fmt)
    entries = [struct.unpack_from(dyn_fmt, raw, i) for i in range(0, len(raw) - step + 1, step)]
    strtab = next((v for t, v in entries if t == 5), None)
    base = next((off + strtab - va for va, off, filesz in loads if strtab is not None and va <= strtab < va + filesz), None)
    return None if base is None else (entries, base)


SCRIPT_LIMIT = 1 << 20  # bytes of a script wrapper read for the files it names
SCRIPT_FILES = 64  # files a wrapper (and the wrappers it names) may add to a tool's identity
_PATH_WORD = re.compile(rb"(?<![\w./-])(/[\w./+@-]+)")


def tool_files(path: str) -> tuple[str, ...]:
    """Real paths of every file a run of `path` depends on that the harness can see: the tool,
    and for an ELF binary the libraries of its build (`libraries`); for a script (`#!`), its
    interpreter and every existing file its text names by an absolute path (`exec
    /usr/local/cuda/bin/ptxas "$@"`), followed through the scripts among them. Each file's stat
    identity is part of a tool's identity (`identity`); what a script finds on PATH or through
    variables is not seen. Remembered per process while every one of them is unchanged."""
    first = os.path.realpath(path)
    with _FILES_LOCK:
        known = _FILES.get(first)
    if known is not None and [_stat_of(f) for f in known[0]] == known[1]:
        _used(known[0])
        return known[0]
    found: list[str] = []
    todo = [first]
    while todo and len(found) < SCRIPT_FILES:
        real = todo.pop(0)
        if real in found or not os.path.isfile(real):
            continue
        found.append(real)
        head, named = _script_words(real)
        if head == b"\x7fELF":
            found += [lib for lib in sorted(libraries(real)) if lib not in found]
        todo += [os.path.realpath(os.fsdecode(w)) for w in named]
    out = tuple(found)
    with _FILES_LOCK:
        _FILES[first] = (out, [_stat_of(f) for f in out])
    _used(out)
    return out


def _used(found: tuple[str, ...]) -> None:
    """Each file a tool run depends on is one this run ran: no output is written onto it."""
    for real in found:
        files.note_used(real)


_FILES: dict[str, tuple[tuple[str, ...], list]] = {}
_FILES_LOCK = threading.Lock()


def _script_words(real: str) -> tuple[bytes, list[bytes]]:
    """(the first 4 bytes of a file, the absolute paths its text names when it is a script)."""
    try:
        with open(real, "rb") as fh:
            data = fh.read(SCRIPT_LIMIT)
    except OSError:
        return b"", []
    if not data.startswith(b"#!"):
        return data[:4], []
    return data[:4], [w for w in dict.fromkeys(_PATH_WORD.findall(data)) if os.path.isfile(w)]


def _stat_of(real: str) -> list | None:
    try:
        st = os.stat(real)
    except OSError:
        return None
    return [st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]


def identity(path: str) -> list:
    """The stat identity (real path, device, inode, size, modification and change times) of
    every file of `tool_files(path)`: a rebuild, relink, package upgrade, a file written in place
    or a wrapper pointed at another binary changes it."""
    return [[real, *(_stat_of(real) or [None])] for real in tool_files(path)]


def stamp(path: str) -> list | None:
    """The stat identity of a tool and of the libraries of its build (see the module's doc), or
    None for anything but an ELF binary."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode) or os.read(fd, 4) != b"\x7fELF":
            return None
    finally:
        os.close(fd)
    return identity(path)


class Answers:
    """A build's answers about itself, kept under `directory` (see the module's doc). `get` and
    `put` never raise for the store's sake: a store that cannot be read or written costs a probe."""

    def __init__(self, directory: Path):
        self.dir = Path(directory)

    def _key(self, tool: str, question: Any) -> str | None:
        try:
            identity = stamp(tool)  # (every file of it stat()ed again: a relinked library is a new key)
        except OSError:
            return None
        if identity is None:
            return None
        material = json.dumps([ANSWERS_FORMAT, identity, os.path.basename(tool), question])
        return hashlib.sha256(material.encode()).hexdigest()

    def _path(self, key: str) -> Path:
        return self.dir / "answers" / (key + ".json")

    def get(self, tool: str, question: Any, decode: Callable[[Any], T]) -> T | None:
        """The answer `tool` gave to `question`, through `decode` (which raises on anything that
        is not an answer of its kind), or None."""
        key = self._key(tool, question)
        if key is None:
            return None
        try:
            entry = json.loads(read_regular(self._path(key), ANSWER_LIMIT))
            if not isinstance(entry, dict) or entry.get("key") != key or entry.get("sum") != digest(key, entry["answer"]):
                return None
            return decode(entry["answer"])
        except Exception:  # none stored, or not one to trust: asked again
            return None

    def put(self, tool: str, question: Any, answer: Any) -> None:
        """Keep `answer` (JSON: text, lists, objects) as what `tool` said to `question`."""
        key = self._key(tool, question)
        if key is None:
            return
        data = files.json_text({"key": key, "sum": digest(key, answer), "answer": answer}, indent=None).encode()
        if len(data) > ANSWER_LIMIT:
            return
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
        except OSError:  # (no store here: the next process asks again)
            return
        write_under(self.dir, self._path(key), data)


def digest(key: str, answer: Any) -> str:
    """The digest an entry carries of its key and answer: an entry damaged in place (a byte of a
    CPU name changed, a verdict text cut short) is a miss, not a believed answer."""
    material = json.dumps([key, answer], sort_keys=True, ensure_ascii=True)
    return hashlib.sha256(material.encode()).hexdigest()
