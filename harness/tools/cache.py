"""An on-disk cache of tool runs, so asking the same question of the same build costs nothing.

A tool run's answer (exit status, stdout, stderr) is decided by the tool's code, its arguments
and its input. The key is therefore a SHA-256 over: the content of the tool binary and of every
shared library it loads from its build (the ELF RUNPATH/RPATH directories, e.g. Debian's
`libLLVM.so.22.1`, or a BUILD_SHARED_LIBS tree), the tool's name, its arguments, whether its
output is kept as bytes, and its stdin (the module text). System libraries (libc, libstdc++) are
not part of the key. Binaries are hashed once per process per path + inode + size + mtime, and
that digest is remembered in the cache directory, so a later process only stat()s them.

Where: `--cache-dir DIR`, else `$XDG_CACHE_HOME/matrix-harness`, else `~/.cache/matrix-harness`.
Every entry is written atomically (a temporary file, then a rename). An entry starts with a head
naming the format, its key and the length it inflates to; it is inflated only to that length,
and only when that length is at most RATIO_LIMIT times the entry's size (and ENTRY_LIMIT), so a
damaged or forged entry is refused after reading its head, never after inflating a bomb. An
entry that is not a regular file of bounded size (a FIFO, a device, a link to one: never waited
on, never read without end), whose head is not its own, that cannot be read, inflated to the
length it declares or parsed (too deeply nested JSON included), or that claims a run which timed
out or was stopped from outside, is a miss and is rewritten: a broken cache costs time, never a
wrong verdict.
Runs that timed out or were killed from outside (SIGKILL, SIGTERM, SIGINT) are not stored; a
stored run slower than the current `--timeout` is a miss (it would time out now).

`Cache.wrap(toolchain)` gives a Toolchain whose every `run` (probes included: `--version`,
`-mcpu=help`, the intrinsic probe) goes through the cache; `Runner(..., cache=...)` uses it.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import os
import signal
import stat
import struct
import sys
import sysconfig
import tempfile
import threading
import zlib
from dataclasses import dataclass, field
from pathlib import Path

from harness import files
from harness.errors import InputError
from harness.tools.toolchain import OUTPUT_LIMIT, Toolchain, ToolRun

FORMAT = 2  # bump when the entry layout or the key material changes
# Bytes of one entry, stored and inflated: a run keeps at most OUTPUT_LIMIT bytes per stream.
ENTRY_LIMIT = 3 * OUTPUT_LIMIT
# An entry is HEAD (magic with FORMAT, the key's 32 bytes, the length of the JSON it inflates to)
# then the zlib data; nothing is inflated past the length it declares.
HEAD = struct.Struct(">4s32sQ")
MAGIC = b"mh\0" + bytes([FORMAT])
# Most bytes an entry may inflate to per stored byte: tool runs compress at most about 26 times at
# zlib's level 1 (9,687 entries of the specs), a run of one byte about 230 times at level 1 and
# 1,030 times at level 9 (a bomb). A run that would need more is not stored.
RATIO_LIMIT = 64
NOTE_LIMIT = 1 << 16  # a binary's digest note is one line of JSON
# Signals that mean the tool itself crashed (deterministic) rather than being stopped from outside.
_CRASH_SIGNALS = {-signal.SIGABRT, -signal.SIGSEGV, -signal.SIGILL, -signal.SIGBUS, -signal.SIGFPE, -signal.SIGTRAP}


def default_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "matrix-harness"


class Cache:
    """Tool runs stored under `directory`; `hits`, `misses`, `unreadable` and `stored` count
    this process's lookups (thread-safe: the Runner compiles groups in threads)."""

    def __init__(self, directory: Path):
        self.dir = Path(directory)
        self.hits = self.misses = self.unreadable = self.stored = 0
        self._lock = threading.Lock()
        self._digests: dict[tuple, str] = {}  # (realpath, stat) -> digest of the file alone
        self._tools: dict[tuple, str] = {}  # (path, stat) -> digest of the tool and its libraries
        try:
            (self.dir / "runs").mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InputError(f"cache directory {self.dir}: {exc.strerror}") from None
        if not os.access(self.dir / "runs", os.W_OK):
            raise InputError(f"cache directory {self.dir}: not writable (use --cache-dir or --no-cache)")

    # ---- keys ------------------------------------------------------------------------------
    def tool_digest(self, path: str) -> str:
        """Digest of a tool binary together with the shared libraries of its own build."""
        st = os.stat(path)
        memo = (path, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
        with self._lock:
            if memo not in self._tools:
                files = [os.path.realpath(path), *sorted(_build_libraries(path))]
                self._tools[memo] = _sha256("\0".join(self._file_digest(f) for f in files).encode())
            return self._tools[memo]

    def _file_digest(self, real: str) -> str:
        st = os.stat(real)
        stamp = [real, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns]
        memo = tuple(stamp)
        if memo in self._digests:
            return self._digests[memo]
        note = self.dir / "files" / (_sha256(real.encode())[:32] + ".json")
        try:
            known = json.loads(_read_regular(note, NOTE_LIMIT))
            digest = known["sha256"] if known["stamp"] == stamp and isinstance(known["sha256"], str) else ""
        except (OSError, ValueError, KeyError, TypeError, RecursionError):
            digest = ""
        if not digest:
            digest = files.sha256_of(real)
            _write_bytes(self.dir, note, json.dumps({"stamp": stamp, "sha256": digest}).encode())
        self._digests[memo] = digest
        return digest

    def key(self, path: str, args: list[str], stdin: str | bytes, binary: bool) -> str:
        data = stdin.encode() if isinstance(stdin, str) else stdin
        head = json.dumps([FORMAT, self.tool_digest(path), os.path.basename(path), list(args), binary])
        return _sha256(head.encode() + b"\0" + data)

    # ---- entries ---------------------------------------------------------------------------
    def _path(self, key: str) -> Path:
        return self.dir / "runs" / key[:2] / (key + ".z")

    def get(self, key: str, argv: list[str], timeout: float) -> ToolRun | None:
        """The stored run for `key` (reported with `argv`, the command as run now), or None."""
        try:
            raw = _read_regular(self._path(key), ENTRY_LIMIT)
        except FileNotFoundError:
            self._count(miss=True)
            return None
        except (OSError, ValueError):  # a FIFO, a device, a directory, an entry too large to trust
            self._count(miss=True, bad=True)
            return None
        try:
            run = _load(raw, key, argv)
        except Exception:  # a broken entry (any failure to load or trust it) is a miss, never a traceback
            self._count(miss=True, bad=True)
            return None
        seconds = run.seconds
        if seconds > timeout:
            self._count(miss=True)
            return None
        self._count(miss=False)
        return run

    def put(self, key: str, run: ToolRun) -> None:
        if run.returncode is None or (run.returncode < 0 and run.returncode not in _CRASH_SIGNALS):
            return  # timed out, or stopped from outside
        entry = {
            "format": FORMAT,
            "key": key,
            "argv": list(run.argv),
            "returncode": run.returncode,
            "stdout": run.stdout,
            "stderr": run.stderr,
            "seconds": run.seconds,
            "data": base64.b64encode(run.data).decode(),
        }
        text = json.dumps(entry).encode()
        packed = zlib.compress(text, 1)
        if len(text) > ENTRY_LIMIT or not _plausible(len(text), HEAD.size + len(packed)):
            return  # (it would be refused as a bomb when read)
        if _write_bytes(self.dir, self._path(key), HEAD.pack(MAGIC, bytes.fromhex(key), len(text)) + packed):
            with self._lock:
                self.stored += 1

    def _count(self, miss: bool, bad: bool = False) -> None:
        with self._lock:
            if miss:
                self.misses += 1
            else:
                self.hits += 1
            self.unreadable += bad

    def summary(self) -> str:
        extra = f", {self.unreadable} unreadable entries ignored" if self.unreadable else ""
        return f"cache: {self.hits} hits, {self.misses} misses{extra} ({self.dir})"

    def wrap(self, toolchain: Toolchain) -> CachedToolchain:
        """`toolchain` with every tool run going through this cache."""
        base = toolchain.base if isinstance(toolchain, CachedToolchain) else toolchain
        return CachedToolchain(base.bin_dir, base.how, base.timeout, store=self, base=base)


@dataclass
class CachedToolchain(Toolchain):
    """A Toolchain whose `run` answers from the cache when it can and stores what it ran."""

    # Keyword-only, so that they need no default after Toolchain's defaulted fields: a
    # CachedToolchain without its cache or its uncached toolchain cannot be made.
    store: Cache = field(kw_only=True)
    base: Toolchain = field(kw_only=True)

    def run(self, name: str, args: list[str], stdin: str | bytes = "", binary: bool = False) -> ToolRun:
        path = self.require(name)
        try:
            key = self.store.key(path, args, stdin, binary)
        except OSError:  # the binary cannot be read to hash it: run it uncached
            return super().run(name, args, stdin, binary)
        found = self.store.get(key, [path, *args], self.timeout)
        if found is not None:
            return found
        run = super().run(name, args, stdin, binary)
        self.store.put(key, run)
        return run


# ---- the command-line face ---------------------------------------------------------------------


def add_flags(p: argparse.ArgumentParser, default_on: bool = True) -> None:
    """--cache-dir DIR and --no-cache (or --cache, when the command does not cache by default)."""
    p.add_argument(
        "--cache-dir",
        type=Path,
        default=None,
        metavar="DIR",
        help="where tool runs are cached (default: $XDG_CACHE_HOME/matrix-harness or ~/.cache/matrix-harness)",
    )
    if default_on:
        p.add_argument(
            "--no-cache", dest="cache", action="store_false", default=True, help="run every tool; read and write no cache"
        )
    else:
        p.add_argument(
            "--cache",
            dest="cache",
            action="store_const",
            const=True,
            default=None,
            help="answer repeated tool runs from the on-disk cache (also turned on by --cache-dir)",
        )


def from_args(args) -> Cache | None:
    """The cache the flags ask for, or None. An unusable --cache-dir is bad input; an unusable
    default directory only turns the cache off (with a note on stderr)."""
    chosen = getattr(args, "cache_dir", None)
    on = getattr(args, "cache", None)
    if not (on is True or (on is None and chosen is not None)):
        return None
    if chosen is not None:
        return Cache(chosen)
    try:
        return Cache(default_dir())
    except InputError as exc:
        print(f"harness: note: running without a cache: {exc}", file=sys.stderr)
        return None


# ---- helpers -----------------------------------------------------------------------------------


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _load(raw: bytes, key: str, argv: list[str]) -> ToolRun:
    """The run an entry stores; any exception means it cannot be trusted (the caller's miss).

    Runs that timed out or were stopped by a signal from outside are never stored, so an entry
    claiming one was forged or damaged: refused like any other broken entry."""
    magic, stored_key, length = HEAD.unpack_from(raw)
    if magic != MAGIC or stored_key != bytes.fromhex(key):
        raise ValueError("another format or another entry")
    if length > ENTRY_LIMIT or not _plausible(length, len(raw)):
        raise ValueError("declares more than an entry inflates to")
    inflate = zlib.decompressobj()
    text = inflate.decompress(memoryview(raw)[HEAD.size :], length + 1)
    if len(text) != length or inflate.unconsumed_tail or not inflate.eof:  # a bomb, or a cut entry
        raise ValueError("not the entry its head declares")
    entry = json.loads(text)
    if not isinstance(entry, dict) or entry["key"] != key or entry["format"] != FORMAT:
        raise ValueError("another entry")
    code, seconds = entry["returncode"], entry["seconds"]
    if type(code) is not int or (code < 0 and code not in _CRASH_SIGNALS) or entry.get("timed_out", False) is not False:
        raise ValueError("a run that timed out or was stopped from outside")
    if type(seconds) not in (int, float) or not 0 <= seconds < float("inf"):
        raise ValueError("seconds")
    return ToolRun(
        tuple(argv),
        code,
        _text(entry["stdout"]),
        _text(entry["stderr"]),
        float(seconds),
        base64.b64decode(entry["data"], validate=True),
    )


def _plausible(inflated: int, stored: int) -> bool:
    """Whether `stored` bytes of entry may inflate to `inflated` bytes of JSON (RATIO_LIMIT)."""
    return inflated <= RATIO_LIMIT * stored


def _read_regular(path: Path, limit: int) -> bytes:
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


def _text(value) -> str:
    if not isinstance(value, str):
        raise TypeError("not text")
    return value


def _write_bytes(root: Path, target: Path, data: bytes) -> bool:
    """Write `data` to `target`, a file under the cache directory `root`, atomically; False (and
    nothing left behind) when that fails or a directory between them (`runs/`, `runs/ab/`) is a
    link: a link inside the cache must not send writes elsewhere."""
    tmp = None
    try:
        inside = target.parent.relative_to(root)
        for part in (*reversed(inside.parents[:-1]), inside):  # runs, then runs/ab
            step = root / part
            step.mkdir(exist_ok=True)
            if step.is_symlink():
                return False
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, target)
        return True
    except OSError:
        if tmp:
            try:
                os.unlink(tmp)
            except OSError:
                pass
        return False


