"""Every AMDGPU processor an LLVM build may list, with what its documents say about it.

One line per processor: its canonical name, its generation, the wave sizes it runs, the CPUs of
the row tables (`amdgpu_rows`) whose matrix instructions it has, the instructions it lacks of
theirs (by the type words in the intrinsic's name), and its other names. Sources, never llc's
output: LLVM's AMDGPUUsage processor tables ("AMDGPU Processors", "AMDGPU Generic Processors"
with their restrictions column) and the feature sets of GCNProcessors.td/AMDGPU.td that the
instruction predicates of VOP3PInstructions.td read (HasMAIInsts, isGFX908orGFX90A,
isGFX90APlus, isGFX940Plus, HasFP8Insts, HasXF32Insts, HasGFX950Insts, isGFX11Only,
isGFX12PlusNot12_50, isGFX125xOnly):

- wave64 only up to GFX9 (their generation features include FeatureWavefrontSize64); wave32 and
  wave64 on GFX10, GFX11 and GFX12 (the `wavefrontsize64` target feature); gfx1250 and gfx1251
  wave32 only (FeatureISAVersion12_50 has FeatureWavefrontSize32 and no wave64);
- gfx940 (LLVM 15-19) and gfx941 (LLVM 19) have gfx942's MFMA and SMFMAC (isGFX940Plus, FP8,
  XF32);
- gfx9-4-generic (gfx942 and gfx950; also gfx940 and gfx941 in the documents of the releases that
  had them): "FP8 and BF8 instructions, FP8 and BF8 conversion
  instructions, as well as instructions with XF32 format support are not available"; nor are
  gfx950's own (no FeatureGFX950Insts): it has what both gfx942 and gfx950 have, less FP8/BF8;
- every GFX11 processor has GFX11's WMMA (isGFX11Only), gfx11-generic too; gfx1201 and
  gfx12-generic have gfx1200's; gfx1251 is gfx1250 plus a DPP feature (FeatureDPALU_DPP).
"""

from __future__ import annotations

from dataclasses import dataclass

# AMDGPUUsage: "Generic processors require code object version 6 or above" (LLVM 19 writes 5 by
# default and refuses a generic -mcpu without this; from 22 on, 6 is the default).
GENERIC_FLAGS = ("--amdhsa-code-object-version=6",)


@dataclass(frozen=True)
class Processor:
    name: str  # canonical, as -mcpu takes it
    generation: str
    waves: tuple[int, ...]  # wave sizes it runs, the default first
    like: tuple[str, ...] = ()  # row-table CPUs: it has the matrix instructions all of these have
    lacks: tuple[str, ...] = ()  # type words of intrinsic names it lacks among those (fp8, bf8)
    aliases: tuple[str, ...] = ()

    @property
    def wave64_only(self) -> bool:
        return self.waves == (64,)


W64, W32_64, W32 = (64,), (32, 64), (32,)
P = Processor

