"""Register tuples read out of matrix instructions whose modifiers print as bracketed lists
(`op_sel:[1,0,0]`, `neg_lo:[1,0,0]`, `neg:[1,1,1]`) or as words after the operands (`cbsz:4`,
`matrix_a_fmt:MATRIX_FMT_FP4`, `matrix_a_reuse`, `clamp`), against the widths the ISA gives.

The lines are llc 22.1.8's own (and two of llvm-objdump's, with their `// address: encoding`
tail), printed for the `harness try` flags beside each. The widths are computed here from the
instruction's shape, not from harness/targets: a matrix of R rows and K columns of b-bit elements
takes R*K*b / (32 * lanes) registers per lane (CDNA: 64 lanes; RDNA: 32, or 64 in wave64);
a sparse A half that; gfx11's WMMA repeats A and B in both halves of the wave (16 lanes' worth)
and gives each 16-bit element of D a register of its own; a scale or an index is one register
per 32 bits. A scaled MFMA's A and B formats are its `cbsz`/`blgp` fields and a gfx1250 WMMA's
its `matrix_*_fmt`, in the ISA's format codes (0 FP8, 1 BF8, 2 FP6, 3 BF6, 4 FP4).
"""

from __future__ import annotations

import re

import pytest

from harness.core import verdicts as V

FORMAT_BITS = {0: 8, 1: 8, 2: 6, 3: 6, 4: 4}  # the ISA's format codes
NAMED_FORMATS = {"FP8": 0, "BF8": 1, "FP6": 2, "BF6": 3, "FP4": 4}


def regs(rows: int, k: int, bits: int, lanes: int) -> int:
    return rows * k * bits // (32 * lanes)


def shape(mnemonic: str) -> tuple[int, int, int]:
    m = re.search(r"_(\d+)x(\d+)x(\d+)", mnemonic)
    assert m, mnemonic
    return int(m.group(1)), int(m.group(2)), int(m.group(3))


def fields(line: str) -> dict[str, str]:
    """The `name:value` modifiers of a line (the ISA's fields, as the assembler spells them)."""
    return dict(re.findall(r"\b(cbsz|blgp|matrix_[ab]_fmt):(\w+)", line))


def isa_widths(line: str, kind: str, extra: tuple[int, ...]) -> list[int]:
    """D, A, B, C (where printed) and then `extra` (scales, an index), per the ISA.

    kind: `mfma` (CDNA, wave64), `smfmac` (sparse; C tied to D, the index printed in its place),
    `wmma11` (gfx11), `wmma` (gfx12 and gfx1250 in wave32), `wmma64` (gfx12 in wave64), `swmmac`."""
    mnemonic = line.split()[0]
    m, n, k = shape(mnemonic)
    lanes = 64 if kind in ("mfma", "smfmac", "wmma64") else 32
    f = fields(line)
    # The sources' type is the mnemonic's last word (f8f6f4: the format fields say).
    a_bits = b_bits = {"f64": 64, "f16": 16, "bf16": 16, "iu8": 8, "iu4": 4}.get(mnemonic.rsplit("_", 1)[1], 0)
    if "cbsz" in f and "f8f6f4" in mnemonic:
        a_bits, b_bits = FORMAT_BITS[int(f["cbsz"])], FORMAT_BITS[int(f.get("blgp", "0"))]
    if "matrix_a_fmt" in f:
        a_bits = FORMAT_BITS[NAMED_FORMATS[f["matrix_a_fmt"].removeprefix("MATRIX_FMT_")]]
        b_bits = FORMAT_BITS[NAMED_FORMATS[f["matrix_b_fmt"].removeprefix("MATRIX_FMT_")]]
    d_bits = 64 if mnemonic.startswith("v_mfma_f64") else 16 if re.match(r"v_s?wmmac?_(f16|bf16)_", mnemonic) else 32
    ab_lanes = 16 if kind == "wmma11" else lanes
    a = regs(m, k, a_bits, ab_lanes) // (2 if kind in ("smfmac", "swmmac") else 1)
    b = regs(n, k, b_bits, ab_lanes)
    d = regs(m, n, 32 if kind == "wmma11" else d_bits, lanes)
    return [d, a, b] + ([] if kind in ("smfmac", "swmmac") else [d]) + list(extra)


