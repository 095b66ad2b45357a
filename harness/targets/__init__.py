"""Targets as data: what the harness needs to know about a backend to compile a case for it and
close llc's text, with no `if target == ...` anywhere else.

A `Target` names its llc triple, the name `llc --version` lists it under, its CPUs, the
assembler that closes llc's text (a Command builder taking the CPU and the text's file), the
lit features that gate its files, and the instruction selectors llc has for it. A selector the
target lacks is still run (llc's own message is the evidence); when llc fails with the target's
`no_selector_message`, the verdict is `unsupported`.

Verdict names stay one set (harness.core.verdicts.ALL): `mc-reject` means "the assembler that closes
llc's text rejected it" — llvm-mc for AMDGPU, ptxas for NVPTX — so tables, merges and matrices
need no new column. The assembler's name is in the verdict's detail and its tool record.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from harness.core import commands
from harness.core.commands import Selector
from harness.targets import processors


@dataclass(frozen=True)
class Target:
    name: str  # short name: nvptx, amdgpu
    triple: str  # llc -mtriple
    registered: str  # the name `llc --version` lists under Registered Targets
    cpus: tuple[str, ...]  # CPUs the harness's cases run on, in order
    default_cpu: str  # `harness try` without --cpu
    assembler: Callable[[str, str, str], commands.Command]  # (cpu, file of llc's text, -mattr) -> the closing command
    assembler_tool: str  # the assembler's name (a lit feature when `assembler_optional`)
    assembler_optional: bool  # lit: closing runs under `%if <assembler_tool>` (ptxas may be absent)
    feature: str  # lit feature of the registered target
    selectors: tuple[Selector, ...]  # selectors llc has for this target
    no_selector_message: str = ""  # llc's message for a selector it lacks
    # IR the generated kernels rely on (calling convention, opaque pointers): a build whose opt
    # cannot read `ir_probe` cannot judge them, and lit's `ir_feature` says whether it can.
    ir_probe: str = ""
    ir_feature: str = ""
    # Where a build declares its intrinsics (include/llvm/IR/<header> beside bin/), their prefix,
    # and the matrix families: name prefixes after `intrinsic_prefix`, most specific first.
    intrinsic_header: str = ""
    intrinsic_prefix: str = ""
    matrix_families: tuple[str, ...] = ()
    matrix_mnemonics: tuple[str, ...] = ()  # how every matrix instruction's mnemonic starts
    stdin_name: str = "-"  # the file name under which the assembler reads llc's text on stdin
    objects: bool = True  # llc writes object files for this target (-filetype=obj)
    # How llc's text starts a function (a FileCheck pattern, {fn} its name), and whether the
    # matrix instruction prints each operand as a brace group on a line of its own (PTX).
    label: str = "{{{{^}}}}{fn}:"
    brace_groups: bool = False
    # A line only llc's text for this target has (the target directive): text with it and no
    # code for a function is llc's `no-code`; text without it is no llc text at all.
    text_marker: re.Pattern[str] = re.compile(r"(?!)")
    # llc flags a CPU needs whatever the case (AMDGPU's generic targets: their code object version).
    cpu_flags: Callable[[str], tuple[str, ...]] = lambda cpu: ()

    def family(self, name: str) -> str:
        """The matrix family of a full intrinsic name, or "" when it is not a matrix intrinsic."""
        rest = name.removeprefix(self.intrinsic_prefix)
        if rest == name:
            return ""
        return next((f for f in self.matrix_families if rest.startswith(f + ".")), "")

    def cpu_feature(self, cpu: str) -> str:
        return f"cpu-{cpu}"

    def requires(self, cpu: str) -> str:
        """The lit REQUIRES line's features for a file compiled for `cpu`."""
        extra = f", {self.ir_feature}" if self.ir_feature else ""
        return f"{self.feature}, {self.cpu_feature(cpu)}{extra}"

    def reads_ir(self, tc) -> bool:
        """Whether the build's opt parses the IR its kernels are written in (memoised per build)."""
        if not self.ir_probe:
            return True
        return tc._memo(
            ("ir", self.name), lambda: tc.tool("opt") != "" and tc.run("opt", ["-S", "-o", "/dev/null"], self.ir_probe).ok
        )

    def has_selector(self, selector: Selector) -> bool:
        return selector in self.selectors

    def __reduce__(self):
        """A target travels (to a worker process) by its name: there is one of each."""
        return _target_named, (self.name,)

    # ---- the command lines of this target's tools: the runner runs them, litgen writes them --
    def llc(self, cpu: str, opt: int, selector: Selector, obj: bool = False, features: str = "") -> commands.Command:
        llc = commands.llc(self.triple, cpu, opt, selector, obj, features)
        return commands.with_args(llc, *self.cpu_flags(cpu)) if self.cpu_flags(cpu) else llc

    def opt(self, cpu: str, pipeline: str, disable_verify: bool = False, features: str = "") -> commands.Command:
        return commands.opt(self.triple, cpu, pipeline, disable_verify, features)

    def closing(self, cpu: str, text_file: str = "-", features: str = "") -> commands.Command:
        """The assembler that closes llc's text (llvm-mc, ptxas), reading `text_file`."""
        return self.assembler(cpu, text_file, features)


