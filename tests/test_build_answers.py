"""What a build says about itself (version, CPUs, intrinsics) is kept between processes, keyed
by the stat identity of the asking tool and its build's libraries: a later process on the same
build asks nothing again, a rebuilt tool is asked again, and a damaged store costs only a probe.

The builds are copies of the real llc and opt (ELF binaries that load the real libLLVM), so that
a test can plant an answer, or touch a binary, without touching the installed build."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

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
    assert proc.returncode == 0, proc.stderr
    return {c["function"]: (c["verdict"], c["detail"]) for c in json.loads(proc.stdout)["cases"]}


def stored(cache: Path) -> list[Path]:
    return sorted((cache / "matrix-harness" / "answers").glob("*.json"))


def plant_cpus(cache: Path, drop: str) -> None:
    """Rewrite the kept CPU list that names `drop` without it (the key stays the entry's own)."""
    for path in stored(cache):
        entry = json.loads(path.read_text())
        if isinstance(entry["answer"], list) and drop in entry["answer"]:
            entry["answer"].remove(drop)
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


@pytest.mark.parametrize("damage", ["garbage", "wrong-type", "fifo", "directory", "other-key"])
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