def _build_libraries(path: str) -> set[str]:
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
                        (os.path.realpath(c) for c in (os.path.join(d, name) for d in _SYSTEM_DIRS) if os.path.isfile(c)), None
                    )
            if found and found not in seen:
                seen.add(found)
                todo.append(found)
    return seen


_MULTIARCH = sysconfig.get_config_var("MULTIARCH") or ""
_SYSTEM_DIRS = [
    d
    for d in (f"/lib/{_MULTIARCH}", f"/usr/lib/{_MULTIARCH}", "/lib64", "/usr/lib64", "/lib", "/usr/lib", "/usr/local/lib")
    if not d.endswith("/")
]


def _elf_dynamic(path: str) -> tuple[list[str], list[str], list[str]]:
    """(DT_NEEDED names, DT_RPATH directories, DT_RUNPATH directories) of an ELF file; empty for
    anything else or anything unreadable (a script, another object format)."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(64)
            if len(head) < 52 or head[:4] != b"\x7fELF" or head[4] not in (1, 2) or head[5] not in (1, 2):
                return [], [], []
            wide, end = head[4] == 2, "<" if head[5] == 1 else ">"
            if wide:
                (phoff,) = struct.unpack_from(end + "Q", head, 32)
                phentsize, phnum = struct.unpack_from(end + "HH", head, 54)
                ph_fmt, dyn_fmt = end + "IIQQQQQQ", end + "qQ"
            else:
                (phoff,) = struct.unpack_from(end + "I", head, 28)
                phentsize, phnum = struct.unpack_from(end + "HH", head, 42)
                ph_fmt, dyn_fmt = end + "IIIIIIII", end + "iI"
            fh.seek(phoff)
            table = fh.read(phentsize * phnum)
            loads, dynamic = [], None
            for i in range(phnum):
                f = struct.unpack_from(ph_fmt, table, i * phentsize)
                # (type, offset, vaddr, filesz) from either layout
                kind, offset, vaddr, size = (f[0], f[2], f[3], f[5]) if wide else (f[0], f[1], f[2], f[4])
                if kind == 1:
                    loads.append((vaddr, offset, size))
                elif kind == 2:
                    dynamic = (offset, size)
            if dynamic is None:
                return [], [], []
            fh.seek(dynamic[0])
            raw = fh.read(dynamic[1])
            step = struct.calcsize(dyn_fmt)
            entries = [struct.unpack_from(dyn_fmt, raw, i) for i in range(0, len(raw) - step + 1, step)]
            strtab = next((v for t, v in entries if t == 5), None)
            base = next((off + strtab - va for va, off, size in loads if va <= (strtab or -1) < va + size), None)
            if base is None:
                return [], [], []

            def string(offset: int) -> str:
                fh.seek(base + offset)
                return fh.read(4096).split(b"\0", 1)[0].decode(errors="replace")

            needed = [string(v) for t, v in entries if t == 1]
            runpath = [string(v) for t, v in entries if t == 29]
            rpath = [string(v) for t, v in entries if t == 15]
            split = lambda texts: [d for text in texts for d in text.split(":") if d]
            return needed, split(rpath), split(runpath)
    except (OSError, struct.error):
        return [], [], []
