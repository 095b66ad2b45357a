"""Spec values at and past their limits: quoted values stay short and on one line, YAML tags the
loader does not read are refused at the tag, numbers Python cannot read are located errors, %name
operands never clash with the kernel's own names, exclude rules cost set lookups rather than
rules x pairs, the case limit speaks of the specs together, long pipelines get short file names,
and opt's refusal of a spec's pipeline names the spec."""

from __future__ import annotations

import itertools
import random
import subprocess
from types import SimpleNamespace

import pytest

from harness.core.errors import InputError
from harness.kernels import gemm, gemm_spec
from harness.specs import cases, emit, matrix, spec
from harness.specs.cases import Case, widths_for
from harness.tools.runner import Runner

MFMA = "mfma.scale.f32.16x16x128.f8f6f4"
HEAD = f"matrix:\n  - intrinsic: {MFMA}\n    fmt_a: fp8\n    fmt_b: fp8\n"


def error(text: str) -> InputError:
    """The InputError expanding one spec's text raises."""
    with pytest.raises(InputError) as info:
        for block in spec.parse_spec(text, "a.yaml"):
            matrix.expand_block(block)
    return info.value


def where(exc: InputError) -> tuple[int | None, int | None]:
    return exc.line, exc.col


# ---- quoting -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value, shown",
    [
        ("fp8", "'fp8'"),
        ("a\nb", "'a\\nb'"),
        (7, "7"),
        ("x" * 500, "'" + "x" * 58 + "'... (500 characters)"),
        (10**200, "1" + "0" * 59 + "... (201 digits)"),
    ],
)
def test_quote_is_one_short_line(value, shown):
    assert spec.quote(value) == shown


def test_quote_survives_an_int_past_pythons_digit_limit():
    assert spec.quote(10**5000).endswith("-bit integer")


# ---- the YAML layer ------------------------------------------------------------------------------


def test_a_control_character_is_located():
    exc = error(HEAD + "    opt: 1\a\n")
    assert where(exc) == (5, 11) and "U+0007" in exc.message


def test_a_control_character_after_cr_line_breaks_is_located_as_pyyaml_counts_lines():
    exc = error("matrix:\r  - intrinsic: x\r    opt: \a\r")
    assert where(exc) == (3, 10)


@pytest.mark.parametrize(
    "text, at, tag",
    [
        ("matrix:\n  - intrinsic: !!python/name:os.system x\n", (2, 16), "!!python/name:os.system"),
        ("matrix:\n  - intrinsic: !!python/object/apply:os.system [ls]\n", (2, 16), "!!python/object/apply:os.system"),
        ("matrix:\n  - intrinsic: !include other.yaml\n", (2, 16), "!include"),
        ("matrix: !seq\n  - intrinsic: x\n", (1, 9), "!seq"),
        ("!doc\nmatrix: []\n", (1, 1), "!doc"),
        ("matrix:\n  - ? !k intrinsic\n    : x\n", (2, 7), "!k"),
        ("matrix:\n  - intrinsic: &a x\n    cpu: !t *a\n", None, None),  # an alias takes no tag: invalid YAML
    ],
)
def test_a_tag_the_loader_does_not_read_is_refused_at_the_tag(text, at, tag):
    exc = error(text)
    if tag is None:
        assert "invalid YAML" in exc.message
        return
    assert where(exc) == at and f"YAML tag {tag} is not supported" in exc.message


def test_yaml_own_tags_still_read_and_merge_keys_are_still_unknown_keys():
    blocks = spec.parse_spec(f"matrix:\n  - intrinsic: !!str {MFMA}\n    opt: !!int 1\n", "a.yaml")
    assert blocks[0].dims["opt"][0].value == 1
    exc = error(f"base: &b {{fmt_a: fp8}}\nmatrix:\n  - intrinsic: {MFMA}\n    <<: *b\n")
    assert "unknown key" in exc.message  # (the top-level key comes first)


@pytest.mark.parametrize("field", ["opt", "width_a", "selector"])
def test_a_number_python_cannot_read_is_a_located_out_of_range_error(field):
    exc = error(HEAD + f"    {field}: {'9' * 5000}\n")
    assert where(exc) == (5, len(field) + 7)
    assert exc.message.startswith("number out of range: 999") and "(5,000 digits)" in exc.message
    assert len(exc.message) < 120


