"""What every GPU kernel of the harness is, whatever its kind: the name its PTX file and .entry
carry, the SM it is built for, its LLVM IR and llc's flags, the mma instructions its PTX must
hold, and its entry in the manifest of a build (harness.gpu.build writes it, harness.gpu.check
reads it on the GPU machine). `gemm.GemmKernel` and `tiles.Tile` are the two kinds.
"""

from __future__ import annotations

import zlib
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar

TRIPLE = "nvptx64-nvidia-cuda"
LLC_OPT = 2
DEFAULT_SEED = 20240611
RUN_SM = "sm_90"  # the GPU the numerics run on (an H100/H200)


class Kernel(ABC):
    """One kernel of a build. Its kind says what it computes; `variant` names what it is built from
    (a gemm case, an mma row) and `plant` the wrong layout it has on purpose, if any."""

    kind: ClassVar[str]  # "gemm" or "tile": harness.gpu.kinds judges each its own way

    @property
    @abstractmethod
    def name(self) -> str:
        """The .entry name and the PTX file's stem: a PTX identifier, unique in a build."""

    @abstractmethod
    def ir(self) -> str:
        """The kernel's LLVM IR module (deterministic text)."""

    @property
    @abstractmethod
    def variant(self) -> str:
        """What the kernel is built from: the gemm case's name, the mma row's."""

    @abstractmethod
    def expected_mma(self) -> dict[str, int]:
        """PTX mnemonic -> how many mma instructions of it llc's PTX must hold."""

    @property
    @abstractmethod
    def sm(self) -> str:
        """The -mcpu of llc and -arch of ptxas."""

    @abstractmethod
    def entry(self, seed: int) -> dict:
        """What the manifest says of the kernel before it is built: its kind's keys with kernel,
        variant, plant, sm, ptx_only and the seed of its inputs (mixed from `seed`)."""

    @property
    @abstractmethod
    def plant(self) -> Any:
        """The wrong layout planted in it (with a `name`), or None."""

    @property
    def ptx_only(self) -> bool:
        """Whether it is built for an SM the GPU does not run: closed by ptxas, never run."""
        return False

    @property
    def mattr(self) -> str:
        """llc's -mattr (a row's PTX version where it needs one)."""
        return ""

    @property
    def label(self) -> str:
        """How tables name it: the variant, and the planted fault in brackets."""
        return self.variant + (f" [{self.plant.name}]" if self.plant else "")

    def llc_args(self) -> list[str]:
        return llc_args(self.sm, self.mattr)


def llc_args(sm: str, mattr: str = "") -> list[str]:
    """llc's flags for a kernel: -O2 for its SM, with the row's PTX version where it needs one."""
    return [f"-O{LLC_OPT}", f"-mtriple={TRIPLE}", f"-mcpu={sm}", *([f"-mattr={mattr}"] if mattr else [])]


def mixed_seed(seed: int, name: str) -> int:
    """The seed of one kernel's random inputs: the run's seed mixed with a name (the case's or
    the row's, so that a planted kernel gets the inputs of its correct twin)."""
    return (seed * 1_000_003 + zlib.crc32(name.encode())) % 2**32


@dataclass(frozen=True)
class Skipped:
    """A planted fault a kernel's layout cannot express (nothing in it to misplace): listed in
    the build's manifest and tables, never built."""

    variant: str
    plant: str
    why: str

    def record(self) -> dict:
        return {"variant": self.variant, "plant": self.plant, "why": self.why}
