"""`harness.tools.cache`: an entry or a digest note that is a FIFO, a device, a directory or
damaged is a miss, read without blocking and within a bound (issue 15). Each lookup runs in a
child process with a memory limit and a hang guard, so a regression fails here instead of
taking the machine's memory."""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
import zlib
from pathlib import Path

import pytest
from conftest import REPO

HANG_GUARD = 120  # seconds: only a blocked read reaches it
MEMORY = 1 << 30  # bytes of address space for the child

LOOKUP = """
import json, sys
from pathlib import Path
from harness.tools.cache import Cache
from harness.tools.toolchain import ToolRun
store = Cache(Path(sys.argv[1]))
tool = sys.executable
key = store.key(tool, ["--x"], "in", False)
if sys.argv[2] == "put":
    store.put(key, ToolRun((tool,), 0, "out", "", 0.1))
    print(store._path(key))
else:
    store.tool_digest(tool)
    found = store.get(key, [tool], 60)
    print(json.dumps([found.stdout if found else None, store.hits, store.misses, store.unreadable]))
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
    elif kind == "bomb":  # zlib of more than an entry may hold (ENTRY_LIMIT), made a MiB at a time
        deflate, block = zlib.compressobj(1), b" " * (1 << 20)
        path.write_bytes(b"".join([deflate.compress(block) for _ in range(800)] + [deflate.flush()]))


def test_a_stored_run_is_found(tmp_path):
    lookup(tmp_path, "put")
    assert lookup(tmp_path, "get") == '["out", 1, 0, 0]'


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "directory", "bomb"])
def test_an_entry_that_is_not_one_is_a_miss(tmp_path, kind):
    spoil(Path(lookup(tmp_path, "put")), kind)
    assert lookup(tmp_path, "get") == "[null, 0, 1, 1]"


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_a_digest_note_that_is_not_a_file_is_recomputed(tmp_path, kind):
    lookup(tmp_path, "put")
    notes = list((tmp_path / "files").iterdir())
    assert notes
    for note in notes:
        spoil(note, kind)
    assert lookup(tmp_path, "get") == '["out", 1, 0, 0]'


@pytest.mark.parametrize("tags", ["--disable-new-dtags", "--enable-new-dtags"])  # DT_RPATH, DT_RUNPATH
def test_a_library_found_through_rpath_or_runpath_is_part_of_the_build(tmp_path, tags):
    """The cache key covers the libraries a tool loads from its own directories: a real ELF pair,
    linked by the system's C compiler with either kind of search path."""
    from conftest import unavailable

    from harness.tools import cache

    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        unavailable("no C compiler to link an ELF with an RPATH")
    lib = tmp_path / "lib"
    lib.mkdir()
    (tmp_path / "f.c").write_text("int f(void) { return 1; }\n")
    (tmp_path / "main.c").write_text("int f(void);\nint main(void) { return f(); }\n")
    subprocess.run([cc, "-shared", "-fPIC", "-o", lib / "libf.so", tmp_path / "f.c"], check=True, timeout=120)
    link = [cc, "-o", tmp_path / "tool", tmp_path / "main.c", f"-L{lib}", "-lf", f"-Wl,{tags}", "-Wl,-rpath,$ORIGIN/lib"]
    subprocess.run(link, check=True, timeout=120)
    assert cache._build_libraries(str(tmp_path / "tool")) == {str((lib / "libf.so").resolve())}