@pytest.mark.parametrize("field", ["elem_a", "elem_b"])
def test_an_integer_type_of_thousands_of_digits_is_located(field):
    exc = error(HEAD + f"    {field}: i{'9' * 5000}\n")
    assert where(exc) == (5, len(field) + 7) and "LLVM integer types are i1 to" in exc.message
    assert len(exc.message) < 200


def test_an_operand_literal_of_thousands_of_digits_is_located():
    exc = error(HEAD + f"    args: {{5: '{'9' * 5000}'}}\n")
    assert where(exc) == (5, 15) and "does not fit" in exc.message and len(exc.message) < 200


def test_an_unknown_intrinsic_is_quoted_once():
    exc = error("matrix:\n  - intrinsic: 'wmma\"x''y\\e'\n")
    assert exc.message == "unknown intrinsic 'wmma\"x\\'y\\\\e' (534 names: `harness coverage --json` lists them)"


# ---- %name operands ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["%a", "%b", "%c", "%out", "%a.narrow", "%b.narrow", "%r.anything"])
def test_a_parameter_name_the_kernel_uses_is_refused_at_the_value(name):
    exc = error(HEAD + f'    args: {{fmt_a: "{name}"}}\n')
    assert where(exc) == (5, 19) and "a name the kernel already uses" in exc.message


def test_one_name_for_two_operands_of_one_type_is_one_parameter(llvm):
    blocks = spec.parse_spec(HEAD + '    selector: sdag\n    args: {fmt_a: "%f", fmt_b: "%f"}\n', "a.yaml")
    (case, _), *_ = matrix.expand_block(blocks[0])
    text = emit.module([case]).text
    define = next(line for line in text.splitlines() if line.startswith("define"))
    assert define.count("%f") == 1
    parsed = subprocess.run(
        [llvm.require("llvm-as"), "-disable-verify", "-o", "/dev/null"], input=text, capture_output=True, text=True
    )
    assert parsed.returncode == 0, parsed.stderr


def test_one_name_for_operands_of_two_types_is_refused():
    text = 'matrix:\n  - intrinsic: wmma.scale16.f32.16x16x128.f8f6f4\n    args: {fmt_a: "%f", 8: "%f"}\n'
    exc = error(text)
    assert where(exc) == (3, 28) and "operand 0 (i32) and operand 8 (i64)" in exc.message


# ---- NVPTX sections ------------------------------------------------------------------------------


def test_a_gemm_dimension_of_thousands_of_digits_is_located():
    with pytest.raises(InputError) as info:
        gemm_spec.parse_gemm(f"gemm:\n  - shape: 16x{'8' * 5000}x16\n    dtype: f16\n", "a.yaml")
    assert where(info.value) == (2, 12) and info.value.message.startswith("gemm N has 5,000 digits")


@pytest.mark.parametrize("cpu", ["sm_99999", "sm_85", "sm_90f", "sm_1000a"])
def test_a_gemm_cpu_llvm_does_not_have_is_refused_at_the_value(cpu):
    with pytest.raises(InputError) as info:
        gemm_spec.parse_gemm(f"gemm:\n  - shape: 16x8x16\n    dtype: f16\n    cpu: {cpu}\n", "a.yaml")
    assert where(info.value) == (4, 10) and f"'{cpu}' is not an NVPTX CPU" in info.value.message


def test_every_gemm_cpu_is_an_nvptx_processor_of_the_measured_build(llvm_22_1_8):
    listed = subprocess.run(
        [llvm_22_1_8.require("llc"), "-mtriple=nvptx64-nvidia-cuda", "-mcpu=help"], capture_output=True, text=True
    )
    processors = {line.split()[0] for line in listed.stdout.splitlines() + listed.stderr.splitlines() if " - Select the " in line}
    if not processors:
        pytest.skip("this build has no NVPTX target")
    assert set(gemm.CPUS) <= processors
    assert gemm.GemmCase(16, 8, 16, "f16", cpu="sm_86").cpu == "sm_86"


@pytest.mark.parametrize("name", ["nothing\\nharness: fake", "mma.m16*\\nharness: fake"])
def test_an_intrinsic_name_is_quoted_on_one_line(tmp_path, name):
    (tmp_path / "a.yaml").write_text(f'matrix:\n  - intrinsic: "{name}"\n')
    with pytest.raises(InputError) as info:
        matrix.plan(matrix.spec_files(tmp_path))
    decoded = name.replace("\\n", "\n")
    assert "\n" not in str(info.value) and repr(decoded) in info.value.message


