"""A bad spec stops `harness expand` with one located line and exit 2, and writes nothing.

Each expected line:col is counted by hand from the spec text (1-based, YAML node start).
"""

from __future__ import annotations

import pytest

from harness.checks import expand

W = "wmma.f32.16x16x128.f8f6f4"

# id -> (spec text, line, col, a fragment the message must contain)
BAD_SPECS = {
    "unknown-block-key": (f"matrix:\n  - intrinsic: {W}\n    fmt_a: fp8\n    widht_b: exact\n", 4, 5, "widht_b"),
    "unknown-top-level-key": (f"description: x\nmatrics:\n  - intrinsic: {W}\n", 2, 1, "matrics"),
    "unknown-intrinsic-second-in-list": (
        f"matrix:\n  - intrinsic: [{W}, wmma.f32.16x16x64.f8f6f4]\n",
        2,
        44,
        "wmma.f32.16x16x64.f8f6f4",
    ),
    "bad-format-spelling": (f"matrix:\n  - intrinsic: {W}\n    fmt_b: [fp8, fp5]\n", 3, 18, "fp5"),
    "format-the-source-cannot-take": ("matrix:\n  - intrinsic: wmma.f32.32x16x128.f4\n    fmt_a: fp8\n", 3, 12, "fp4"),
    "zero-width": (f"matrix:\n  - intrinsic: {W}\n    width_a: 0\n", 3, 14, "width"),
    "negative-width": (f"matrix:\n  - intrinsic: {W}\n    width_b: -8\n", 3, 14, "-8"),
    "unknown-width-policy": (f"matrix:\n  - intrinsic: {W}\n    width_b: [exact, wide]\n", 3, 22, "wide"),
    "fractional-width": (f"matrix:\n  - intrinsic: {W}\n    width_a: 8.5\n", 3, 14, "8.5"),
    "boolean-width": (f"matrix:\n  - intrinsic: {W}\n    width_a: [exact, yes]\n", 3, 22, "width"),
    "invalid-yaml-mapping-value": (f"matrix:\n  - intrinsic: {W}\n    fmt_a: fp8: fp4\n", 3, 15, "invalid YAML"),
    "invalid-yaml-unclosed-flow": (f"matrix:\n  - intrinsic: [{W}\n", 3, 1, "invalid YAML"),
    "invalid-yaml-tab": (f"matrix:\n  - intrinsic: {W}\n\tfmt_a: fp8\n", 3, 1, "invalid YAML"),
    "empty-matrix": ("description: nothing\nmatrix: []\n", 2, 9, "matrix"),
    "empty-file": ("", 1, 1, "empty"),
    "no-matrix": ("description: only words\n", 1, 1, "matrix"),
    "block-without-intrinsic": ("matrix:\n  - fmt_a: fp8\n", 2, 5, "intrinsic"),
    "block-expanding-to-nothing": (f"matrix:\n  - intrinsic: {W}\n    fmt_a: fp4\n    width_a: underwide\n", 2, 5, "case"),
    "duplicate-key": (f"matrix:\n  - intrinsic: {W}\n    fmt_a: fp8\n    fmt_a: fp4\n", 4, 5, "fmt_a"),
    "unknown-selector": (f"matrix:\n  - intrinsic: {W}\n    selector: [sdag, fastisel]\n", 3, 22, "fastisel"),
    "bad-opt-level": (f"matrix:\n  - intrinsic: {W}\n    opt: 4\n", 3, 10, "4"),
    "cpu-the-intrinsic-lacks": ("matrix:\n  - intrinsic: mfma.scale.f32.16x16x128.f8f6f4\n    cpu: gfx1250\n", 3, 10, "gfx1250"),
    "exclude-unknown-key": (
        f"matrix:\n  - intrinsic: {W}\n    exclude:\n      - fmt_a: fp8\n        colour: red\n",
        5,
        9,
        "colour",
    ),
    "exclude-bad-format": (f"matrix:\n  - intrinsic: {W}\n    exclude:\n      - fmt_a: fp10\n", 4, 16, "fp10"),
    "exclude-dropping-everything": (f"matrix:\n  - intrinsic: {W}\n    exclude:\n      - fmt_a: all\n", 2, 5, "case"),
}


def _one_located_line(proc, spec, line, col, fragment):
    out = (proc.stdout + proc.stderr).strip().splitlines()
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert len(out) == 1, out
    assert f"{spec}:{line}:{col}: error: " in out[0], out[0]
    assert fragment in out[0]


@pytest.mark.parametrize("spec_text,line,col,fragment", BAD_SPECS.values(), ids=BAD_SPECS.keys())
def test_bad_spec_reports_its_location_exits_2_and_creates_no_generated_dir(cli, spec_dir, spec_text, line, col, fragment):
    cases_dir = spec_dir({"bad.yaml": spec_text})
    proc = cli("expand", "--cases", cases_dir)
    _one_located_line(proc, cases_dir / "bad.yaml", line, col, fragment)
    assert not (cases_dir / "generated").exists()


