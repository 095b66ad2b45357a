"""Run cases through the real tools in grouped modules and attribute results to functions.

Per group: one verifier run (llvm-as), then per selector one llc and one llvm-mc. A tool
failure that names a function removes that case and the rest are re-run; a failure that names
none splits the module into single-case modules, so a verdict is always one case's own.
"""

from __future__ import annotations

import os
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Callable

from harness import emit, verdicts as V
from harness.cases import Case, Group
from harness.toolchain import Toolchain, ToolRun
from harness.verdicts import Verdict


@dataclass(frozen=True)
class Outcome:
    case: Case
    selector: str
    verdict: Verdict


class Runner:
    def __init__(self, toolchain: Toolchain, jobs: int | None = None, progress: Callable[[int, int], None] | None = None):
        self.tc = toolchain
        self.jobs = jobs or os.cpu_count() or 1
        self.progress = progress

    # ---- support ----------------------------------------------------------------------------
    def unsupported(self, case: Case, intrinsics=()) -> str:
        """Why this build cannot run the case at all, or "".

        `intrinsics` names every intrinsic about to be asked for, so one probe answers for all.
        """
        intr = case.intrinsic
        if intr.triple not in self.tc.targets:
            return f"this LLVM build has no {intr.triple} target"
        if case.cpu not in self.tc.cpus(intr.triple):
            return f"this LLVM build does not know CPU {case.cpu}"
        wanted = {i.name: i for i in (*intrinsics, intr) if i.triple in self.tc.targets}
        return self.tc.intrinsic_support(emit.probe_declarations(wanted.values()))[intr.name]

    # ---- verifier ---------------------------------------------------------------------------
    def verify(self, cases: list[Case]) -> tuple[dict[str, Verdict], list[Case]]:
        """Verdicts for cases the IR verifier (or parser) rejects, and the cases that survive."""
        mod = emit.module(cases)
        run = self.tc.run("llvm-as", ["-o", os.devnull], mod.text)
        if run.ok:
            return {}, cases
        if run.timed_out and len(cases) == 1:
            return {cases[0].function: Verdict(V.TIMEOUT, "llvm-as timed out", [run])}, []
        diags = V.verifier_diagnostics(run.stderr)
        if diags:
            rejected = {fn: Verdict(V.VERIFIER_REJECT, text, [run]) for fn, text in diags.items()}
            return rejected, [c for c in cases if c.function not in rejected]
        if len(cases) > 1:
            return self._split(cases, self.verify)
        return {cases[0].function: Verdict(self._parse_failure_kind(run), _first_line(run.stderr), [run])}, []

    @staticmethod
    def _parse_failure_kind(run: ToolRun) -> str:
        if run.returncode is not None and run.returncode < 0:
            return V.CRASH
        if "does not verify" in run.stderr:
            return V.VERIFIER_REJECT
        return V.UNSUPPORTED  # the build cannot read this IR (e.g. invalid intrinsic signature)

    # ---- code generation --------------------------------------------------------------------
    def compile(self, cases: list[Case], selector: str) -> dict[str, Verdict]:
        """Verdict per function for llc (this selector) followed by llvm-mc on its text."""
        if not cases:
            return {}
        first = cases[0]
        llc = emit.llc_command(first, selector).split()[1:]
        mod = emit.module(cases)
        gen = self.tc.run("llc", llc, mod.text)
        if not gen.ok:
            return self._llc_failed(cases, selector, gen)
        mc = self.tc.run("llvm-mc", emit.mc_command(first).split()[1:], gen.stdout)
        names = {c.function for c in cases}
        rejected, stray = V.mc_rejections(mc.stderr, gen.stdout, names)
        if mc.timed_out or (not mc.ok and (stray or not rejected)):
            if len(cases) > 1:
                return self._split(cases, lambda one: (self.compile(one, selector), None))[0]
            kind = V.TIMEOUT if mc.timed_out else V.MC_REJECT
            return {first.function: Verdict(kind, _first_line(mc.stderr) or "llvm-mc failed", [gen, mc])}
        out = {fn: Verdict(V.MC_REJECT, detail, [gen, mc]) for fn, detail in rejected.items()}
        for c in cases:
            out.setdefault(c.function, Verdict(V.PASS, "", [gen, mc]))
        return out

    def _llc_failed(self, cases: list[Case], selector: str, gen: ToolRun) -> dict[str, Verdict]:
        if gen.timed_out:
            if len(cases) > 1:
                return self._split(cases, lambda one: (self.compile(one, selector), None))[0]
            return {cases[0].function: Verdict(V.TIMEOUT, "llc timed out", [gen])}
        diags = V.verifier_diagnostics(gen.stderr)
        if diags:
            out = {fn: Verdict(V.VERIFIER_REJECT, text, [gen]) for fn, text in diags.items()}
        else:
            kind, fn, reason = V.llc_failure(gen.stderr)
            names = {c.function for c in cases}
            if fn not in names and len(cases) == 1:
                fn = cases[0].function
            if fn not in names:
                return self._split(cases, lambda one: (self.compile(one, selector), None))[0]
            out = {fn: Verdict(kind, reason, [gen])}
        out.update(self.compile([c for c in cases if c.function not in out], selector))
        return out

    @staticmethod
    def _split(cases: list[Case], step):
        verdict_map: dict[str, Verdict] = {}
        survivors: list[Case] = []
        for case in cases:
            found, rest = step([case])
            verdict_map.update(found)
            survivors.extend(rest or [])
        return verdict_map, survivors

    # ---- the whole plan ---------------------------------------------------------------------
    def run(self, groups: list[Group]) -> list[Outcome]:
        decided: dict[tuple[str, str], Verdict] = {}  # (group file:function, selector) -> verdict
        todo: list[Group] = []
        everything = tuple({g.intrinsic.name: g.intrinsic for g in groups}.values())
        for g in groups:
            why = self.unsupported(g.cases[0], everything)
            if why:
                decided.update({(_key(g, c), sel): Verdict(V.UNSUPPORTED, why) for c in g.cases for sel in g.selectors})
            else:
                todo.append(g)
        total = len(todo) + sum(len(g.selectors) for g in todo)
        done = 0
        lock = threading.Lock()

        def tick():
            nonlocal done
            with lock:
                done += 1
                if self.progress:
                    self.progress(done, total)

        def compile_one(g: Group, survivors: list[Case], sel: str) -> None:
            for fn, verdict in self.compile(survivors, sel).items():
                decided[(f"{g.filename}:{fn}", sel)] = verdict
            tick()

        with ThreadPoolExecutor(max_workers=self.jobs) as pool:
            compiles = []

            def verify_one(g: Group) -> None:
                # Each group's compiles are queued as soon as its verifier run is done.
                rejected, survivors = self.verify(g.cases)
                for c in g.cases:
                    if c.function in rejected:
                        decided.update({(_key(g, c), sel): rejected[c.function] for sel in g.selectors})
                with lock:
                    compiles.extend(pool.submit(compile_one, g, survivors, sel) for sel in g.selectors)
                tick()

            for fut in [pool.submit(verify_one, g) for g in todo]:
                fut.result()
            for fut in compiles:
                fut.result()
        return [Outcome(c, sel, decided[(_key(g, c), sel)]) for g in groups for c in g.cases for sel in g.selectors]


def _key(g: Group, c: Case) -> str:
    return f"{g.filename}:{c.function}"


def _first_line(text: str) -> str:
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    errors = [l for l in lines if "error" in l.lower()]
    return (errors or lines or [""])[0]


def stderr_progress(done: int, total: int) -> None:
    """A one-line progress counter on a terminal; silent when stderr is not one."""
    if sys.stderr.isatty():
        end = "\n" if done >= total else ""
        sys.stderr.write(f"\r[{done}/{total}] tool batches done{end}")
        sys.stderr.flush()
