"""`harness.tools.cache`: an entry or a digest note that is a FIFO, a device, a directory or
damaged is a miss, read without blocking and within a bound (issue 15); a zlib bomb is a miss
without a byte inflated (bytes counted, not timed). Each lookup runs in a
child process with a memory limit and a hang guard, so a regression fails here instead of
taking the machine's memory. An entry that nests too deep or claims a killed or timed-out run
is a miss too; a sound one (a crash included) is a hit."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import zlib
from pathlib import Path

import pytest
from conftest import REPO

from harness.tools import cache

HANG_GUARD = 120  # seconds: only a blocked read reaches it
MEMORY = 1 << 30  # bytes of address space for the child

LOOKUP = """
import json, sys, zlib
from pathlib import Path
from harness.tools import cache
from harness.tools.cache import Cache
from harness.tools.toolchain import ToolRun
inflated = [0]
class Counting:  # a zlib inflater that counts the bytes it is let give (a bomb may fail for memory)
    def __init__(self):
        self.real = zlib.decompressobj()
    def decompress(self, data, max_length=0):
        inflated[0] += max_length or 2**63
        return self.real.decompress(data, max_length)
    def __getattr__(self, name):
        return getattr(self.real, name)
class CountingZlib:
    decompressobj = Counting
    def __getattr__(self, name):
        return getattr(zlib, name)
cache.zlib = CountingZlib()
store = Cache(Path(sys.argv[1]))
tool = sys.executable
key = store.key(tool, ["--x"], "in", False)
if sys.argv[2] == "put":
    store.put(key, ToolRun((tool,), 0, "out", "", 0.1))
    print(store._path(key))
else:
    store.tool_digest(tool)
    found = store.get(key, [tool], 60)
    print(json.dumps([found.stdout if found else None, store.hits, store.misses, store.unreadable, inflated[0]]))
"""


def lookup(store, what: str) -> str:
    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))

    proc = subprocess.run(
        [sys.executable, "-c", LOOKUP, str(store), what],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        preexec_fn=limit,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    return proc.stdout.strip()


def spoil(path, kind: str) -> None:
    path.unlink()
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev-zero":
        path.symlink_to("/dev/zero")
    elif kind == "directory":
        path.mkdir()
    elif kind in ("bomb", "bomb-declared", "bomb-zeros"):
        path.write_bytes(bomb(kind, path.name.removesuffix(".z")))


def bomb(kind: str, key: str) -> bytes:
    """zlib of more than an entry may hold (ENTRY_LIMIT: 800 MiB of spaces), or of 1 GiB of zeros,
    made a MiB at a time; "bomb-declared" behind the head of an entry of its key that declares
    the most an entry may inflate to."""
    deflate, block = zlib.compressobj(1), (b"\0" if kind == "bomb-zeros" else b" ") * (1 << 20)
    data = b"".join([deflate.compress(block) for _ in range(1024 if kind == "bomb-zeros" else 800)] + [deflate.flush()])
    if kind != "bomb-declared":
        return data
    from harness.tools import cache

    return cache.HEAD.pack(cache.MAGIC, bytes.fromhex(key), cache.ENTRY_LIMIT) + data


def test_a_stored_run_is_found(tmp_path):
    lookup(tmp_path, "put")
    found = json.loads(lookup(tmp_path, "get"))
    assert found[:4] == ["out", 1, 0, 0] and 0 < found[4] < 1000


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "directory", "bomb", "bomb-declared", "bomb-zeros"])
def test_an_entry_that_is_not_one_is_a_cheap_miss(tmp_path, kind):
    """A broken entry is a miss found without inflating it: zlib is let inflate no byte of a bomb."""
    spoil(Path(lookup(tmp_path, "put")), kind)
    assert lookup(tmp_path, "get") == "[null, 0, 1, 1, 0]"


def test_an_entry_is_inflated_no_further_than_its_head_declares(tmp_path):
    from harness.tools import cache

    entry = Path(lookup(tmp_path, "put"))
    raw = entry.read_bytes()
    magic, key, length = cache.HEAD.unpack_from(raw)
    entry.write_bytes(cache.HEAD.pack(magic, key, length - 10) + raw[cache.HEAD.size :])
    assert lookup(tmp_path, "get") == f"[null, 0, 1, 1, {length - 9}]"  # (its length, then one more byte)


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_a_digest_note_that_is_not_a_file_is_recomputed(tmp_path, kind):
    lookup(tmp_path, "put")
    notes = list((tmp_path / "files").iterdir())
    assert notes
    for note in notes:
        spoil(note, kind)
    assert json.loads(lookup(tmp_path, "get"))[:4] == ["out", 1, 0, 0]


@pytest.mark.parametrize("level", ["runs/ab", "runs"])
def test_a_link_inside_the_cache_sends_no_write_elsewhere(tmp_path, level):
    store, elsewhere = tmp_path / "store", tmp_path / "elsewhere"
    entry = Path(lookup(store, "put"))
    elsewhere.mkdir()
    linked = entry.parent if level == "runs/ab" else entry.parent.parent
    os.rename(linked, tmp_path / "moved")
    linked.symlink_to(elsewhere, target_is_directory=True)
    lookup(store, "put")
    assert list(elsewhere.rglob("*")) == []


@pytest.mark.parametrize("tags", ["--disable-new-dtags", "--enable-new-dtags"])  # DT_RPATH, DT_RUNPATH
def test_a_library_found_through_rpath_or_runpath_is_part_of_the_build(tmp_path, tags):
    """The cache key covers the libraries a tool loads from its own directories: a real ELF pair,
    linked by the system's C compiler with either kind of search path."""
    from conftest import elf_pair

    from harness.tools import builds

    tool, lib = elf_pair(tmp_path, tags)
    assert builds.libraries(str(tool)) == {str(lib.resolve())}