# ---- limits --------------------------------------------------------------------------------------

BLOCK = f"  - intrinsic: {MFMA}\n    fmt_a: all\n    fmt_b: all\n    opt: [0, 1, 2, 3]\n"  # 2 x 4 x 25 = 200 pairs


def test_the_case_limit_speaks_of_the_specs_together(tmp_path):
    (tmp_path / "a.yaml").write_text("matrix:\n" + BLOCK)
    (tmp_path / "b.yaml").write_text("matrix:\n" + BLOCK.replace("opt: [0, 1, 2, 3]", "opt: 0\n    elem_a: [i64, i16]"))
    with pytest.raises(InputError) as info:
        matrix.plan(matrix.spec_files(tmp_path), max_cases=250)
    exc = info.value
    assert exc.path.endswith("b.yaml") and where(exc) == (2, 5)
    assert "the specs together expand to more than 250 case-selector pairs: 200 before this block" in exc.message
    assert "which adds up to 100;" in exc.message
    with pytest.raises(InputError, match=r"this block expands to more than 150 case-selector pairs \(up to 200\)"):
        matrix.plan(matrix.spec_files(tmp_path), max_cases=150)


def _brute_force(rules, case: Case, selector) -> bool:
    """The reference reading of exclude rules: every rule tried on the pair."""

    def holds(key, value) -> bool:
        if key in ("width_a", "width_b"):
            side = cases.Side(key[-1])
            if isinstance(value, int):
                return case.width(side) == value
            return case.width(side) in widths_for(value, case.intrinsic.source(side), case.fmt(side))
        if key in ("fmt_a", "fmt_b"):
            return value == "all" or matrix.formats.parse(value) == case.fmt(cases.Side(key[-1]))
        if key == "narrowing":
            return (value if value != "none" else "") == case.narrowing
        if key == "selector":
            return value == selector
        if key in ("elem_a", "elem_b"):
            return value == case.elem(cases.Side(key[-1]))
        return value == getattr(case, key)

    return any(all(any(holds(k, v.value) for v in values) for k, values in rule.items()) for rule in rules)


CHOICES = {
    "opt": [0, 1, 3],
    "selector": ["sdag", "gisel"],
    "width_a": [6, 8, 12, "exact", "overwide", "underwide", "max"],
    "width_b": [4, 8, "exact", "overwide"],
    "fmt_a": ["fp8", "fp4", "all", 2, "FP6_E2M3"],
    "fmt_b": ["bf8", "fp6", "all"],
    "elem_a": ["i32", "i64"],
    "narrowing": ["none", "shufflevector"],
    "pipeline": ["none", "instcombine"],
}


@pytest.mark.parametrize("seed", range(40))
def test_indexed_excludes_drop_exactly_what_every_rule_tried_on_every_pair_drops(seed):
    rng = random.Random(seed)
    rules = [
        {k: rng.sample(CHOICES[k], rng.randint(1, 2)) for k in rng.sample(sorted(CHOICES), rng.randint(1, 3))}
        for _ in range(rng.randint(1, 8))
    ]
    lines = ["  - {" + ", ".join(f"{k}: [{', '.join(map(str, v))}]" for k, v in r.items()) + "}" for r in rules]
    text = (
        f"matrix:\n  - intrinsic: {MFMA}\n    fmt_a: all\n    fmt_b: all\n    width_a: [exact, overwide, underwide]\n"
        "    opt: [0, 1]\n    elem_a: [i32, i64]\n    narrowing: [none, shufflevector]\n    pipeline: [none, instcombine]\n"
        "    exclude:\n" + "\n".join("  " + line for line in lines) + "\n"
    )
    block = spec.parse_spec(text, "a.yaml")[0]
    everything = matrix.expand_block(spec.Block(block.path, block.line, block.col, block.dims, []))
    try:
        kept = matrix.expand_block(block)
    except InputError as exc:  # every pair excluded
        assert exc.message == "this matrix block expands to no cases"
        kept = []
    assert kept == [(c, s) for c, s in everything if not _brute_force(block.excludes, c, s)]