def _llvm_mc(triple: str) -> Callable[[str, str, str], commands.Command]:
    def closing(cpu: str, path: str, features: str = "") -> commands.Command:
        return commands.with_args(commands.llvm_mc(triple, cpu, features), path)

    return closing


NVPTX = Target(
    name="nvptx",
    triple="nvptx64-nvidia-cuda",
    registered="nvptx64",
    cpus=("sm_80", "sm_89", "sm_90", "sm_90a", "sm_100a", "sm_120a"),  # oldest first
    default_cpu="sm_90",
    assembler=commands.ptxas,
    assembler_tool="ptxas",
    assembler_optional=True,
    feature="nvptx-registered-target",
    selectors=(Selector.SDAG,),
    # llc -global-isel=1 on NVPTX (LLVM 22): "llc: error: target does not support generation of this file type"
    no_selector_message="target does not support generation of this file type",
    ir_probe="define ptx_kernel void @k(ptr addrspace(1) %p) {\n  ret void\n}\n",
    ir_feature="nvptx-ptx-kernel",
    intrinsic_header="IntrinsicsNVPTX.h",
    intrinsic_prefix="llvm.nvvm.",
    matrix_families=("mma.sp", "mma.block.scale", "mma"),
    matrix_mnemonics=("mma.",),
    stdin_name="/dev/stdin",  # ptxas reads files only; /dev/stdin takes a pipe
    objects=False,  # llc: "target does not support generation of this file type"
    label="{{{{[ )]}}}}{fn}(",
    brace_groups=True,
    text_marker=re.compile(r"^\.target sm_\w+", re.M),
)

AMDGPU = Target(
    name="amdgpu",
    triple="amdgcn",
    registered="amdgcn",
    cpus=("gfx908", "gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1200", "gfx1250"),
    default_cpu="gfx1250",
    assembler=_llvm_mc("amdgcn"),
    assembler_tool="llvm-mc",
    assembler_optional=False,
    feature="amdgpu-registered-target",
    selectors=(Selector.SDAG, Selector.GISEL),
    intrinsic_header="IntrinsicsAMDGPU.h",
    intrinsic_prefix="llvm.amdgcn.",
    matrix_families=("mfma", "smfmac", "wmma", "swmmac"),
    matrix_mnemonics=("v_mfma", "v_smfmac", "v_wmma", "v_swmmac"),
    text_marker=re.compile(r"^\s*\.(?:amdgcn_target|amd_amdgpu_isa) \"", re.M),
    cpu_flags=processors.llc_flags,
)

TARGETS = {t.name: t for t in (NVPTX, AMDGPU)}


def _target_named(name: str) -> Target:
    return TARGETS[name]
