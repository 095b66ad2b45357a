"""`harness.core.files`: writes never go through a symbolic link and keep the file's owner and mode;
reads of an input never block on a FIFO or run on without end (issue 15)."""

from __future__ import annotations

import os
import stat

import pytest

from harness.core import files
from harness.core.errors import InputError


def test_a_symbolic_link_is_never_written_through(tmp_path):
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    (tmp_path / "out").symlink_to(victim)
    with pytest.raises(InputError, match="a symbolic link"):
        files.write_atomically(tmp_path / "out", "new\n")
    assert victim.read_text() == "precious\n" and (tmp_path / "out").is_symlink()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "victim"]


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another owner needs root")
def test_the_owner_and_mode_are_kept(tmp_path):
    path = tmp_path / "f"
    path.write_text("old\n")
    os.chown(path, 4321, 4322)
    path.chmod(0o640)
    files.write_atomically(path, "new\n")
    st = path.stat()
    assert path.read_text() == "new\n" and (st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)) == (4321, 4322, 0o640)


def test_an_owner_that_cannot_be_kept_refuses_the_write(tmp_path, monkeypatch):
    path = tmp_path / "f"
    path.write_text("old\n")
    real = path.stat()
    other = os.stat_result((real.st_mode, real.st_ino, real.st_dev, real.st_nlink, real.st_uid + 1, *real[5:]))

    def denied(*args):
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "chown", denied)
    with pytest.raises(InputError, match="replacing it would change that"):
        files._keep_owner(str(path), other, path)  # (the file belongs to someone else than the writer)


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "directory"])
def test_an_input_that_is_not_a_regular_file_is_refused_unread(tmp_path, kind):
    path = tmp_path / "input"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev-zero":
        path.symlink_to("/dev/zero")
    else:
        path.mkdir()
    with pytest.raises(InputError, match="not a regular file"):
        files.read_input(path, 1 << 20, "spec")


def test_an_input_of_exactly_the_limit_is_read_and_one_byte_more_is_refused(tmp_path):
    path = tmp_path / "input"
    path.write_bytes(b"x" * 4096)
    assert files.read_input(path, 4096, "spec") == b"x" * 4096
    with pytest.raises(InputError) as refused:
        files.read_input(path, 4095, "spec")
    assert str(refused.value) == f"{path}: error: 4,096 bytes: a spec is at most 4,095 bytes"


def test_a_file_edited_since_it_was_read_is_not_replaced(tmp_path):
    """`read_as`: the bytes the new text was made from. A file that holds others now (an edit
    made meanwhile, longer, shorter or the same length) keeps them, and no temporary is left."""
    target = tmp_path / "t.ll"
    for edited in ("; read\n; edited\n", "", "; READ\n"):
        target.write_text(edited)
        with pytest.raises(InputError, match="changed while its new text was being made"):
            files.write_atomically(target, "; new\n", read_as=b"; read\n")
        assert target.read_text() == edited and [p.name for p in tmp_path.iterdir()] == ["t.ll"]
    target.write_text("; read\n")
    files.write_atomically(target, "; new\n", read_as=b"; read\n")
    assert target.read_text() == "; new\n"
