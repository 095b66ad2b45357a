"""`harness update-checks` on a snapshot file with CRLF (or CR, or mixed) line endings, and on a
file with several hard links.

A CRLF file is read as the same lines an LF one is (upstream reads tests with universal
newlines): its REQUIRES line's build is read and recorded, and the file written back is the LF
result with the file's own line ending (the one most of its lines have; a lone CR among LF lines
is refused: tests/test_hostile_limits.py). A file with more than one hard
link is refused in one line naming the count, every name left as it was. Runs on any
AMDGPU-enabled llc (the checks are compared with an LF run on the same build)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from conftest import REPO, one_line_exit_2

SNAPSHOT = REPO / "cases" / "generated" / "snapshots" / "mfma.scale.f32.16x16x128.f8f6f4.gfx950.O0.exact.ll"
STALE = "0.0.1"  # a build no snapshot records: update-checks must record the one it runs


def stale_snapshot() -> str:
    """The shipped snapshot with its REQUIRES line naming another build."""
    text, count = re.subn(r"(?m)^(; REQUIRES: .*\bllvm-)\S+$", rf"\g<1>{STALE}", SNAPSHOT.read_text())
    assert count == 1
    return text


def with_endings(text: str, kind: str) -> bytes:
    """`text` (LF) with CRLF, CR, or CRLF but for an LF REQUIRES line ("mixed")."""
    if kind == "mixed":
        return "".join(line + ("\n" if line.startswith("; REQUIRES:") else "\r\n") for line in text.splitlines()).encode()
    return text.replace("\n", {"crlf": "\r\n", "cr": "\r"}[kind]).encode()


def update_checks(cli, llvm, path: Path, *flags: str):
    proc = cli("update-checks", *flags, path, "--llvm-bin", llvm.bin_dir)
    assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
    return proc


@pytest.mark.parametrize("kind", ["crlf", "cr", "mixed"])
def test_a_crlf_snapshot_records_its_build_as_an_lf_one_does(cli, llvm, tmp_path, kind):
    """The REQUIRES line of a CRLF file was not read ("up to date" with a stale build, or
    "records LLVM None" when only some lines ended CRLF) and not rewritten."""
    (tmp_path / "lf").mkdir()
    (tmp_path / "lf" / "t.ll").write_text(stale_snapshot())
    proc = update_checks(cli, llvm, tmp_path / "lf" / "t.ll")
    assert proc.returncode == 0, proc.stderr[-2000:]
    reference = (tmp_path / "lf" / "t.ll").read_bytes()
    assert f"llvm-{llvm.version}\n".encode() in reference

    path = tmp_path / "t.ll"
    path.write_bytes(with_endings(stale_snapshot(), kind))
    proc = update_checks(cli, llvm, path, "--check")
    assert proc.returncode == 1 and f"{path}: the snapshot records LLVM {STALE}; this is {llvm.version}" in proc.stdout
    assert "None" not in proc.stdout + proc.stderr, proc.stdout
    proc = update_checks(cli, llvm, path)
    assert proc.returncode == 0 and f"{path}: the snapshot now records LLVM {llvm.version} (was {STALE})" in proc.stdout
    newline = b"\r" if kind == "cr" else b"\r\n"
    assert path.read_bytes() == reference.replace(b"\n", newline)
    proc = update_checks(cli, llvm, path, "--check")
    assert proc.returncode == 0 and path.read_bytes() == reference.replace(b"\n", newline), proc.stdout


def test_a_file_of_several_hard_links_is_refused_and_every_name_kept(cli, llvm, tmp_path):
    """A rename gives the path a new inode: the other name would keep the old checks (the link
    split silently). Refused in one line naming the link count; both names unchanged, one inode;
    --check, which writes nothing, still works."""
    path, other = tmp_path / "t.ll", tmp_path / "other.ll"
    path.write_text(stale_snapshot())
    os.link(path, other)
    one_line_exit_2(update_checks(cli, llvm, path), f"{path}: error: cannot write: the file has 2 hard links")
    assert path.read_text() == other.read_text() == stale_snapshot()
    assert os.stat(path).st_ino == os.stat(other).st_ino and os.stat(path).st_nlink == 2
    proc = update_checks(cli, llvm, path, "--check")
    assert proc.returncode == 1 and "records LLVM 0.0.1" in proc.stdout, proc.stderr[-2000:]
    other.unlink()
    proc = update_checks(cli, llvm, path)
    assert proc.returncode == 0 and f"llvm-{llvm.version}\n" in path.read_text(), proc.stderr[-2000:]
