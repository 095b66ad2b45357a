"""A tile kernel (harness.kernels.tiles) written again as CUDA C, for NVIDIA's compiler as a second
opinion (harness.gpu.second): the `mma.sync.aligned` as inline PTX, each lane loading its fragment
registers from the same places (harness.kernels.fragments, a planted fault included) with the same
packing (element 0 in the low bits), and storing D the same way; the kernel keeps the llc
kernel's name and parameters (A, B, C, D). Its slot tables are named after the kernel, so that
the kernels of one SM can share a translation unit.
"""

from __future__ import annotations

from harness.kernels import fragments
from harness.kernels.tiles import MEMORY_IR, Tile
from harness.targets.nvptx_rows import IR_REGISTER, Row

GROUPS = ("d", "a", "b", "c")  # the mma's brace groups, in the instruction's order
# C types of one element in memory (MEMORY_IR) and of one fragment register with its asm
# constraint (a .f32 register "f", a .f64 "d", every 32-bit pattern "r").
C_MEMORY = {"i8": "unsigned char", "i16": "unsigned short", "i32": "unsigned", "float": "float", "double": "double"}
C_REGISTER = {"float": ("float", "f"), "double": ("double", "d")}
_BITS_REGISTER = ("unsigned", "r")


def registers(row: Row, op: str) -> int:
    """Fragment registers per lane of the operand (the ISA's tables: Row.regs is D, A, B, C)."""
    return dict(zip(GROUPS, row.regs))[op]


def slots(tile: Tile, op: str) -> list[int]:
    """Per lane, then element, the slot of the operand's element: index into the row-major
    [P, rows, columns] array (tiles.MEMORY_TEXT), as the llc kernel's @<op>_idx holds it."""
    places = fragments.placement(tile.row, op, tile.plant)
    _, rows, cols = fragments.matrix_shape(tile.row, op)
    return [(p * rows + r) * cols + c for lane in places for p, r, c in lane]


def _memory(row: Row, op: str) -> str:
    return C_MEMORY[MEMORY_IR[fragments.ptx_type(row, op)]]


def _register(row: Row, op: str) -> tuple[str, str]:
    return C_REGISTER.get(IR_REGISTER[fragments.ptx_type(row, op)], _BITS_REGISTER)


def table_name(tile: Tile, op: str) -> str:
    """The operand's slot table: named after the kernel, so that kernels share a translation unit."""
    return f"{tile.name}_{op}_idx"


def _load(tile: Tile, op: str) -> tuple[list[str], list[str]]:
    """(lines, register names): the lane's elements of A, B or C packed into its registers."""
    row = tile.row
    ptx_type = fragments.ptx_type(row, op)
    per, bits = fragments.per_register(ptx_type), fragments.ELEMENT_BITS[ptx_type]
    ctype, _ = _register(row, op)
    source = op.upper()
    lines = [f"  const int* {op}i = {table_name(tile, op)} + lane * {fragments.elements(row, op)};"]
    names = [f"{op}{r}" for r in range(registers(row, op))]
    for r, name in enumerate(names):
        if per == 1:
            lines.append(f"  {ctype} {name} = {source}[{op}i[{r}]];")
            continue
        parts = []
        for j in range(per):
            part = f"(unsigned){source}[{op}i[{r * per + j}]]"
            part = f"({part} & {(1 << bits) - 1}u)" if bits < 8 else part
            parts.append(f"({part} << {j * bits})" if j else part)
        lines.append(f"  {ctype} {name} = {' | '.join(parts)};")
    return lines, names


def _mma(row: Row, names: dict[str, list[str]]) -> list[str]:
    """The inline PTX: D's registers as outputs, A's, B's and C's as inputs, one brace group each."""
    groups, n = [], 0
    for op in GROUPS:
        groups.append("{" + ", ".join(f"%{n + i}" for i in range(len(names[op]))) + "}")
        n += len(names[op])
    outputs = ", ".join(f'"={_register(row, "d")[1]}"({name})' for name in names["d"])
    inputs = ", ".join(f'"{_register(row, op)[1]}"({name})' for op in "abc" for name in names[op])
    return [
        f'  asm volatile("{row.mnemonic} {", ".join(groups)};"',
        f"               : {outputs}",
        f"               : {inputs});",
    ]


def _store(tile: Tile, names: list[str]) -> list[str]:
    """Each element of D's registers to its slot (a 16-bit element from its half of the register)."""
    row = tile.row
    per, bits = fragments.per_register(row.d), fragments.ELEMENT_BITS[row.d]
    lines = [f"  const int* di = {table_name(tile, 'd')} + lane * {fragments.elements(row, 'd')};"]
    for r, name in enumerate(names):
        if per == 1:
            lines.append(f"  D[di[{r}]] = {name};")
            continue
        for j in range(per):
            part = f"({name} >> {j * bits})" if j else name
            lines.append(f"  D[di[{r * per + j}]] = ({_memory(row, 'd')}){part};")
    return lines


def cuda_source(tile: Tile) -> str:
    """The kernel as CUDA C (deterministic text)."""
    row = tile.row
    body = ["  unsigned lane;", '  asm("mov.u32 %0, %%laneid;" : "=r"(lane));']
    names: dict[str, list[str]] = {}
    for op in "abc":
        lines, names[op] = _load(tile, op)
        body += lines
    names["d"] = [f"d{r}" for r in range(registers(row, "d"))]
    body.append(f"  {_register(row, 'd')[0]} {', '.join(names['d'])};")
    body += _mma(row, names) + _store(tile, names["d"])
    params = [f"const {_memory(row, op)}* {op.upper()}" for op in "abc"] + [f"{_memory(row, 'd')}* D"]
    plant = tile.plant.name if tile.plant else "none (the PTX ISA's tables)"
    tables = []
    for op in "abcd":
        cells = slots(tile, op)
        tables.append(f"__constant__ int {table_name(tile, op)}[{len(cells)}] = {{{', '.join(map(str, cells))}}};")
    return "\n".join(
        [
            f"// {row.name}: D = A*B + C on one warp, {row.mnemonic}; planted fault: {plant}",
            f"// harness gpu compare: NVIDIA's side of {tile.name} (nvcc -arch={tile.sm} -ptx)",
            "",
            *tables,
            "",
            f'extern "C" __global__ void {tile.name}({", ".join(params)}) {{',
            *body,
            "}",
            "",
        ]
    )