GOOD = "matrix:\n  - intrinsic: wmma.f32.32x16x128.f4\n    width_a: [exact, overwide]\n"


def _snapshot(directory):
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(directory.iterdir())}


@pytest.mark.parametrize("bad", ["invalid-yaml-mapping-value", "unknown-block-key", "block-expanding-to-nothing"])
def test_bad_spec_next_to_good_ones_leaves_existing_generated_files_untouched(cli, spec_dir, bad):
    # The good spec sorts first, so a writer that emitted file by file would already have written.
    cases_dir = spec_dir({"a-good.yaml": GOOD})
    expand.write(cases_dir, expand.render(cases_dir))
    (cases_dir / "generated" / "stale-extra.ll").write_text("; left over\n")
    before = _snapshot(cases_dir / "generated")
    assert len(before) == 3
    spec_text, line, col, fragment = BAD_SPECS[bad]
    (cases_dir / "z-bad.yaml").write_text(spec_text)
    proc = cli("expand", "--cases", cases_dir)
    _one_located_line(proc, cases_dir / "z-bad.yaml", line, col, fragment)
    assert _snapshot(cases_dir / "generated") == before
    assert not [p for p in (cases_dir / "generated").iterdir() if p.name.endswith(".tmp")]


def test_check_mode_with_a_bad_spec_is_an_input_error_not_a_stale_report(cli, spec_dir):
    spec_text, line, col, fragment = BAD_SPECS["unknown-intrinsic-second-in-list"]
    cases_dir = spec_dir({"bad.yaml": spec_text})
    proc = cli("expand", "--check", "--cases", cases_dir)
    _one_located_line(proc, cases_dir / "bad.yaml", line, col, fragment)


def test_missing_cases_directory_is_one_line_and_exit_2(cli, tmp_path):
    proc = cli("expand", "--cases", tmp_path / "nowhere")
    assert proc.returncode == 2
    assert len((proc.stdout + proc.stderr).strip().splitlines()) == 1
    assert "nowhere" in proc.stderr


@pytest.mark.parametrize("value, width", [("010", 8), ("1:30", 90)])
def test_yaml_octal_and_sexagesimal_widths_are_read_as_yaml_reads_them(cli, spec_dir, value, width):
    cases_dir = spec_dir({"bad.yaml": f"matrix:\n  - intrinsic: {W}\n    width_a: {value}\n"})
    proc = cli("expand", "--cases", cases_dir)
    assert proc.returncode == 0 and proc.stderr == ""
    text = "".join(p.read_text() for p in (cases_dir / "generated").glob("*.ll"))
    assert f"__a_fp4_v{width}__" in text or f"__a_fp8_v{width}__" in text


def test_boolean_literal_for_a_format_operand_is_a_located_error(cli, spec_dir):
    cases_dir = spec_dir(
        {"bad.yaml": f'matrix:\n  - intrinsic: {W}\n    fmt_a: fp8\n    fmt_b: fp8\n    args: {{fmt_a: "true"}}\n'}
    )
    proc = cli("expand", "--cases", cases_dir)
    assert "Traceback" not in proc.stderr
    out = (proc.stdout + proc.stderr).strip().splitlines()
    assert proc.returncode == 2 and len(out) == 1 and f"{cases_dir / 'bad.yaml'}:5:" in out[0], out


def test_unquoted_yaml_boolean_is_accepted_where_args_advertise_true_false(cli, spec_dir):
    # Operand 12 of wmma.scale is an i1 (the last of its neutral literals).
    cases_dir = spec_dir(
        {
            "ok.yaml": "matrix:\n  - intrinsic: wmma.scale.f32.16x16x128.f8f6f4\n    fmt_a: fp8\n"
            "    fmt_b: fp8\n    args: {12: true}\n"
        }
    )
    proc = cli("expand", "--cases", cases_dir)
    assert proc.returncode == 0, proc.stderr


def test_a_known_bugs_yaml_error_without_a_mark_is_one_line(tmp_path, monkeypatch):
    # PyYAML raises some errors with no mark at all (ConstructorError(None, None, message, None)).
    import yaml

    from harness.core.errors import InputError
    from harness.specs import known_bugs, spec

    path = tmp_path / known_bugs.FILENAME
    path.write_text('"22.1.8": []\n')

    def fail(*_args, **_kwargs):
        raise yaml.constructor.ConstructorError(None, None, "no constructor for this node", None)

    monkeypatch.setattr(spec._CountingComposer, "get_single_node", fail)  # (every YAML file is composed there)
    with pytest.raises(InputError) as info:
        known_bugs.load(tmp_path)
    assert str(info.value) == f"{path}: error: invalid YAML: no constructor for this node"
