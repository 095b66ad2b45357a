"""What a build says about itself (version, CPUs, intrinsics) is kept between processes, keyed
by the stat identity of the asking tool and its build's libraries: a later process on the same
build asks nothing again, a rebuilt tool is asked again, and a damaged store costs only a probe.

The builds are copies of the real llc and opt (ELF binaries that load the real libLLVM), so that
a test can plant an answer, or touch a binary, without touching the installed build."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from harness.tools import builds

SELECTION = ("--spec", "f4-fixed-format.yaml", "--intrinsic", "wmma.f32.32x16x128.f4", "--selector", "sdag", "--json")
TOOLS = ("llc", "llvm-mc", "opt", "llvm-as", "llvm-objdump", "FileCheck")


def copied_build(tmp_path: Path, real: Path) -> Path:
    out = tmp_path / "bin"
    out.mkdir()
    for tool in TOOLS:
        if tool in ("llc", "opt"):
            shutil.copy2(real / tool, out / tool)
        else:
            (out / tool).symlink_to(real / tool)
    return out


def verdicts(proc) -> dict[str, str]:
    # (2: the build could judge no cell, every one unsupported; the document is still printed)
    assert proc.returncode == 0 or (proc.returncode == 2 and "error: nothing judged: " in proc.stderr), proc.stderr
    return {c["function"]: (c["verdict"], c["detail"]) for c in json.loads(proc.stdout)["cases"]}


def stored(cache: Path) -> list[Path]:
    return sorted((cache / "matrix-harness" / "answers").glob("*.json"))


def plant_cpus(cache: Path, drop: str) -> None:
    """Forge the kept CPU list that names `drop` without it (the key stays the entry's own, the
    digest is the forged answer's)."""
    for path in stored(cache):
        entry = json.loads(path.read_text())
        if isinstance(entry["answer"], list) and drop in entry["answer"]:
            entry["answer"].remove(drop)
            entry["sum"] = builds.digest(entry["key"], entry["answer"])
            path.write_text(json.dumps(entry))
            return
    raise AssertionError(f"no kept CPU list names {drop}")


@pytest.fixture
def build(llvm_22_1_8, tmp_path):
    return copied_build(tmp_path, llvm_22_1_8.bin_dir)


@pytest.fixture
def env(tmp_path):
    return {"XDG_CACHE_HOME": str(tmp_path / "cache")}


def test_a_later_process_reads_the_kept_answers_and_a_rebuilt_tool_is_asked_again(cli, build, env, tmp_path):
    cache = tmp_path / "cache"
    first = verdicts(cli("run", "--llvm-bin", build, *SELECTION, env=env))
    passed = [f for f, (v, _) in first.items() if v == "pass"]  # (the rest: on a CPU without it)
    assert passed, first
    # version, the amdgcn CPUs and the intrinsic support
    assert len(stored(cache)) == 3, stored(cache)

    plant_cpus(cache, "gfx1250")  # what the build "said": the next process believes it
    believed = verdicts(cli("run", "--llvm-bin", build, *SELECTION, env=env))
    assert {believed[f] for f in passed} == {("unsupported", "this LLVM build does not know CPU gfx1250")}, believed

    os.utime(build / "llc")  # a rebuilt llc: its stamp changes, and it is asked again
    assert verdicts(cli("run", "--llvm-bin", build, *SELECTION, env=env)) == first


def test_no_cache_asks_the_build_and_keeps_nothing(cli, build, env, tmp_path):
    cache = tmp_path / "cache"
    first = verdicts(cli("run", "--llvm-bin", build, *SELECTION, env=env))
    plant_cpus(cache, "gfx1250")
    before = {p: p.read_bytes() for p in stored(cache)}
    assert verdicts(cli("run", "--llvm-bin", build, "--no-cache", *SELECTION, env=env)) == first
    assert {p: p.read_bytes() for p in stored(cache)} == before


def _one_character_changed(answer):
    """The answer with the first character of its first text changed (JSON stays well-formed)."""
    if isinstance(answer, str):
        return "X" + answer[1:]
    if isinstance(answer, list):
        return [_one_character_changed(answer[0]), *answer[1:]]
    first = next(iter(answer))
    return {**answer, first: answer[first] + "x"}


@pytest.mark.parametrize("damage", ["garbage", "wrong-type", "fifo", "directory", "other-key", "one-character"])
def test_a_damaged_answer_is_asked_again_and_rewritten(cli, build, env, tmp_path, damage):
    cache = tmp_path / "cache"
    first = verdicts(cli("run", "--llvm-bin", build, *SELECTION, env=env))
    paths = stored(cache)
    for path in paths:
        entry = json.loads(path.read_text())
        path.unlink()
        if damage == "garbage":
            path.write_bytes(b"\xff{not json")
        elif damage == "wrong-type":
            path.write_text(json.dumps({"key": entry["key"], "answer": 5}))
        elif damage == "fifo":
            os.mkfifo(path)
        elif damage == "directory":
            path.mkdir()
        elif damage == "one-character":  # damaged in place: the key and digest as they were
            path.write_text(json.dumps({**entry, "answer": _one_character_changed(entry["answer"])}))
        else:  # a well-formed answer filed under another key
            path.write_text(json.dumps({"key": "0" * 64, "answer": entry["answer"]}))
    assert verdicts(cli("run", "--llvm-bin", build, *SELECTION, env=env)) == first
    if damage not in ("fifo", "directory"):  # (written again in place of the damaged file)
        assert all(json.loads(p.read_text())["key"] == p.stem for p in paths)


def test_a_script_tool_is_asked_every_time(cli, llvm_22_1_8, tmp_path, env):
    """A script may run another build's tool: its own file says nothing about that build."""
    build = copied_build(tmp_path, llvm_22_1_8.bin_dir)
    (build / "llc").unlink()
    (build / "llc").write_text(f'#!/bin/sh\nexec {llvm_22_1_8.bin_dir / "llc"} "$@"\n')
    (build / "llc").chmod(0o755)
    cli("run", "--llvm-bin", build, *SELECTION, env=env)
    kept = [json.loads(p.read_text())["answer"] for p in stored(tmp_path / "cache")]
    assert len(kept) == 1 and isinstance(kept[0], dict), kept  # opt's intrinsic answers alone


def _damaged_elf(tmp_path: Path, real: Path, how: str) -> Path:
    """The real llc's first 64 KiB with one header field made absurd (a damaged or truncated copy)."""
    import struct

    data = bytearray(real.read_bytes()[: 1 << 16])
    if how == "program-headers-past-2**63":
        struct.pack_into("<Q", data, 32, 2**64 - 16)
    elif how == "dynamic-section-of-2**62-bytes":
        phoff, (phentsize, phnum) = struct.unpack_from("<Q", data, 32)[0], struct.unpack_from("<HH", data, 54)
        for i in range(phnum):
            at = phoff + i * phentsize
            if struct.unpack_from("<I", data, at)[0] == 2:  # PT_DYNAMIC: its file size
                struct.pack_into("<Q", data, at + 32, 2**62)
    else:  # "truncated": the ELF header alone
        del data[64:]
    out = tmp_path / "llc"
    out.write_bytes(bytes(data))
    out.chmod(0o755)
    return out


@pytest.mark.parametrize("how", ["program-headers-past-2**63", "dynamic-section-of-2**62-bytes", "truncated"])
def test_a_damaged_elf_tool_has_a_stamp_and_is_one_line(cli, llvm_22_1_8, tmp_path, env, how):
    """A damaged llc (a copy cut short, a flipped header byte) is read within its size: a stamp,
    never an exception; the harness then says in one line what became of running it (the kernel
    refuses it, or it dies)."""
    build = copied_build(tmp_path, llvm_22_1_8.bin_dir)
    (build / "llc").unlink()
    damaged = _damaged_elf(build, llvm_22_1_8.bin_dir / "llc", how)
    assert builds.stamp(str(damaged))[0][0] == str(damaged)
    proc = cli("run", "--llvm-bin", build, *SELECTION, env=env)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    said = [line for line in proc.stderr.splitlines() if not line.startswith("#")]
    assert len(said) == 1 and said[0].startswith("harness: error:") and str(damaged) in said[0], said


def test_a_relative_xdg_cache_home_is_ignored(monkeypatch, tmp_path):
    """The XDG base directory specification: a relative $XDG_CACHE_HOME is invalid and ignored
    (it would put a cache under whatever directory the harness runs in)."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CACHE_HOME", "cache")
    assert builds.default_dir() == tmp_path / ".cache" / "matrix-harness"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert builds.default_dir() == tmp_path / "xdg" / "matrix-harness"


def test_threads_asking_at_once_see_the_same_libraries(build):
    """The build is probed while the specs are expanded: two threads taking the first stamps of
    llc and opt at once must each find libLLVM (a half-read sysconfig once hid it from one). The
    copies have no RUNPATH to it: libLLVM is found in the system's directories."""
    code = (
        "import sys, threading; from harness.tools import builds; out = {}\n"
        "tools = [f'{sys.argv[1]}/{t}' for t in ('llc', 'opt')]\n"
        "threads = [threading.Thread(target=lambda t=t: out.__setitem__(t, builds.libraries(t))) for t in tools]\n"
        "[t.start() for t in threads]; [t.join() for t in threads]\n"
        "print(sorted(len(v) for v in out.values()))"
    )
    for _ in range(5):  # (a fresh process each time: the first call is the one that raced)
        proc = subprocess.run([sys.executable, "-c", code, str(build)], capture_output=True, text=True, check=True)
        counts = json.loads(proc.stdout)
        assert min(counts) >= 1 and len(set(counts)) == 1, counts