AMDGPU_PROCESSORS: tuple[Processor, ...] = (
    P("generic", "GCN", W64),
    P("generic-hsa", "GCN", W64),
    P("gfx600", "GFX6", W64, aliases=("tahiti",)),
    P("gfx601", "GFX6", W64, aliases=("pitcairn", "verde")),
    P("gfx602", "GFX6", W64, aliases=("hainan", "oland")),
    P("gfx700", "GFX7", W64, aliases=("kaveri",)),
    P("gfx701", "GFX7", W64, aliases=("hawaii",)),
    P("gfx702", "GFX7", W64),
    P("gfx703", "GFX7", W64, aliases=("kabini", "mullins")),
    P("gfx704", "GFX7", W64, aliases=("bonaire",)),
    P("gfx705", "GFX7", W64),
    P("gfx801", "GFX8", W64, aliases=("carrizo",)),
    P("gfx802", "GFX8", W64, aliases=("iceland", "tonga")),
    P("gfx803", "GFX8", W64, aliases=("fiji", "polaris10", "polaris11")),
    P("gfx805", "GFX8", W64, aliases=("tongapro",)),
    P("gfx810", "GFX8", W64, aliases=("stoney",)),
    P("gfx9-generic", "GFX9", W64),
    P("gfx900", "GFX9", W64),
    P("gfx902", "GFX9", W64),
    P("gfx904", "GFX9", W64),
    P("gfx906", "GFX9", W64),
    P("gfx908", "GFX9", W64, like=("gfx908",)),
    P("gfx909", "GFX9", W64),
    P("gfx90a", "GFX9", W64, like=("gfx90a",)),
    P("gfx90c", "GFX9", W64),
    P("gfx9-4-generic", "GFX9.4", W64, like=("gfx942", "gfx950"), lacks=("fp8", "bf8")),
    P("gfx940", "GFX9.4", W64, like=("gfx942",)),
    P("gfx941", "GFX9.4", W64, like=("gfx942",)),
    P("gfx942", "GFX9.4", W64, like=("gfx942",)),
    P("gfx950", "GFX9.5", W64, like=("gfx950",)),
    P("gfx10-1-generic", "GFX10.1", W32_64),
    P("gfx1010", "GFX10.1", W32_64),
    P("gfx1011", "GFX10.1", W32_64),
    P("gfx1012", "GFX10.1", W32_64),
    P("gfx1013", "GFX10.1", W32_64),
    P("gfx10-3-generic", "GFX10.3", W32_64),
    P("gfx1030", "GFX10.3", W32_64),
    P("gfx1031", "GFX10.3", W32_64),
    P("gfx1032", "GFX10.3", W32_64),
    P("gfx1033", "GFX10.3", W32_64),
    P("gfx1034", "GFX10.3", W32_64),
    P("gfx1035", "GFX10.3", W32_64),
    P("gfx1036", "GFX10.3", W32_64),
    P("gfx11-generic", "GFX11", W32_64, like=("gfx1100",)),
    P("gfx1100", "GFX11", W32_64, like=("gfx1100",)),
    P("gfx1101", "GFX11", W32_64, like=("gfx1100",)),
    P("gfx1102", "GFX11", W32_64, like=("gfx1100",)),
    P("gfx1103", "GFX11", W32_64, like=("gfx1100",)),
    P("gfx1150", "GFX11.5", W32_64, like=("gfx1100",)),
    P("gfx1151", "GFX11.5", W32_64, like=("gfx1100",)),
    P("gfx1152", "GFX11.5", W32_64, like=("gfx1100",)),
    P("gfx1153", "GFX11.5", W32_64, like=("gfx1100",)),
    P("gfx12-generic", "GFX12", W32_64, like=("gfx1200",)),
    P("gfx1200", "GFX12", W32_64, like=("gfx1200",)),
    P("gfx1201", "GFX12", W32_64, like=("gfx1200",)),
    P("gfx1250", "GFX12.5", W32, like=("gfx1250",)),
    P("gfx1251", "GFX12.5", W32, like=("gfx1250",)),
)

BY_NAME: dict[str, Processor] = {p.name: p for p in AMDGPU_PROCESSORS}
ALIASES: dict[str, str] = {a: p.name for p in AMDGPU_PROCESSORS for a in p.aliases}
GENERATIONS: tuple[str, ...] = tuple(dict.fromkeys(p.generation for p in AMDGPU_PROCESSORS))


def canonical(name: str) -> str:
    """A processor's canonical name (an alias's processor; any other name as it is)."""
    return ALIASES.get(name, name)


def has(cpus: tuple[str, ...], intrinsic_name: str, processor: str) -> bool:
    """Whether `processor` has the instruction of an intrinsic the row tables give to `cpus`:
    every CPU it is like has it, and the name holds none of the type words it lacks."""
    p = BY_NAME.get(canonical(processor))
    if p is None or not p.like:
        return processor in cpus
    words = set(intrinsic_name.replace(".", " ").replace("_", " ").split())
    return all(c in cpus for c in p.like) and not words & set(p.lacks)


def runs_wave64(processor: str) -> bool:
    """Whether `processor` runs wave64 (a name the table lacks: as a GFX10+ one would)."""
    p = BY_NAME.get(canonical(processor))
    return 64 in p.waves if p else True


def representative(processor: str, cpus: tuple[str, ...]) -> str:
    """The row-table CPU whose mnemonics `processor` prints for an intrinsic of `cpus` (its
    first `like` CPU that has it), else the processor itself."""
    p = BY_NAME.get(canonical(processor))
    return next((c for c in p.like if c in cpus), processor) if p else processor


def is_generic(processor: str) -> bool:
    """A generic target (`generic`, `generic-hsa`, `gfx9-generic`, ...), not a chip."""
    return processor.startswith("generic") or processor.endswith("-generic")


def llc_flags(processor: str) -> tuple[str, ...]:
    """The llc flags a processor needs whatever the case: a generic target's code object version."""
    return GENERIC_FLAGS if canonical(processor).endswith("-generic") and processor in BY_NAME else ()
