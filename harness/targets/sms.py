"""Every NVPTX target (SM) an LLVM build may list, with the PTX ISA version that introduced it.

One line per target: its name as `-mcpu` and `.target` take it, and the oldest PTX ISA version
that has it (the PTX ISA's `.target` directive notes: "Target sm_90a introduced in PTX ISA
version 8.0", ...; the `f` targets and sm_103/sm_121 with 8.8, sm_88 and sm_110 with 9.0).
Which targets have an `mma` row follows the ISA's rules for the three kinds of target
("Target ISA Notes", and the family rule `ptxas --help` states for `--gpu-name`):

- a baseline feature of sm_XY is on every target from sm_XY on, whatever its suffix;
- an `a` (architecture-specific) feature of sm_XYa is on sm_XYa and the family's later `a`
  targets (sm_121a); where the ISA makes it a family feature (PTX ISA 8.8 on, the `mma` kinds
  and block scaling that came with sm_120a), also on the family's `f` targets from sm_XY on
  (sm_120f, sm_121f), never on plain sm_120 or sm_121. The sparse block-scaled `.kind::mxf4`
  and `.kind::mxf4nvf4` are no family feature: ptxas 13.0 takes them on sm_120a and sm_121a and
  refuses them on sm_120f and sm_121f ("Sparse mma with block scale not supported on .target");
- the family of a target is its major version: sm_100, sm_101 and sm_103 are one family,
  sm_120 and sm_121 another.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class SM:
    name: str
    ptx: int  # the PTX ISA version that introduced the target, times ten (8.6 -> 86)

    @property
    def number(self) -> int:
        return int(re.sub(r"\D", "", self.name))

    @property
    def suffix(self) -> str:
        return self.name[-1] if self.name[-1] in "af" else ""

    @property
    def family(self) -> int:
        return self.number // 10


NVPTX_SMS: tuple[SM, ...] = (
    SM("sm_20", 20),
    SM("sm_21", 20),
    SM("sm_30", 30),
    SM("sm_32", 40),
    SM("sm_35", 31),
    SM("sm_37", 41),
    SM("sm_50", 40),
    SM("sm_52", 41),
    SM("sm_53", 42),
    SM("sm_60", 50),
    SM("sm_61", 50),
    SM("sm_62", 50),
    SM("sm_70", 60),
    SM("sm_72", 61),
    SM("sm_75", 63),
    SM("sm_80", 70),
    SM("sm_86", 71),
    SM("sm_87", 74),
    SM("sm_88", 90),
    SM("sm_89", 78),
    SM("sm_90", 78),
    SM("sm_90a", 80),
    SM("sm_100", 86),
    SM("sm_100a", 86),
    SM("sm_100f", 88),
    SM("sm_101", 86),
    SM("sm_101a", 86),
    SM("sm_101f", 88),
    SM("sm_103", 88),
    SM("sm_103a", 88),
    SM("sm_103f", 88),
    SM("sm_110", 90),
    SM("sm_110a", 90),
    SM("sm_110f", 90),
    SM("sm_120", 87),
    SM("sm_120a", 87),
    SM("sm_120f", 88),
    SM("sm_121", 88),
    SM("sm_121a", 88),
    SM("sm_121f", 88),
)

BY_NAME: dict[str, SM] = {s.name: s for s in NVPTX_SMS}


def has(min_sm: str, sm: str, family: bool = True) -> bool:
    """Whether target `sm` has a row whose oldest target is `min_sm` (the rules above); a row
    that is no family feature (`family` False) is on its family's `a` targets alone."""
    first, here = BY_NAME.get(min_sm), BY_NAME.get(sm)
    if first is None or here is None:
        return sm == min_sm
    if first.suffix == "a":
        kin = here.suffix in (("a", "f") if family else ("a",)) and here.family == first.family
        return sm == min_sm or (kin and here.number >= first.number)
    return here.number >= first.number


def ptx_feature(min_ptx: int, sm: str) -> str:
    """llc's -mattr for a row of PTX ISA `min_ptx` on `sm`: `+ptxNN` where the row is newer
    than the target (llc writes the target's own version otherwise, and refuses one older)."""
    here = BY_NAME.get(sm)
    return f"+ptx{min_ptx}" if here is not None and min_ptx > here.ptx else ""