# ---- what an entry's fields claim ------------------------------------------------------------

KEY = "ab" + "0" * 62


def _entry(store: cache.Cache, payload: bytes) -> None:
    path = store._path(KEY)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(cache.HEAD.pack(cache.MAGIC, bytes.fromhex(KEY), len(payload)) + zlib.compress(payload))


def _fields(**over) -> bytes:
    entry = {"format": cache.FORMAT, "key": KEY, "argv": ["llc"], "returncode": 0, "stdout": "", "stderr": ""}
    return json.dumps({**entry, "seconds": 0.1, "data": "", **over}).encode()


def test_a_deeply_nested_cache_entry_is_a_miss(tmp_path):
    store = cache.Cache(tmp_path)
    _entry(store, b"[" * 100_000 + b"]" * 100_000)
    assert store.get(KEY, ["llc"], 10.0) is None and store.unreadable == 1


@pytest.mark.parametrize(
    "over", [{"returncode": -9}, {"returncode": -15}, {"returncode": None}, {"timed_out": True}, {"seconds": float("nan")}]
)
def test_a_cache_entry_claiming_a_killed_or_timed_out_run_is_a_miss(tmp_path, over):
    store = cache.Cache(tmp_path)
    _entry(store, _fields(**over))
    assert store.get(KEY, ["llc"], 10.0) is None and store.unreadable == 1


def test_a_sound_cache_entry_is_a_hit(tmp_path):
    store = cache.Cache(tmp_path)
    _entry(store, _fields(returncode=-11))  # a crash (SIGSEGV) is stored: deterministic
    assert store.get(KEY, ["llc"], 10.0).returncode == -11


def test_an_interrupt_while_an_entry_is_written_leaves_no_temporary_file(tmp_path, monkeypatch):
    """Ctrl-C (or SIGTERM, which the CLI turns into the same) between the temporary file and the
    rename: the interrupt goes on, and the cache holds no half-made entry."""
    from harness.tools import builds

    def interrupted(src, dst):
        raise KeyboardInterrupt

    monkeypatch.setattr(builds.os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        builds.write_under(tmp_path, tmp_path / "answers" / "k.json", b"{}")
    assert [p.name for p in tmp_path.rglob("*") if p.is_file()] == []
