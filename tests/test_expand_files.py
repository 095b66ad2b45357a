"""`expand` against a hostile cases/generated: odd bytes, odd file types, a tree it may not
write, and another expand running at the same time — one line and exit 2, or a correct tree;
never a traceback and never a half-written file."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

SPEC = "matrix:\n  - intrinsic: wmma.f32.32x16x128.f4\n    fmt_a: [FP4]\n    fmt_b: [FP4]\n    width_a: [exact, max]\n"


@pytest.fixture
def tree(cli, tmp_path) -> Path:
    """A spec dir expanded once: cases/a.yaml and cases/generated/*.ll."""
    cases = tmp_path / "cases"
    cases.mkdir()
    (cases / "a.yaml").write_text(SPEC)
    proc = cli("expand", "--cases", cases)
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in (cases / "generated").glob("*.ll")) == [
        "wmma.f32.32x16x128.f4.gfx1250.O0.exact.ll",
        "wmma.f32.32x16x128.f4.gfx1250.O0.overwide.ll",
    ]
    return cases


def _state(root: Path) -> dict[str, tuple]:
    return {str(p.relative_to(root)): (p.is_dir(), p.is_file() and p.read_bytes()) for p in sorted(root.rglob("*"))}


def _one_line(proc) -> str:
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    return lines[0]


def test_a_generated_file_with_a_byte_that_is_not_utf8_is_stale_then_rewritten(cli, tree):
    target = tree / "generated" / "wmma.f32.32x16x128.f4.gfx1250.O0.exact.ll"
    good = target.read_bytes()
    target.write_bytes(good + b"; \xff\n")
    proc = cli("expand", "--check", "--cases", tree)
    assert (proc.returncode, proc.stdout.splitlines()[0]) == (1, f"stale: {target} (differs from the specs)")
    assert target.read_bytes() == good + b"; \xff\n"  # --check writes nothing
    assert cli("expand", "--cases", tree).returncode == 0
    assert target.read_bytes() == good


def test_a_directory_named_like_a_generated_file_is_reported_and_refused_not_removed(cli, tree):
    odd = tree / "generated" / "zz.ll"
    odd.mkdir()
    (odd / "keep").write_text("mine")
    proc = cli("expand", "--check", "--cases", tree)
    assert proc.returncode == 1 and f"stale: {odd} (no spec produces it)" in proc.stdout.splitlines()
    proc = cli("expand", "--cases", tree)
    assert proc.returncode == 2
    assert _one_line(proc) == f"harness: {odd}: error: not a regular file; remove it by hand"
    assert (odd / "keep").read_text() == "mine"


@pytest.mark.parametrize("command", [("expand",), ("expand", "--check")])
def test_a_regular_file_named_generated_is_one_line_and_left_alone(cli, tmp_path, command):
    cases = tmp_path / "cases"
    cases.mkdir()
    (cases / "a.yaml").write_text(SPEC)
    (cases / "generated").write_text("notes\n")
    proc = cli(*command, "--cases", cases)
    assert proc.returncode == 2
    assert _one_line(proc) == (
        f"harness: {cases / 'generated'}: error: not a directory; move it away so expand can write the generated files there"
    )
    assert (cases / "generated").read_text() == "notes\n"


def _make_unwritable(path: Path) -> None:
    """Read-only for this user: chmod for an ordinary user; root ignores modes, so the
    immutable attribute there (or skip when the file system has none)."""
    if os.geteuid() != 0:
        path.chmod(0o555)
        return
    proc = subprocess.run(["chattr", "+i", str(path)], capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.skip(f"cannot make {path} read-only as root: {proc.stderr.strip()}")


def _make_writable(path: Path) -> None:
    if os.geteuid() == 0:
        subprocess.run(["chattr", "-i", str(path)], check=False)
    path.chmod(0o755)


def test_a_read_only_generated_directory_is_one_line_and_nothing_changes(cli, tree):
    out = tree / "generated"
    (out / "wmma.f32.32x16x128.f4.gfx1250.O0.exact.ll").unlink()
    before = _state(tree)
    _make_unwritable(out)
    try:
        proc = cli("expand", "--cases", tree)
        after = _state(tree)
    finally:
        _make_writable(out)
    assert proc.returncode == 2
    line = _one_line(proc)
    assert line.startswith(f"harness: {out.resolve()}/wmma.f32.32x16x128.f4.gfx1250.O0.exact.ll: error: cannot write: ")
    assert after == before


def test_concurrent_expands_removing_the_same_obsolete_files_both_succeed(repo_root, tree):
    out = tree / "generated"
    want = _state(out)
    for _ in range(6):
        for i in range(30):
            (out / f"obsolete{i}.ll").write_text("; gone soon\n")
        procs = [
            subprocess.Popen(
                [sys.executable, "-m", "harness", "expand", "--cases", str(tree)],
                cwd=repo_root,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for _ in range(2)
        ]
        results = [p.communicate(timeout=120) + (p.returncode,) for p in procs]
        assert [r[2] for r in results] == [0, 0], [r[1] for r in results]
        assert _state(out) == want


def test_a_hard_linked_generated_file_is_refused_before_anything_is_written(cli, tree, tmp_path):
    # Both files are stale; the second (in write order) has another name. Expand refuses it
    # before its first write: the first file keeps its stale text, the link both names.
    out = tree / "generated"
    first, second = sorted(out.glob("*.ll"))
    first.write_text("; stale\n")
    second.write_text("; stale too\n")
    os.link(second, tmp_path / "other-name.ll")
    before = _state(tree)
    proc = cli("expand", "--cases", tree)
    assert proc.returncode == 2 and "2 hard links" in _one_line(proc) and str(second) in proc.stderr
    assert _state(tree) == before
    assert (tmp_path / "other-name.ll").samefile(second)
