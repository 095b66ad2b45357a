"""Which function a line of tool output belongs to. The fast splitters (`split_functions`,
`asm_owners`) against a plain reading of their rules, line by line, on random texts made of the
lines that matter: function labels, objdump headers, IR definitions, PTX headers, block labels,
ends, directives, comments. Then on the real tools' output: llvm-mc's errors charged to the
function whose body holds their line (a function's label up to its `.Lfunc_endN:`; nothing after
it belongs to any), and llc's IR parse error to the function defined on its line."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from harness.core import verdicts as V
from harness.specs import emit
from harness.specs.cases import Case
from harness.targets import catalog
from harness.tools.runner import Runner
from harness.tools.toolchain import Toolchain

LINES = [
    "f:", "g:", "h:", "g:\t; @g", "f: extra", ".Lfunc_end0:", ".Lfunc_end12:", "}", "}x", "{", "", "  v_mov",
    "\ts_nop", ".LBB0_1:", "$L__BB0_1:", ".visible .func (.param .b32 r) f(", ".entry g(", ".weak .func h(",
    ".func f(", "define void @f(", "define i32 @g(i32 %x) {", "0000 <f>:", "00ab <h>:", "; c", "# c", "// c",
    "entry:", "x y", ".section .text", "\t.amdgcn_target",
]  # fmt: skip
NAMES = st.sampled_from([{"f", "g"}, {"h"}, set(), {"f", "g", "h"}])
TEXTS = st.tuples(st.lists(st.sampled_from(LINES), max_size=16), st.sampled_from(["", "\n"]))


def start_of(line: str) -> str | None:
    """The function a line starts, by the rules: `name:` at column 0 (not `.`, `$`), `<name>:`
    after an address, `define ... @name(`, a PTX `.func`/`.entry` header."""
    for pattern in (
        r"([A-Za-z_][\w.$]*):",
        r"[0-9a-f]+ <([\w.$]+)>:",
        r"define [^@]*@([\w.$]+)\(",
        r".*\.(?:func|entry)\s+(?:\([^)]*\)\s*)?(\w+)\(",
    ):
        m = re.match(pattern, line)
        if m and (not pattern.startswith(".*") or line.startswith((".visible", ".weak", ".func", ".entry"))):
            return m.group(1)
    return None


def reference_split(text: str, names: set[str]) -> dict[str, list[str]]:
    bodies: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines():
        name = start_of(line)
        if name in names:
            current = bodies.setdefault(name, [])
            current += [line] if line.startswith("define ") else []
        elif current is not None and (line.startswith((".Lfunc_end", "}")) or name):
            current += [line] if line.startswith("}") else []
            current = None
        elif current is not None:
            current.append(line)
    return bodies


def reference_owners(text: str, names: set[str]) -> dict[int, str]:
    owners, current = {}, ""
    for number, line in enumerate(text.splitlines(), 1):
        label = re.match(r"([A-Za-z_.$][\w.$]*):", line)
        name = label.group(1) if label else start_of(line) if line.startswith((".visible", ".weak", ".func", ".entry")) else None
        if name in names:
            current = name
        elif line.startswith((".Lfunc_end", "}")):
            owners.update({number: current} if current and line.startswith("}") else {})
            current = ""
        if current:
            owners[number] = current
    return owners


@settings(max_examples=400, deadline=None)
@given(TEXTS, NAMES)
def test_split_functions_follows_the_rules(text, names):
    lines, end = text
    assert V.split_functions("\n".join(lines) + end, names) == reference_split("\n".join(lines) + end, names)


@settings(max_examples=400, deadline=None)
@given(TEXTS, NAMES)
def test_asm_owners_follows_the_rules(text, names):
    lines, end = text
    joined = "\n".join(lines) + end
    owners = V.asm_owners(joined, names)
    assert owners.as_dict() == reference_owners(joined, names)
    assert all(owners.get(n) == reference_owners(joined, names).get(n) for n in range(0, len(lines) + 2))
    # Each line as llvm-mc numbers them ("\n" ends a line), "" outside the text.
    numbered = dict(enumerate(joined.split("\n"), 1))
    assert [owners.line(joined, n) for n in range(-1, len(lines) + 3)] == [numbered.get(n, "") for n in range(-1, len(lines) + 3)]


# ---- on the real tools' output: llvm-mc's errors belong to the function whose body holds their line ---


W = "wmma.f32.16x16x128.f8f6f4"
FP8, FP4 = 0, 4
ISA = "v_wmma_f32_16x16x128_f8f6f4"
TUPLE_FP4 = "wrong register tuple size for MATRIX_FMT_FP4"


def _case(name: str, fa: int, fb: int, wa: int, wb: int) -> Case:
    intr = catalog.lookup(name)
    return Case(intr, intr.cpus[0], fa, fb, wa, wb)


def _llc(tool, ir: str, *flags: str, cpu: str = "gfx1250") -> str:
    gen = tool("llc", ["-mtriple=amdgcn", f"-mcpu={cpu}", *flags], ir)
    assert gen.returncode == 0, gen.stderr[-2000:]
    return gen.stdout


def _mc(tool, asm: str, cpu: str = "gfx1250") -> str:
    mc = tool("llvm-mc", ["-triple=amdgcn", f"-mcpu={cpu}", "-filetype=obj", "-o", "/dev/null"], asm)
    assert mc.returncode != 0, "expected llvm-mc to reject this text"
    return mc.stderr


def _owned_ranges(asm: str, names: set[str]) -> dict[int, str]:
    """Line -> function, computed here: from a function's label up to (not including) the
    `.Lfunc_endN:` label that closes it; nothing else belongs to a function."""
    lines = asm.splitlines()
    out: dict[int, str] = {}
    for i, line in enumerate(lines):
        m = re.match(r"^([\w.$]+):", line)
        if m and m.group(1) in names:
            end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith(".Lfunc_end"))
            out.update({n: m.group(1) for n in range(i + 1, end + 1)})
    return out


def test_asm_owners_is_exactly_each_functions_label_up_to_its_func_end(llvm, tool):
    cases = [_case(W, FP4, FP4, 8, 8), _case(W, FP4, FP4, 16, 16), _case(W, FP8, FP4, 16, 8)]
    names = {c.function for c in cases}
    asm = _llc(tool, emit.module(cases).text, "-O0", "-global-isel=0")
    expected = _owned_ranges(asm, names)
    assert set(expected.values()) == names
    assert V.asm_owners(asm, names).as_dict() == expected


# A shader that returns the product ends with the matrix instruction itself (no store, no
# s_endpgm; the epilog is the driver's): with -asm-verbose=0 the rejected line is the last
# line of the function, right before `.Lfunc_endN:`.
RETURNING = """define amdgpu_ps <8 x float> @{name}(<8 x float> %c, <{w} x i32> %a, <{w} x i32> %b) {{
  %r = call <8 x float> @llvm.amdgcn.wmma.f32.16x16x128.f8f6f4.v8f32.v{w}i32.v{w}i32(i32 4, <{w} x i32> %a, i32 4, <{w} x i32> %b, i16 0, <8 x float> %c)
  ret <8 x float> %r
}}
declare <8 x float> @llvm.amdgcn.wmma.f32.16x16x128.f8f6f4.v8f32.v{w}i32.v{w}i32(i32, <{w} x i32>, i32, <{w} x i32>, i16, <8 x float>)
"""


def test_mc_error_on_the_last_line_of_a_function_is_that_functions_not_stray(llvm_22_1_8, tool):
    ir = RETURNING.format(name="wide", w=16) + RETURNING.format(name="exact", w=8)
    asm = _llc(tool, ir, "-O2", "-asm-verbose=0")
    stderr = _mc(tool, asm)
    errors = V.located_errors(stderr)
    lines = asm.splitlines()
    assert len(errors) == 1, stderr
    line = errors[0][0]
    assert lines[line - 1].strip().startswith(f"{ISA} v[0:7], v[8:23], v[24:39]")
    assert lines[line] == ".Lfunc_end0:"  # the boundary this test is about
    assert lines[line - 3] == "wide:" and lines[line - 2].lstrip().startswith("s_setreg")
    found, stray = V.mc_rejections(stderr, asm, {"wide", "exact"})
    assert found == {"wide": f"{TUPLE_FP4}: {lines[line - 1].strip()}"}
    assert stray == []


# ---- what follows `.Lfunc_endN:` belongs to no function --------------------------------------


def test_mc_error_in_the_trailing_sections_is_stray_not_the_last_functions(llvm_22_1_8, tool):
    """llc's text for gfx1250 assembled for its sibling gfx1251: besides the over-wide tuple,
    llvm-mc rejects the `.amd_amdgpu_isa` line at the very end of the file, after every
    function's end. That error is no function's."""
    wide, exact = _case(W, FP4, FP4, 16, 16), _case(W, FP4, FP4, 8, 8)
    asm = _llc(tool, emit.module([wide, exact]).text, "-O0", "-global-isel=0")
    stderr = _mc(tool, asm, cpu="gfx1251")
    lines = asm.splitlines()
    located = V.located_errors(stderr)
    assert [m for _, _, m in located] == [TUPLE_FP4, "target id must match options"]
    last = located[-1][0]
    assert last == len(lines) and lines[-1] == '\t.amd_amdgpu_isa "amdgcn----gfx1250"'
    assert last > max(i for i, l in enumerate(lines, 1) if l.startswith(".Lfunc_end"))
    found, stray = V.mc_rejections(stderr, asm, {wide.function, exact.function})
    assert set(found) == {wide.function} and found[wide.function].startswith(f"{TUPLE_FP4}: {ISA} v[")
    assert stray == ['target id must match options: .amd_amdgpu_isa "amdgcn----gfx1250"']


def test_mc_error_in_a_function_outside_the_set_is_not_charged_to_the_one_before_it(llvm_22_1_8, tool):
    """Two real functions; only the first is one of ours. The second one's rejected tuple lies
    after the first one's `.Lfunc_end0:`, so it is stray, not the first function's."""
    ours, other = _case(W, FP4, FP4, 8, 8), _case(W, FP4, FP4, 16, 16)
    asm = _llc(tool, emit.module([ours, other]).text, "-O0", "-global-isel=0")
    stderr = _mc(tool, asm)
    located = V.located_errors(stderr)
    assert [m for _, _, m in located] == [TUPLE_FP4]
    found, stray = V.mc_rejections(stderr, asm, {ours.function})
    assert found == {}
    assert len(stray) == 1 and stray[0].startswith(f"{TUPLE_FP4}: {ISA} v[")
    assert V.asm_owners(asm, {ours.function}).as_dict() == _owned_ranges(asm, {ours.function})


# ---- an IR parse error belongs to the function on its line -----------------------------------


def test_an_ir_parse_error_names_the_function_on_its_line(llvm14):
    """Debian's llvm-14 cannot parse `ptr addrspace(1)`: its llc stops at line 1, the `define`
    of the module's first function. That function cannot be read by this build (unsupported);
    nothing about the line before it (the header) makes it a crash."""
    cases = [_case(W, FP4, FP4, 8, 8), _case(W, FP4, FP4, 16, 16)]
    tc = Toolchain(llvm14, "test")
    gen = tc.run("llc", ["-O0", "-mtriple=amdgcn", "-mcpu=gfx1250", "-global-isel=0"], emit.module(cases).text)
    assert "<stdin>:1:" in gen.stderr and "error: expected type" in gen.stderr
    assert [(line, message) for line, _, message in V.located_errors(gen.stderr)] == [(1, "expected type")]
    out = Runner(tc, 1).compile(cases, "sdag")
    assert {fn: (v.verdict, v.detail) for fn, v in out.items()} == {
        c.function: (V.UNSUPPORTED, "llc cannot read this IR: expected type") for c in cases
    }
