"""Run the single-instruction NVPTX mma cases (harness.nvptx.mma) through the real tools.

Per case and selector: llc (the case's -O level and selector) on the kernel's IR, then the
target's assembler on llc's text (ptxas -arch=<cpu>). Verdicts are the harness's one set
(harness.tools.verdicts.ALL):

  pass             llc printed the PTX and ptxas accepted it
  mc-reject        ptxas rejected llc's text: `mc-reject` means "the assembler that closes llc's
                   text (llvm-mc for AMDGPU, ptxas for NVPTX) rejected it"; the detail names ptxas
  verifier-reject  llc's IR verifier rejected the call (wrong number or type of fragments)
  cannot-select / crash / timeout   as for AMDGPU
  unsupported      a selector the target lacks (llc's own message, e.g. GlobalISel on NVPTX: "target
                   does not support generation of this file type"), a build without NVPTX or the
                   CPU, IR the build cannot read, or no ptxas to close the PTX

`details["registers"]` is {"a", "b", "c", "d"}: the registers inside each brace group of the mma
instruction in llc's PTX, read back (not the table's); `details["instruction"]` is that
instruction on one line; `details["expected_registers"]` is the table's. A pass whose registers
or mnemonic differ from the table says so at the start of its detail.

`try_nvptx(args)` and `run_nvptx(args)` serve `harness try` and `harness run`; `record()` and
`table()` format their results.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
import tempfile
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from harness.errors import InputError
from harness.nvptx import mma
from harness.nvptx.ptx import find_ptxas, signal_name
from harness.specs import selection
from harness.targets import Target
from harness.tools import commands, toolchain
from harness.tools import verdicts as V
from harness.tools.commands import Selector
from harness.tools.toolchain import Toolchain, ToolRun
from harness.tools.verdicts import Verdict

SELECTORS = mma.SELECTORS
# An mma instruction in PTX, single- or multi-line: mnemonic, then brace groups up to ';'.
_INSTRUCTION = re.compile(r"(mma\.sync\.aligned\.[\w.]+)\s+((?:\{[^}]*\}\s*,?\s*)+);")
_GROUP = re.compile(r"\{([^}]*)\}")
_NOT_VERIFIED = "input module cannot be verified"


@dataclass(frozen=True)
class Outcome:
    """One NVPTX case's verdict under one selector (harness.tools.runner.Outcome's NVPTX twin)."""

    case: mma.MmaCase
    selector: Selector
    verdict: Verdict


def instruction(ptx: str) -> tuple[str, list[list[str]]] | None:
    """(mnemonic, operand groups) of the first mma instruction in the PTX text, or None."""
    m = _INSTRUCTION.search(ptx)
    if not m:
        return None
    groups = [[r.strip() for r in g.split(",") if r.strip()] for g in _GROUP.findall(m.group(2))]
    return m.group(1), groups


def registers(ptx: str) -> dict[str, int]:
    """Registers per operand group of the first mma instruction: {"a", "b", "c", "d"} (PTX prints
    D, A, B, C); {} when there is none."""
    found = instruction(ptx)
    if not found or len(found[1]) != 4:
        return {}
    d, a, b, c = (len(g) for g in found[1])
    return {"a": a, "b": b, "c": c, "d": d}


def instruction_text(ptx: str) -> str:
    found = instruction(ptx)
    if not found:
        return ""
    return f"{found[0]} " + ", ".join("{" + ", ".join(g) + "}" for g in found[1]) + ";"


def build_support(tc: Toolchain, target: Target, cpus: Iterable[str]) -> dict[str, str]:
    """CPU -> why this build cannot compile for it ("" when it can)."""
    if target.registered not in tc.targets:
        return {cpu: f"this LLVM build has no {target.registered} target" for cpu in cpus}
    if not target.reads_ir(tc):
        return {cpu: "this LLVM build cannot read the kernels' IR (ptx_kernel, opaque pointers)" for cpu in cpus}
    known = tc.cpus(target.registered)
    return {cpu: "" if cpu in known else f"this LLVM build does not know CPU {cpu}" for cpu in cpus}


def _llc_failed(case: mma.MmaCase, selector: Selector, llc: ToolRun) -> Verdict:
    target = case.target
    if llc.timed_out:
        return Verdict(V.TIMEOUT, "llc timed out", [llc])
    if not target.has_selector(selector) and target.no_selector_message and target.no_selector_message in llc.stderr:
        return Verdict(V.UNSUPPORTED, V.first_error(llc.stderr), [llc])
    if _NOT_VERIFIED in llc.stderr:
        # The verifier's message, the value it names (here the intrinsic's declaration), then llc's error.
        lines = [l for l in llc.stderr.splitlines() if l.strip()]
        before = lines[: next(i for i, l in enumerate(lines) if _NOT_VERIFIED in l)]
        facts = {"message": before[0] if before else "", "value": before[1] if len(before) > 1 else ""}
        return Verdict(V.VERIFIER_REJECT, "\n".join(before) or V.first_error(llc.stderr), [llc], {"verifier": facts})
    located = V.located_errors(llc.stderr)
    if located:
        return Verdict(V.UNSUPPORTED, f"llc cannot read this IR: {located[0][2]}", [llc])
    kind, _, reason = V.llc_failure(llc.stderr)
    return Verdict(kind, reason, [llc])


def run_one(case: mma.MmaCase, selector: Selector, tc: Toolchain, ptxas: str, why: str = "") -> Verdict:
    """One case under one selector (`why`: the build cannot compile for its CPU)."""
    if why:
        return Verdict(V.UNSUPPORTED, why)
    target = case.target
    llc = tc.run("llc", list(commands.llc(target.triple, case.cpu, case.opt, selector).args), mma.kernel_ir(case.subject))
    if not llc.ok:
        return _llc_failed(case, selector, llc)
    details: dict = {"registers": registers(llc.stdout), "instruction": instruction_text(llc.stdout)}
    subject = case.subject
    mismatch = ""
    if isinstance(subject, mma.Variant) and subject.in_contract:
        details["expected_registers"] = subject.registers
        found = instruction(llc.stdout)
        count = llc.stdout.count("mma.sync.")
        if not found or found[0] != subject.mnemonic or details["registers"] != subject.registers or count != 1:
            # No verdict comes from PTX that lacks the instruction the intrinsic stands for, or
            # holds another (or several): the harness says so instead of calling it a pass.
            raise InputError(
                f"llc -mcpu={case.cpu} -O{case.opt} printed {count} mma.sync, the first "
                f"{found[0] if found else 'none'} with registers {details['registers']}, where "
                f"{subject.name} is one {subject.mnemonic} with {subject.registers}"
            )
    if not ptxas:
        return Verdict(
            V.UNSUPPORTED, mismatch + "no ptxas to close the PTX (give --ptxas, set $PTXAS or put it on PATH)", [llc], details
        )
    with tempfile.TemporaryDirectory(prefix="harness-mma-") as tmp:
        path = Path(tmp) / f"{case.function}.ptx"
        path.write_text(llc.stdout)
        argv = list(target.assembler(case.cpu, str(path), "").argv)
        closed = toolchain.run_tool([ptxas, *argv[1:]], timeout=tc.timeout)
    tools = [llc, closed]
    if closed.timed_out:
        return Verdict(V.TIMEOUT, mismatch + f"{target.assembler_tool} timed out", tools, details)
    if closed.returncode is not None and closed.returncode < 0:
        return Verdict(V.CRASH, mismatch + f"{target.assembler_tool} killed by {signal_name(closed.returncode)}", tools, details)
    if not closed.ok:
        message = V.first_error(closed.stderr).replace(str(path), "<ptx>") or f"exit status {closed.returncode}, no message"
        if not message.startswith(target.assembler_tool):
            message = f"{target.assembler_tool}: {message}"
        return Verdict(V.MC_REJECT, mismatch + message, tools, details)
    return Verdict(V.PASS, mismatch.rstrip("; "), tools, details)


def run(
    cases: list[mma.MmaCase], tc: Toolchain, ptxas: str, selectors: tuple[Selector, ...] = SELECTORS, jobs: int | None = None
) -> list[Outcome]:
    """Every case under every selector, in order; a build without NVPTX or a CPU gives unsupported."""
    support: dict[tuple[str, str], str] = {}
    for target in {c.target for c in cases}:
        cpus = sorted({c.cpu for c in cases if c.target == target})
        support.update({(target.name, cpu): why for cpu, why in build_support(tc, target, cpus).items()})
    work = [(c, s) for c in cases for s in selectors]
    with ThreadPoolExecutor(max_workers=jobs or os.cpu_count() or 1) as pool:
        verdicts = list(pool.map(lambda cs: run_one(cs[0], cs[1], tc, ptxas, support[cs[0].target.name, cs[0].cpu]), work))
    return [Outcome(c, s, v) for (c, s), v in zip(work, verdicts)]


# ---- records and tables ---------------------------------------------------------------------------


def record(outcome: Outcome, with_tools: bool = False) -> dict:
    """The JSON record of one outcome. It carries harness.reports.report's AMDGPU keys with neutral values
    (fmt "", widths 0) so merged `run --json` documents keep one schema."""
    c = outcome.case
    out = {
        "function": c.function,
        "intrinsic": c.intrinsic.name,
        "target": c.target.name,
        "cpu": c.cpu,
        "fmt_a": "",
        "fmt_b": "",
        "width_a": 0,
        "width_b": 0,
        "required_a": 0,
        "required_b": 0,
        "opt": c.opt,
        "pipeline": c.pipeline,
        "selector": outcome.selector,
        "class": c.file_class,
        "verdict": outcome.verdict.verdict,
        "detail": outcome.verdict.detail,
    }
    out.update(outcome.verdict.details)
    if with_tools:
        out["tools"] = [t.summary() for t in outcome.verdict.tools]
    return out


def counts(outcomes: list[Outcome]) -> dict[tuple[str, str, str], dict[str, int]]:
    """(intrinsic, cpu, selector) -> verdict -> count."""
    rows: dict[tuple[str, str, str], dict[str, int]] = {}
    for o in outcomes:
        row = rows.setdefault((o.case.intrinsic.name, o.case.cpu, o.selector), dict.fromkeys(V.ALL, 0))
        row[o.verdict.verdict] += 1
    return rows


def table(outcomes: list[Outcome]) -> str:
    """Rows of intrinsic × CPU × selector, one column per verdict that occurred."""
    rows = counts(outcomes)
    used = [v for v in V.ALL if any(r[v] for r in rows.values())]
    header = ["intrinsic", "cpu", "selector", *used, "total"]
    body = [[n, cpu, sel, *(str(r[v]) for v in used), str(sum(r.values()))] for (n, cpu, sel), r in sorted(rows.items())]
    totals = [str(sum(r[v] for r in rows.values())) for v in used]
    body.append(["all", "", "", *totals, str(sum(sum(r.values()) for r in rows.values()))])
    widths = [max(len(row[i]) for row in [header, *body]) for i in range(len(header))]
    fmt = lambda row: "  ".join(c.ljust(w) if i < 3 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths)))
    rule = "  ".join("-" * w for w in widths)
    return "\n".join([fmt(header), rule, *map(fmt, body[:-1]), rule, fmt(body[-1])])


# ---- the command line -----------------------------------------------------------------------------

_AMDGPU_ONLY = (("fmt_a", "--fmt-a"), ("fmt_b", "--fmt-b"), ("width_a", "--width-a"), ("width_b", "--width-b"))


def _tools(args) -> tuple[Toolchain, str]:
    tc = toolchain.discover(getattr(args, "llvm_bin", None), getattr(args, "timeout", toolchain.DEFAULT_TIMEOUT))
    return tc, find_ptxas(getattr(args, "ptxas", None))


def try_nvptx(args) -> dict | None:
    """`harness try`'s JSON record when `--intrinsic` names an NVPTX mma (entry or no-variant
    name, with or without `llvm.nvvm.`), else None. AMDGPU-only flags are bad input here."""
    names = getattr(args, "intrinsic", None) or []
    subject = mma.lookup(names[0]) if len(names) == 1 else None
    if subject is None:
        return None
    for attr, flag in _AMDGPU_ONLY + (("narrowing", "--narrowing"),):
        if getattr(args, attr, None):
            raise InputError(f"{flag} does not apply to the NVPTX intrinsic {subject.name}")
    if getattr(args, "arg", None):
        raise InputError(f"--arg does not apply to the NVPTX intrinsic {subject.name}")
    if getattr(args, "pipeline", None) not in (None, "none"):
        raise InputError(f"--pipeline does not apply to the NVPTX intrinsic {subject.name}")
    cpu = getattr(args, "cpu", None) or subject.target.default_cpu
    if cpu not in subject.cpus:
        raise InputError(f"--cpu: {subject.name} runs on {', '.join(subject.cpus)}, not {cpu}")
    opt = getattr(args, "opt", None) or 0
    if opt not in mma.OPT_LEVELS:
        raise InputError(f"-O: the NVPTX mma cases run at -O{' and -O'.join(map(str, mma.OPT_LEVELS))}, not -O{opt}")
    selector = Selector(getattr(args, "selector", None) or Selector.SDAG)
    tc, ptxas = _tools(args)
    case = mma.MmaCase(subject, cpu, opt)
    outcome = run([case], tc, ptxas, (selector,), jobs=1)[0]
    out = record(outcome, with_tools=True)
    out["llvm"] = tc.version
    return out


def select(args) -> tuple[list[mma.MmaCase], tuple[Selector, ...]]:
    """The NVPTX single-instruction cases `harness run`'s flags select, and the selectors.

    --intrinsic keeps the named NVPTX intrinsics (none when it names only AMDGPU ones), -O the
    level, --filter globs over the kernel name (reject_* are the rejection cases), --selector one
    selector, --shard K/N the same deterministic share as the AMDGPU cases. --fmt-a/-b,
    --width-a/-b and a --pipeline other than none select AMDGPU cases only: nothing here. The cases
    are those of the specs' `mma` sections (--spec: only those files').
    """
    if any(getattr(args, attr, None) is not None for attr, _ in _AMDGPU_ONLY):
        return [], ()
    if getattr(args, "pipeline", None) not in (None, "none"):
        return [], ()
    chosen = mma.spec_cases(args.cases, getattr(args, "spec", None)) if getattr(args, "cases", None) else mma.cases()
    names = getattr(args, "intrinsic", None)
    if names:
        wanted = {found.name for n in names if (found := mma.lookup(n)) is not None}
        chosen = [c for c in chosen if c.intrinsic.name in wanted]
    if getattr(args, "opt", None) is not None:
        chosen = [c for c in chosen if c.opt == args.opt]
    globs = getattr(args, "filter", None) or []
    if globs:
        chosen = [c for c in chosen if any(fnmatch.fnmatchcase(c.function, g) for g in globs)]
    shard = getattr(args, "shard", None)
    if shard:
        chosen = [c for c in chosen if selection.in_shard(c, *shard)]
    selectors = (Selector(args.selector),) if getattr(args, "selector", None) else SELECTORS
    return chosen, selectors


def run_nvptx(args) -> list[Outcome]:
    """`harness run`'s NVPTX outcomes for its flags ([] when they select no NVPTX case)."""
    chosen, selectors = select(args)
    if not chosen:
        return []
    tc, ptxas = _tools(args)
    return run(chosen, tc, ptxas, selectors, getattr(args, "jobs", None))


def try_text(record_: dict) -> str:
    """`harness try`'s text form of a try_nvptx record."""
    lines = [
        f"{record_['function']} [{record_['selector']}, -O{record_['opt']}, {record_['cpu']}, LLVM {record_['llvm']}]",
        f"verdict: {record_['verdict']}",
    ]
    if record_["detail"]:
        lines.append("detail:  " + record_["detail"].replace("\n", "\n         "))
    for key in ("instruction", "registers", "expected_registers", "verifier"):
        if record_.get(key):
            lines.append(f"{key}: {json.dumps(record_[key])}")
    for t in record_.get("tools", []):
        lines.append(f"  $ {' '.join(t['argv'])}  -> {'timeout' if t['timed_out'] else t['returncode']}")
    return "\n".join(lines)
