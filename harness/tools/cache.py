"""An on-disk cache of tool runs, so asking the same question of the same build costs nothing.

A tool run's answer (exit status, stdout, stderr) is decided by the tool's code, its arguments
and its input. The key is therefore a SHA-256 over: the content of every file the run depends on
that the harness can see (`builds.tool_files`): the tool binary and every shared library it
loads from its build (the ELF RUNPATH/RPATH directories, e.g. Debian's `libLLVM.so.22.1`, or a
BUILD_SHARED_LIBS tree); for a wrapper script (a ptxas that execs CUDA's), the script, its
interpreter and the files its text names, so a wrapper pointed at another binary is another
key; then the tool's name, its arguments, whether its output is kept as bytes, and its stdin
(the module text). System libraries (libc, libstdc++) are not part of the key. Each file is
hashed once per stat identity (real path, device, inode, size, modification and change times),
and that digest is remembered in the cache directory, so a later process only stat()s them: a
file rewritten in place has a new change time, whatever its size and modification time.

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
import struct
import sys
import threading
import zlib
from dataclasses import dataclass, field
from pathlib import Path

from harness.core import files
from harness.core.errors import InputError
from harness.tools import builds
from harness.tools.toolchain import OUTPUT_LIMIT, Toolchain, ToolRun

FORMAT = 3  # bump when the entry layout or the key material changes
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


class Cache:
    """Tool runs stored under `directory`; `hits`, `misses`, `unreadable` and `stored` count
    this process's lookups (thread-safe: the Runner compiles groups in threads)."""

    def __init__(self, directory: Path):
        self.dir = Path(directory)
        self.hits = self.misses = self.unreadable = self.stored = 0
        self._lock = threading.Lock()
        self._digests: dict[tuple, str] = {}  # (realpath, stat) -> digest of the file alone
        self._tools: dict[str, str] = {}  # identity of a tool's files -> digest of them
        try:
            (self.dir / "runs").mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InputError(f"cache directory {self.dir}: {exc.strerror}") from None
        if not os.access(self.dir / "runs", os.W_OK):
            raise InputError(f"cache directory {self.dir}: not writable (use --cache-dir or --no-cache)")

    # ---- keys ------------------------------------------------------------------------------
    def tool_digest(self, path: str) -> str:
        """Digest of every file a run of the tool depends on (`builds.tool_files`: the binary and
        the shared libraries of its build, or a wrapper script and the files it names), each
        file's content digest remembered by its stat identity."""
        found = builds.identity(path)
        memo = json.dumps(found)
        with self._lock:
            if memo not in self._tools:
                self._tools[memo] = _sha256("\0".join(self._file_digest(f[0]) for f in found).encode())
            return self._tools[memo]

    def _file_digest(self, real: str) -> str:
        st = os.stat(real)
        stamp = [real, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]
        memo = tuple(stamp)
        if memo in self._digests:
            return self._digests[memo]
        note = self.dir / "files" / (_sha256(real.encode())[:32] + ".json")
        try:
            known = json.loads(builds.read_regular(note, NOTE_LIMIT))
            digest = known["sha256"] if known["stamp"] == stamp and isinstance(known["sha256"], str) else ""
        except (OSError, ValueError, KeyError, TypeError, RecursionError):
            digest = ""
        if not digest:
            digest = files.sha256_of(real)
            builds.write_under(self.dir, note, files.json_text({"stamp": stamp, "sha256": digest}, indent=None).encode())
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
            raw = builds.read_regular(self._path(key), ENTRY_LIMIT)
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
        text = files.json_text(entry, indent=None).encode()
        packed = zlib.compress(text, 1)
        if len(text) > ENTRY_LIMIT or not _plausible(len(text), HEAD.size + len(packed)):
            return  # (it would be refused as a bomb when read)
        if builds.write_under(self.dir, self._path(key), HEAD.pack(MAGIC, bytes.fromhex(key), len(text)) + packed):
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
        """`toolchain` with every tool run going through this cache, its probes included (which
        this cache keeps, in place of the build's kept answers)."""
        base = toolchain.base if isinstance(toolchain, CachedToolchain) else toolchain
        return CachedToolchain(base.bin_dir, base.how, base.timeout, base.keep_inputs, None, store=self, base=base)


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
    """--cache-dir DIR, --no-cache, and --cache where the command does not cache by default."""
    p.add_argument(
        "--cache-dir",
        type=Path,
        default=None,
        metavar="DIR",
        help="where tool runs are cached (default: $XDG_CACHE_HOME/matrix-harness or ~/.cache/matrix-harness)",
    )
    p.add_argument(
        "--no-cache",
        dest="cache",
        action="store_const",
        const=False,
        default=True if default_on else None,
        help="run every tool, the build's own probes (version, CPUs, intrinsics) included; read and write no cache",
    )
    if not default_on:
        p.add_argument(
            "--cache",
            dest="cache",
            action="store_const",
            const=True,
            help="answer repeated tool runs from the on-disk cache (also turned on by --cache-dir)",
        )


def keeps_answers(args) -> bool:
    """Whether the build's answers about itself are kept between processes (not with --no-cache)."""
    return getattr(args, "cache", None) is not False


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
        return Cache(builds.default_dir())
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


def _text(value) -> str:
    if not isinstance(value, str):
        raise TypeError("not text")
    return value