def test_thousands_of_exclude_rules_cost_little(monkeypatch):
    """Counted, not timed: every pair is decided from a few memoised set operations per
    dimension (one per distinct key), not by trying each of the 4000 rules."""
    made = []

    class Counting(matrix.Excludes):
        def __init__(self, rules):
            super().__init__(rules)
            made.append(self)

    monkeypatch.setattr(matrix, "Excludes", Counting)
    rules = "".join(
        f"      - {{width_b: {w}, opt: {o}, pipeline: [none, p{n}]}}\n"
        for n, (w, o) in enumerate(itertools.islice(itertools.cycle(itertools.product(range(4, 9), range(1, 4))), 4000))
    )
    text = f"matrix:\n  - intrinsic: {MFMA}\n    fmt_a: all\n    fmt_b: all\n    width_a: [4, 5, 6, 7, 8]\n    opt: [0, 1, 2, 3]\n    exclude:\n{rules}"
    block = spec.parse_spec(text, "a.yaml")[0]
    kept = matrix.expand_block(block)
    assert 0 < len(made[0].memo) < 100
    # Every (width_b, opt 1..3) is excluded and the exact B widths are 4, 6 and 8: only -O0 stays.
    assert {c.opt for c, _ in kept} == {0} and len(kept) == 2 * 25 * 5


# ---- pipelines -----------------------------------------------------------------------------------


def test_short_pipeline_slugs_are_unchanged():
    assert cases.pipeline_slug("instcombine") == "instcombine"
    assert cases.pipeline_slug("function(instcombine),dce").startswith("function-instcombine-dce-")
    assert len(cases.pipeline_slug("function(instcombine),dce")) == len("function-instcombine-dce-") + 6


def test_long_pipelines_get_short_distinct_file_names():
    one, two = ",".join(["instcombine"] * 40), ",".join(["instcombine"] * 39 + ["dce"])
    slugs = {cases.pipeline_slug(p) for p in (one, two, "x" * 300, "x" * 301)}
    assert len(slugs) == 4 and all(len(s) <= cases.MAX_SLUG + 13 for s in slugs)
    block = spec.parse_spec(HEAD + f"    selector: sdag\n    pipeline: {'x' * 4000}\n", "a.yaml")[0]
    planned = [cases.Planned(c, (s,), ("a.yaml",)) for c, s in matrix.expand_block(block)]
    (group,) = cases.group(planned)
    assert len(group.filename.encode()) < 200


class _RefusingOpt:
    def run(self, tool, args, stdin):
        return SimpleNamespace(ok=False, stderr="/x/bin/opt: unknown pass name 'nosuchpass'\n")


def test_opt_refusing_a_specs_pipeline_is_located_at_the_pipeline():
    block = spec.parse_spec(HEAD + "    selector: sdag\n    pipeline: [instcombine, nosuchpass]\n", "a.yaml")[0]
    case = next(c for c, _ in matrix.expand_block(block) if c.pipeline == "nosuchpass")
    with pytest.raises(InputError) as info:
        Runner(_RefusingOpt()).check_pipeline(case, "nosuchpass")
    assert (info.value.path, *where(info.value)) == ("a.yaml", 6, 29)
    assert info.value.message == "pipeline 'nosuchpass': /x/bin/opt: unknown pass name 'nosuchpass'"
    # A case moved onto another pipeline (try --pipeline) is not blamed on the spec.
    with pytest.raises(InputError) as info:
        Runner(_RefusingOpt()).check_pipeline(case, "other")
    assert info.value.path is None


@pytest.mark.parametrize("opener", ["[", "{", "{a: ", "[x, "])
def test_flow_nesting_past_the_limit_is_refused_before_pyyaml_reads_it(monkeypatch, opener):
    """PyYAML's scanner takes time quadratic in the flow depth: the text never reaches it."""
    read = []
    monkeypatch.setattr(spec.yaml, "compose", lambda *a, **k: read.append(a))
    deep = "matrix: " + opener * (spec.MAX_FLOW_DEPTH + 1) + "]" * (spec.MAX_FLOW_DEPTH + 1)
    err = error(deep)
    assert read == [] and (err.line, err.col) == (1, 9 + spec.MAX_FLOW_DEPTH * len(opener))
    assert str(err).endswith(f"more than {spec.MAX_FLOW_DEPTH} [ or {{ open at once")


def test_brackets_in_quotes_and_comments_open_nothing():
    text = 'a: "' + "[" * 100 + '"\n' + "b: '" + "{" * 100 + "'\n# " + "[" * 100 + "\nc: [1, [2, {d: 3}]]\n"
    assert spec.flow_too_deep(text) is None
    assert spec.flow_too_deep("x: it's " + "[" * 100) == (1, 9 + spec.MAX_FLOW_DEPTH)  # an apostrophe opens no quote