# (line as printed, kind, the registers after D, A, B, C: scales or the index; flags of `harness try`)
LINES = [
    (
        "\tv_mfma_f32_32x32x8_f16 a[0:15], v[0:1], v[2:3], a[0:15] cbsz:7 abid:15 blgp:7",
        "mfma",
        (),
        "mfma.f32.32x32x8f16 --cpu gfx942 --arg 3=7 --arg 4=15 --arg 5=7",
    ),
    (
        "\tv_mfma_f32_16x16x32_f16 a[0:3], v[0:3], v[4:7], a[0:3] cbsz:1 abid:2 blgp:3",
        "mfma",
        (),
        "mfma.f32.16x16x32.f16 --cpu gfx950 --arg 3=1 --arg 4=2 --arg 5=3",
    ),
    (
        "\tv_mfma_f64_16x16x4_f64 a[0:7], v[0:1], v[2:3], a[0:7] neg:[1,1,1]",
        "mfma",
        (),
        "mfma.f64.16x16x4f64 --cpu gfx950 --arg 5=7",
    ),
    (
        "\tv_mfma_scale_f32_16x16x128_f8f6f4 a[0:3], v[2:5], v[6:11], a[0:3], v16, v12 op_sel:[1,0,0] op_sel_hi:[1,1,0] cbsz:4 blgp:2",
        "mfma",
        (1, 1),
        "",
    ),
    (
        "\tv_mfma_f32_32x32x64_f8f6f4 a[0:15], v[2:5], v[6:13], a[0:15] cbsz:4",
        "mfma",
        (),
        "mfma.scale.f32.32x32x64.f8f6f4 --cpu gfx950 --fmt-a fp4 --fmt-b fp8 --arg 5=1 --arg 7=3",
    ),
    (
        "\tv_smfmac_f32_16x16x32_f16 v[4:7], v[0:1], v[8:11], v2 cbsz:7 abid:3",
        "smfmac",
        (1,),
        "smfmac.f32.16x16x32.f16 --cpu gfx950 --arg 4=7 --arg 5=3",
    ),
    (
        "\tv_wmma_f16_16x16x16_f16 v[7:14], v[15:22], v[23:30], v[7:14] op_sel:[0,0,1]",
        "wmma11",
        (),
        "wmma.f16.16x16x16.f16 --cpu gfx1100 --arg 3=true",
    ),
    (
        "\tv_wmma_i32_16x16x16_iu8 v[7:14], v[0:3], v[15:18], v[7:14] neg_lo:[1,0,0] clamp",
        "wmma11",
        (),
        "wmma.i32.16x16x16.iu8 --cpu gfx1100 --arg 0=true --arg 5=true",
    ),
    ("\tv_wmma_f32_16x16x16_f16 v[3:6], v[0:1], v[7:8], v[3:6]", "wmma64", (), "wmma.f32.16x16x16.f16.gfx1200w64 --cpu gfx1200"),
    (
        "\tv_swmmac_i32_16x16x32_iu8 v[7:14], v[0:1], v[2:5], v6 neg_lo:[1,0,0] clamp",
        "swmmac",
        (1,),
        "swmmac.i32.16x16x32.iu8 --cpu gfx1200 --arg 0=true --arg 6=true",
    ),
    (
        "\tv_wmma_f32_16x16x32_f16 v[8:15], v[0:7], v[16:23], v[8:15] matrix_a_reuse matrix_b_reuse neg_lo:[1,1,1] neg_hi:[1,1,1]",
        "wmma",
        (),
        "wmma.f32.16x16x32.f16 --cpu gfx1250 --arg 0=true --arg 2=true --arg 4=3 --arg 6=true --arg 7=true",
    ),
    (
        "\tv_wmma_i32_16x16x64_iu8 v[8:15], v[0:7], v[16:23], v[8:15] matrix_a_reuse neg_lo:[1,0,0] clamp",
        "wmma",
        (),
        "wmma.i32.16x16x64.iu8 --cpu gfx1250 --arg 0=true --arg 7=true --arg 5=true",
    ),
    (
        "\tv_wmma_f32_16x16x128_f8f6f4 v[10:17], v[18:29], v[30:45], v[10:17] matrix_a_fmt:MATRIX_FMT_FP6 "
        "matrix_b_fmt:MATRIX_FMT_BF8 neg_lo:[0,0,1]",
        "wmma",
        (),
        "wmma.f32.16x16x128.f8f6f4 --cpu gfx1250 --fmt-a fp6 --fmt-b bf8 --arg 4=1",
    ),
    (
        "\tv_wmma_scale_f32_16x16x128_f8f6f4 v[10:17], v[2:9], v[18:29], v[10:17], v30, v31 matrix_a_fmt:MATRIX_FMT_FP4 "
        "matrix_b_fmt:MATRIX_FMT_FP6 matrix_a_scale:MATRIX_SCALE_ROW1 matrix_b_scale:MATRIX_SCALE_ROW1 "
        "matrix_a_scale_fmt:MATRIX_SCALE_FMT_E4M3 matrix_b_scale_fmt:MATRIX_SCALE_FMT_E5M3 matrix_a_reuse",
        "wmma",
        (1, 1),
        "",
    ),
    (
        "\tv_swmmac_f32_16x16x64_f16 v[8:15], v[0:7], v[16:31], v32 neg_lo:[1,0,0] neg_hi:[1,0,0]",
        "swmmac",
        (1,),
        "swmmac.f32.16x16x64.f16 --cpu gfx1250 --arg 0=true",
    ),
    (
        "\tv_swmmac_i32_16x16x128_iu8 v[8:15], v[0:7], v[16:31], v[32:33] neg_lo:[1,0,0] clamp",
        "swmmac",
        (2,),
        "swmmac.i32.16x16x128.iu8 --cpu gfx1250 --arg 0=true --arg 8=true",
    ),
    (
        "\tv_swmmac_f16_16x16x64_f16 v[4:7], v[8:15], v[16:31], v0 matrix_b_reuse neg_lo:[0,1,0] neg_hi:[0,1,0]",
        "swmmac",
        (1,),
        "swmmac.f16.16x16x64.f16 --cpu gfx1250 --arg 2=true --arg 7=true",
    ),
    # llvm-objdump -d of the objects of two of the cases above.
    (
        "\tv_wmma_f32_16x16x32_f16 v[8:15], v[0:7], v[16:23], v[8:15] matrix_a_reuse neg_lo:[1,0,1] neg_hi:[1,0,1]"
        "// 000000000160: CC602508 BC222100",
        "wmma",
        (),
        "",
    ),
    (
        "\tv_mfma_f32_16x16x32_f16 a[0:3], v[0:3], v[4:7], a[0:3] cbsz:1 abid:2 blgp:3// 0000000000C4: D3D49100 64020900",
        "mfma",
        (),
        "",
    ),
]


