"""One case listed in two blocks (or two spec files) with different `snapshot` settings.

docs/rows.md's rule: `snapshot: true` *also* pins a block's cases, so a case that one block pins
and another merely lists (no `snapshot` key, as the shipped f8f6f4 spec does: "These cases are in
the matrix above already") is pinned, whichever block comes first. A case that one block pins and
another says `snapshot: false` for has two answers: one located error at the later block's
`snapshot` value (file:line:col, exit 2), wherever the blocks are.
"""

from __future__ import annotations

from conftest import one_line_exit_2

from harness.specs import matrix

W = "wmma.f32.16x16x128.f8f6f4"
ALL = f"  - intrinsic: {W}\n    fmt_a: [fp8, fp4]\n    fmt_b: fp4\n"
PIN = f"  - intrinsic: {W}\n    fmt_a: fp4\n    fmt_b: fp4\n    snapshot: true\n"
UNPIN = f"  - intrinsic: {W}\n    fmt_a: fp4\n    fmt_b: fp4\n    snapshot: false\n"
PINNED = "wmma_f32_16x16x128_f8f6f4__a_fp4_v8__b_fp4_v8"


def _pins(cases_dir) -> dict[str, bool]:
    return {p.case.function: p.snapshot for p in matrix.plan(matrix.spec_files(cases_dir))}


def test_a_case_one_block_pins_and_another_lists_is_pinned_in_either_order(spec_dir):
    for text in ("matrix:\n" + ALL + PIN, "matrix:\n" + PIN + ALL):
        pins = _pins(spec_dir({"s.yaml": text}))
        assert pins[PINNED] is True, (text, pins)
        assert [f for f, pinned in pins.items() if pinned] == [PINNED], pins  # (the fp8 case is not)


def test_a_case_pinned_in_one_spec_file_and_listed_in_another_is_pinned(spec_dir):
    for names in (("a.yaml", "b.yaml"), ("b.yaml", "a.yaml")):
        cases = spec_dir({names[0]: "matrix:\n" + PIN, names[1]: "matrix:\n" + ALL})
        assert _pins(cases)[PINNED] is True, names


def test_snapshot_true_then_false_for_one_case_is_an_error_at_the_second_block(cli, spec_dir):
    cases = spec_dir({"s.yaml": "matrix:\n" + ALL + PIN + UNPIN})
    # The third block is lines 9-12: its `snapshot: false` value is at line 12, column 15.
    line = one_line_exit_2(cli("expand", "--cases", cases), f"{cases / 's.yaml'}:12:15: error: ", PINNED)
    assert f"{cases / 's.yaml'}:8:15" in line, line  # where the other answer was given
    assert not (cases / "generated").exists()


def test_snapshot_false_then_true_for_one_case_is_an_error_at_the_second_block(cli, spec_dir):
    cases = spec_dir({"s.yaml": "matrix:\n" + UNPIN + PIN})
    one_line_exit_2(cli("expand", "--cases", cases), f"{cases / 's.yaml'}:9:15: error: ", PINNED, ":5:15")


def test_snapshot_settings_that_differ_across_spec_files_are_an_error_in_the_later_file(cli, spec_dir):
    cases = spec_dir({"a.yaml": "matrix:\n" + PIN, "b.yaml": "matrix:\n" + UNPIN})
    one_line_exit_2(cli("run", "--cases", cases), f"{cases / 'b.yaml'}:5:15: error: ", PINNED, "a.yaml:5:15")
