"""Hostile spec files: bytes, encodings, nesting, YAML tags, FIFOs — one located line, exit 2,
nothing written, never a traceback (the first cases of issue 9's list)."""

from __future__ import annotations

import os

import pytest

CASES = {
    "not-utf8": (b"matrix:\n  - intrinsic: caf\xe9\n", ":2:19: error: not UTF-8 text"),
    "nul-byte": (b"matrix:\x00\n", ":1:8: error: a NUL byte"),
    "deep-nesting": (b"matrix: " + b"[" * 20000 + b"]" * 20000 + b"\n", ": error: invalid YAML: nested too deeply"),
    "bad-int-tag": (b"matrix:\n  - intrinsic: wmma.f32.32x16x128.f4\n    opt: !!int abc\n", ":3:10: error: 'abc' is not a valid int"),
    "bad-bool-tag": (b"matrix:\n  - intrinsic: wmma.f32.32x16x128.f4\n    split_selectors: !!bool maybe\n",
                     ":3:22: error: 'maybe' is not a valid bool"),
    "empty-int-tag": (b"matrix:\n  - intrinsic: wmma.f32.32x16x128.f4\n    opt: !!int 0x\n", ":3:10: error: '0x' is not a valid int"),
}


@pytest.mark.parametrize("name", CASES)
@pytest.mark.parametrize("command", [("expand",), ("expand", "--check"), ("run",)])
def test_hostile_spec_is_one_located_line(cli, tmp_path, name, command):
    data, where = CASES[name]
    spec = tmp_path / "a.yaml"
    spec.write_bytes(data)
    proc = cli(*command, "--cases", tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip().splitlines() == [f"harness: {spec}{where}"], proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.yaml"]


def test_a_fifo_named_like_a_spec_is_refused_not_waited_on(cli, tmp_path):
    os.mkfifo(tmp_path / "f.yaml")
    proc = cli("expand", "--cases", tmp_path)
    assert proc.returncode == 2 and f"{tmp_path / 'f.yaml'}: error: not a regular file" in proc.stderr