def _parsed(line: str) -> tuple[str, list[str]]:
    mnemonic = line.split()[0]
    body = ["f:", "\ts_nop 0", line, "\ts_endpgm"]
    found = V.instruction(body, (mnemonic,))
    assert found is not None, line
    return found


@pytest.mark.parametrize("line, kind, extra, _flags", LINES, ids=[l[0].split()[0] + f"-{i}" for i, l in enumerate(LINES)])
def test_each_operand_of_a_modified_instruction_is_as_wide_as_the_isa_says(line, kind, extra, _flags):
    mnemonic, operands = _parsed(line)
    assert mnemonic == line.split()[0]
    # (Every operand a register or a tuple, as many as the ISA has: no modifier is left in an
    # operand, and no piece of a bracketed list is taken for one.)
    assert [V.tuple_width(o) for o in operands] == isa_widths(line, kind, extra), operands


@pytest.mark.parametrize("line, kind, extra, _flags", LINES[:4], ids=[l[0].split()[0] for l in LINES[:4]])
def test_the_a_and_b_tuples_of_a_modified_instruction(line, kind, extra, _flags):
    found = _parsed(line)
    widths = isa_widths(line, kind, extra)
    tuples = V.tuples_of(found)
    assert (V.tuple_width(tuples["a"]), V.tuple_width(tuples["b"])) == (widths[1], widths[2]), tuples


LIVE = [l for l in LINES if l[3]]


@pytest.mark.parametrize("line, kind, extra, flags", LIVE, ids=[l[3].split()[0] for l in LIVE])
def test_llc_22_prints_the_line_and_the_harness_reads_it_at_the_isa_widths(llvm_22_1_8, cli, tmp_path, line, kind, extra, flags):
    # The same case through real llc 22 now: its line is the one above (modifiers and all, so the
    # table stays llc's own), its verdict `pass` (the shape check read every tuple right), and
    # the A and B tuples the harness reports are as wide as the ISA says.
    keep = tmp_path / "keep"
    proc = cli("try", "--intrinsic", *flags.split(), "--selector", "sdag", "--no-object", "--json", "--keep", keep)
    assert proc.returncode == 0, proc.stderr[-2000:]
    import json

    got = json.loads(proc.stdout)
    printed = next(iter(sorted(keep.glob("*-llc.out")))).read_text()
    mnemonic = line.split()[0]
    live = next(l for l in printed.splitlines() if l.split()[:1] == [mnemonic])
    assert re.sub(r"[av]\[\d+:\d+\]|[av]\d+", "R", live) == re.sub(r"[av]\[\d+:\d+\]|[av]\d+", "R", line), live
    widths = isa_widths(live, kind, extra)
    assert [V.tuple_width(o) for o in _parsed(live)[1]] == widths
    assert got["verdict"] == "pass", got
    tuples = got["tuples"]["text"]
    assert (V.tuple_width(tuples["a"]), V.tuple_width(tuples["b"])) == (widths[1], widths[2]), tuples
