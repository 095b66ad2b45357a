"""Run cases through the real tools in grouped modules and attribute results to functions.

Per group and selector: [opt pipeline] -> llc -> llvm-mc, each once. The IR verifier runs
inside opt and llc and names every call it rejects; llvm-mc errors are attributed by line. A
tool failure that names a case removes it and the rest run again; one that names none is
retried one case per module, so a verdict is always one case's own.
"""

from __future__ import annotations

import contextvars
import dataclasses
import functools
import os
import re
import stat
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

from harness.core import commands
from harness.core import verdicts as V
from harness.core.commands import Selector
from harness.core.errors import InputError
from harness.core.verdicts import Verdict
from harness.specs import emit
from harness.specs.cases import VERIFIER_CLASSES, Case, FileClass, Group, llc_command, mc_command, opt_command
from harness.targets import AMDGPU, catalog, families, modifiers
from harness.targets.catalog import Side
from harness.tools import declared, toolchain
from harness.tools.toolchain import ProbeDied, Toolchain, ToolRun


@dataclass(frozen=True)
class Outcome:
    case: Case
    selector: Selector
    verdict: Verdict


# Cases left after a tool failure named one: above this many, they run on as two modules, so
# that k failing cases cost about k·log(n) compiled functions, not k·n.
SPLIT_AT = 16


class Runner:
    """Runs groups of cases through the real tools and gives each (case, selector) its verdict.

    A group is one module per selector: [opt] -> llc -> the target's assembler, each run once;
    failures that name a case take it out and the rest run again. Tool runs go through the
    cache when one is given; `jobs` modules run at once; an interrupt ends the running tools
    and drops the queue."""

    def __init__(
        self,
        toolchain: Toolchain,
        jobs: int | None = None,
        progress: Callable[[int, int, str], None] | None = None,
        with_object: bool = False,
        cache=None,
        facts: bool = True,
        engine=None,
    ):
        # cache: a harness.tools.cache.Cache; every tool run (probes included) then goes through it.
        self.tc = cache.wrap(toolchain) if cache is not None else toolchain
        self.jobs = jobs or os.cpu_count() or 1
        self.progress = progress
        self.with_object = with_object  # also build the object, disassemble it, compare source tuples
        # Structured facts per verdict (metrics, tuples, rewrite, ir, verifier): only what reads
        # `Verdict.details` wants them (--json, try, matrix); a verdict table does not.
        self.facts = facts
        # Where the tasks run: None, a pool of `jobs` threads here; else an engine with
        # `run(runner, tasks, finished)` (harness.tools.distributed: a Dask cluster's workers).
        self.engine = engine
        self.probe_died: Verdict | None = None  # the build-support probe crashed or hung: every case gets this
        # One opt run per module and pipeline, whichever selector's task asks first.
        self._opt_runs: dict[tuple, Future[ToolRun]] = {}
        self._opt_lock = threading.Lock()

    # ---- support ----------------------------------------------------------------------------
    def unsupported(self, groups: list[Group]) -> dict[tuple[str, str], str]:
        """(group file name, intrinsic name) -> why this build cannot run that intrinsic's cases
        of the group ("" when it can). Each intrinsic of a file that holds many rows is judged
        on its own: a build without one leaves the others' cases to run.

        One opt probe per target answers for every intrinsic the groups use.
        """
        known, died = declared.support_of(self.tc, list({i: None for g in groups for i in g.intrinsics}))
        out = {}
        for g in groups:
            for intr in g.intrinsics:
                try:
                    cpus = self.tc.cpus(intr.target.registered) if intr.target.registered in self.tc.targets else None
                except ProbeDied as exc:  # (its cases are judged by the probe's death below)
                    died, cpus = exc, frozenset({g.cpu})
                if cpus is None:
                    why = f"this LLVM build has no {intr.target.registered} target"
                elif g.cpu not in cpus:
                    why = f"this LLVM build does not know CPU {g.cpu}"
                else:
                    why = known[intr.name]
                out[(g.filename, intr.name)] = why
        if died is not None:
            code = V.TIMEOUT if died.run.timed_out else V.CRASH
            self.probe_died = Verdict(code, died.message, [died.run])
        return out

    # ---- code generation --------------------------------------------------------------------
    def compile(self, cases: list[Case], selector: Selector, module: emit.Module | None = None) -> dict[str, Verdict]:
        """Verdict per function: [opt pipeline] -> llc (this selector) -> llvm-mc on its text.
        `module`: the cases' module when the caller has emitted it already."""
        if not cases:
            return {}
        first = cases[0]
        module = module or emit.module(cases)
        text, before = module.text, []
        if first.pipeline != "none":
            opt = self._pipeline(cases, text)
            if not opt.ok:
                return self._tool_failed(cases, selector, opt, module)
            text, before = opt.stdout, [opt]
        gen = self.tc.run("llc", list(llc_command(first, selector).args), text)
        if not gen.ok:
            return self._tool_failed(cases, selector, gen, module if not before else None)
        if V.says_error(gen.stderr):  # an error with success: no verdict from that
            raise InputError(f"{gen.argv[0]} exited 0 but printed errors: {V.first_error(gen.stderr)}")
        printed, shapes, mc = self._closed(cases, gen)
        if mc is None:
            # Without the assembler nothing closes the text: the verdict says so, with llc's facts.
            tool = first.intrinsic.target.assembler_tool
            why = f"no {tool} to close llc's text (set ${tool.upper()} or put it on PATH)"
            names = {c.function for c in cases}
            facts = _ModuleFacts(names, "", gen.stdout, printed, None) if self.facts else None
            return {c.function: Verdict(V.UNSUPPORTED, why, before + [gen], facts.of(c) if facts else {}) for c in cases}
        decided, rejected = self._assembler_said(cases, selector, before, gen, mc)
        if decided is not None:
            return decided
        return self._verdicts(cases, selector, text, before, (gen, mc), printed, shapes, rejected)

    def _pipeline(self, cases: list[Case], text: str) -> ToolRun:
        """opt's run of the cases' pipeline over their module (once per module and pipeline)."""
        first = cases[0]
        opt = self._opt_once([*opt_command(first, first.pipeline).args, "-S"], text)
        if opt.ok:
            kept = V.split_functions(opt.stdout, {c.function for c in cases})
            lost = sorted({c.function for c in cases} - set(kept))
            if lost:  # llc must not be judged on what opt failed to print
                raise InputError(
                    f"{opt.argv[0]} exited 0 but printed no IR for {lost[0]}: {V.first_error(opt.stdout) or 'no output'}"
                )
        return opt

    def _closed(self, cases: list[Case], gen: ToolRun) -> tuple[dict[str, list[str]], dict[str, _Shape], ToolRun | None]:
        """(function -> its body in llc's text, function -> its shape verdict or None, the
        assembler's run over the text or None without one). The assembler starts at once;
        llc's text is read for each case's shape meanwhile."""
        first = cases[0]
        names = {c.function for c in cases}
        target = first.intrinsic.target
        closing = mc_command(first, target.stdin_name)  # the target's assembler, reading llc's text on stdin
        assembled: Future[ToolRun | None] = Future()
        if not target.assembler_optional:
            self.tc.require(target.assembler_tool)  # a build without llvm-mc cannot judge: bad input, exit 2
        if target.objects:  # its object of the text is read too (`_meaning`)
            closing = commands.object_on_stdout(closing)
        if self.tc.tool(target.assembler_tool):
            run = functools.partial(self.tc.run, binary=target.objects)
            args = (_settle, assembled, run, closing.tool, list(closing.args), gen.stdout)
            threading.Thread(target=contextvars.copy_context().run, args=args).start()  # (in this task's tool scope)
        else:
            assembled.set_result(None)
        try:
            printed = V.split_functions(gen.stdout, names)
            if set(printed) != names and not target.text_marker.search(gen.stdout):
                # What llc printed is not its text for this target: no verdict comes from it.
                missing = sorted(names - set(printed))[0]
                raise InputError(
                    f"{gen.argv[0]} exited 0 but printed no code for {missing}: {V.first_error(gen.stdout) or 'no output'}"
                )
            shapes = {c.function: _shape(c, printed[c.function], gen) if c.function in printed else _NO_CODE for c in cases}
        finally:
            mc = assembled.result()  # (never left running: an error above waits for it first)
        return printed, shapes, mc

    def _assembler_said(
        self, cases: list[Case], selector: Selector, before: list[ToolRun], gen: ToolRun, mc: ToolRun
    ) -> tuple[dict[str, Verdict] | None, dict[str, str]]:
        """What the assembler's run decides: every verdict already (it died, timed out, cannot
        judge; or the cases again one by one), else function -> the error it charged to it."""
        first = cases[0]
        target = first.intrinsic.target
        tool = target.assembler_tool
        if mc.returncode is not None and mc.returncode < 0:  # the assembler itself died
            if len(cases) > 1:
                return self._compile_each(cases, selector), {}
            return {first.function: Verdict(V.CRASH, f"{tool} killed by signal {-mc.returncode}", before + [gen, mc])}, {}
        if mc.timed_out:  # the whole module's time ran out: no retry per case (time stays bounded)
            why = f"{tool} ran past {self.tc.timeout:g} s on the module of {len(cases)} case(s)"
            return {c.function: Verdict(V.TIMEOUT, why, before + [gen, mc]) for c in cases}, {}
        said = f"{mc.stderr}\n{mc.stdout}"  # (ptxas may print its errors on stdout)
        if mc.ok and (V.located_errors(said) or V.says_error(said)):  # errors with success: no verdict from that
            raise InputError(f"{mc.argv[0]} exited 0 but printed errors: {V.first_error(said)}")
        rejected, stray = V.mc_rejections(mc.stderr, gen.stdout, {c.function for c in cases})
        if target.assembler_optional:  # the detail names an assembler from outside LLVM
            rejected = {fn: f"{tool}: {d}" for fn, d in rejected.items()}
        if not mc.ok and target.assembler_optional and not rejected and not stray and _FATAL.search(said):
            # An assembler from outside LLVM that stops before any line (an SM or PTX version it
            # does not know) says nothing about llc's code, for any function of the module.
            why = f"{tool} cannot judge this text: {V.first_error(mc.stderr)}"
            return {c.function: Verdict(V.UNSUPPORTED, why, before + [gen, mc]) for c in cases}, {}
        if not mc.ok and (stray or not rejected):
            if len(cases) > 1:
                return self._compile_each(cases, selector), {}
            if not mc.stderr.strip():  # a failure that says nothing is no verdict about LLVM
                raise InputError(f"{mc.argv[0]} exited {mc.returncode} and printed nothing: no verdict comes from it")
            if "LLVM ERROR" in mc.stderr:  # the assembler itself failed, not the text
                return {first.function: Verdict(V.CRASH, V.first_error(mc.stderr), before + [gen, mc])}, {}
            if target.assembler_optional and not rejected:
                # An assembler from outside LLVM that names no line of the function (a PTX
                # version it does not know, on the header's line) says nothing about llc's code.
                why = f"{tool} cannot judge this text: {V.first_error(mc.stderr)}"
                return {first.function: Verdict(V.UNSUPPORTED, why, before + [gen, mc])}, {}
            rejected = {first.function: (f"{tool}: " if target.assembler_optional else "") + V.first_error(mc.stderr)}
        return None, rejected

    def _verdicts(
        self,
        cases: list[Case],
        selector: Selector,
        text: str,
        before: list[ToolRun],
        runs: tuple[ToolRun, ToolRun],
        printed: dict[str, list[str]],
        shapes: dict[str, _Shape],
        rejected: dict[str, str],
    ) -> dict[str, Verdict]:
        """Each case's verdict from its shape and what the assembler charged to it, with the
        module's facts (and the object's, where the case wants it)."""
        first = cases[0]
        gen, mc = runs
        target = first.intrinsic.target
        wants_object = (self.with_object or first.check == "object") and target.objects
        object_runs = self._disassemble(first, selector, text) if target.objects else []
        disassembly = object_runs[1] if len(object_runs) == 2 else None
        assembled = mc.ok and mc.data is not None and target.objects
        mc_runs = [self.tc.run("llvm-objdump", ["-d", "-"], mc.data)] if assembled else []
        failed = _object_failure(object_runs, mc_runs)
        judged = [c for c in cases if shapes[c.function] is None and c.function not in rejected]
        if failed and failed[0] != V.TIMEOUT and len(cases) > 1 and judged:
            return self._compile_each(cases, selector)  # (which call's object cannot be written or read)
        names = {c.function for c in cases}
        module_facts = (
            _ModuleFacts(names, text if before else "", gen.stdout, printed, disassembly if wants_object else None)
            if self.facts or wants_object
            else None
        )
        readings = _Readings(names, printed, disassembly, mc_runs[0] if mc_runs else None)
        out = {}
        for c in cases:
            tools = before + [gen, mc] + object_runs + mc_runs
            shape = shapes[c.function]
            if shape is not None and shape[0] in (V.UNSUPPORTED, V.NO_CODE):
                verdict = Verdict(*shape, tools)
            elif failed and c in judged:
                verdict = Verdict(*failed, tools)
            elif wrong := (readings.difference(c, c.function in rejected) if shape is None else ""):
                verdict = Verdict(V.MISCOMPILE, wrong, tools)
            elif c.function in rejected:
                verdict = Verdict(V.MC_REJECT, rejected[c.function], tools)
            else:
                verdict = Verdict(*shape, tools) if shape else Verdict(V.PASS, "", tools)
            out[c.function] = _with_facts(verdict, module_facts.of(c)) if module_facts is not None else verdict
        return out

    def _verifier_verdicts(self, cases: list[Case], gen: ToolRun) -> dict[str, Verdict]:
        """`verifier-reject` for each case whose call the IR verifier names in a tool's stderr."""
        names = {c.function: c for c in cases}
        out = {
            fn: Verdict(
                V.VERIFIER_REJECT,
                text,
                [gen],
                {"verifier": diagnostic_facts(names[fn], text)} if self.facts or names[fn].check == "diagnostic" else {},
            )
            for fn, text in V.verifier_diagnostics(gen.stderr).items()
            if fn in names
        }
        for symbol, text in V.declaration_diagnostics(gen.stderr).items():
            # A signature the intrinsic does not have: every call of that declaration is rejected.
            facts = {"message": text.splitlines()[0], "printed": [{"value": text.splitlines()[1], "args": []}]}
            out.update(
                {
                    c.function: Verdict(V.VERIFIER_REJECT, text, [gen], {"verifier": facts})
                    for c in cases
                    if emit.callee(c)[0] == symbol
                }
            )
        return out

    def verify(self, cases: list[Case], module: emit.Module) -> dict[str, Verdict]:
        """The calls the IR verifier rejects, from one llvm-as run on their module: the same
        verifier llc runs first, whatever the selector, so its verdicts hold for every selector.
        Cases it does not name (and every case, without llvm-as) are left to `compile`."""
        if not cases or not self.tc.tool("llvm-as"):
            return {}
        run = self.tc.run("llvm-as", ["-disable-output"], module.text)
        if run.ok or run.timed_out or (run.returncode or 0) < 0:
            return {}
        return self._verifier_verdicts(cases, run)

    def _opt_once(self, args: list[str], text: str) -> ToolRun:
        """opt on a module: the selectors' tasks of one module share its one run. A run that
        `toolchain.stop` ended (a cancelled task of another client, on a worker) is run again
        by a task still wanted."""
        key = (tuple(args), text)
        while True:
            with self._opt_lock:
                pending = self._opt_runs.get(key)
                mine = pending is None
                if pending is None:
                    pending = self._opt_runs[key] = Future()
            if mine:
                try:
                    pending.set_result(self.tc.run("opt", args, text))
                except BaseException as exc:
                    if isinstance(exc, toolchain.Stopped):
                        with self._opt_lock:
                            del self._opt_runs[key]
                    pending.set_exception(exc)
            try:
                return pending.result()
            except toolchain.Stopped:
                if mine or toolchain.stopped_here():
                    raise

    def _disassemble(self, first: Case, selector: Selector, text: str) -> list[ToolRun]:
        """llc -filetype=obj, then llvm-objdump -d on the object when llc made one."""
        obj = self.tc.run("llc", list(llc_command(first, selector, obj=True).args), text, binary=True)
        return [obj, self.tc.run("llvm-objdump", ["-d", "-"], obj.data)] if obj.ok else [obj]

    def _compile_each(self, cases: list[Case], selector: Selector) -> dict[str, Verdict]:
        """Compile each case in a module of its own: the fallback when a failure names no case."""
        out: dict[str, Verdict] = {}
        for case in cases:
            out.update(self.compile([case], selector))
        return out

    def _tool_failed(self, cases: list[Case], selector: Selector, gen: ToolRun, module: emit.Module | None) -> dict[str, Verdict]:
        """opt or llc failed. The IR verifier (run by both on their input) names each call it
        rejects; a parse error names a line of `module`; selection failures and crashes name a
        function. Those cases get their verdict and the rest run again; a failure that names
        no case is retried one case per module."""
        names = {c.function: c for c in cases}
        tool = os.path.basename(gen.argv[0])
        if gen.timed_out:
            # Every case of a module that ran out of time gets `timeout`, with no retry one case
            # at a time: a hung build costs one --timeout per module, not one per case.
            return {
                c.function: Verdict(
                    V.TIMEOUT, f"{tool} ran past {self.tc.timeout:g} s on the module of {len(cases)} case(s)", [gen]
                )
                for c in cases
            }
        target = cases[0].intrinsic.target
        if not target.has_selector(selector) and target.no_selector_message and target.no_selector_message in gen.stderr:
            # llc has no such selector for this target: its own message, for every case.
            return {c.function: Verdict(V.UNSUPPORTED, V.first_error(gen.stderr), [gen]) for c in cases}
        out = self._verifier_verdicts(cases, gen)
        if not out and module is not None:
            # The build cannot read the IR it was given (e.g. an intrinsic signature it does not have).
            for line, _, message in V.located_errors(gen.stderr):
                fn = module.line_owner.get(line)
                if fn in names:
                    out[fn] = Verdict(V.UNSUPPORTED, f"{tool} cannot read this IR: {message}", [gen])
                    break
        if not out:
            kind, fn, reason = V.llc_failure(gen.stderr, gen.returncode)
            if gen.returncode is not None and gen.returncode < 0:  # killed: say by what, as for llvm-mc
                reason = f"{tool} killed by signal {-gen.returncode}" + (f": {reason}" if gen.stderr.strip() else "")
            if fn not in names and len(cases) == 1:
                fn = cases[0].function
            if fn not in names:
                return self._compile_each(cases, selector)
            out = {fn: Verdict(kind, reason, [gen])}
        rest = [c for c in cases if c.function not in out]
        # The verifier names every bad call at once; a crash or a selection failure names one,
        # and more may follow, each costing a run of what is left: then it runs as two modules.
        crashed = all(v.verdict not in (V.VERIFIER_REJECT, V.UNSUPPORTED) for v in out.values())
        for share in (rest[: len(rest) // 2], rest[len(rest) // 2 :]) if crashed and len(rest) > SPLIT_AT else (rest,):
            out.update(self.compile(share, selector))
        return out

    def check_pipeline(self, where: Case, pipeline: str) -> None:
        """A pipeline opt cannot parse is bad input, not a verdict: say so once, exit 2."""
        run = self.tc.run("opt", [*opt_command(where, pipeline).args, "-disable-output"], "")
        if not run.ok:
            from harness.specs.spec import quote

            message = f"pipeline {quote(pipeline)}: {V.first_error(run.stderr) or 'opt rejects it'}"
            at = where.pipeline_at  # where a spec wrote it (a case moved onto another pipeline keeps the old one)
            raise at.error(message) if at is not None and at.value == pipeline else InputError(message)

    # ---- the whole plan ---------------------------------------------------------------------
    def run(self, groups: list[Group]) -> list[Outcome]:
        lacking = self.engine.lacks(self.tc) if self.engine is not None else ""
        if lacking:  # no worker of the engine has this build: nothing can judge its cases
            return [Outcome(c, sel, Verdict(V.UNSUPPORTED, lacking)) for g in groups for c in g.cases for sel in g.selectors]
        decided: dict[tuple[str, Selector], Verdict] = {}  # (group file:function, selector) -> verdict
        todo, whole_plan = self._supported(groups, decided)
        # Only pipelines of groups this build can run: an old build that lacks a CPU must not
        # turn into bad input because opt rejects that CPU.
        if self.probe_died is not None:
            decided.update({(_key(g, c), sel): self.probe_died for g in todo for c in g.cases for sel in g.selectors})
            todo = []
        for pipeline, g in {g.pipeline: g for g in todo if g.pipeline != "none"}.items():
            self.check_pipeline(g.cases[0], pipeline)
        self._opt_runs.clear()
        self._run_batches(whole_plan if todo == groups else batches(todo), decided)
        return [Outcome(c, sel, decided[(_key(g, c), sel)]) for g in groups for c in g.cases for sel in g.selectors]

    def _supported(self, groups: list[Group], decided: dict) -> tuple[list[Group], list[Batch]]:
        """(the groups, less the cases this build cannot judge, whose `unsupported` verdicts go
        into `decided`; the modules of every group). The build is asked what it supports while
        the modules are planned: the plan for every group stands when the build supports them all."""
        asked: Future[dict[tuple[str, str], str]] = Future()
        threading.Thread(target=_settle, args=(asked, self.unsupported, groups), daemon=True).start()
        whole_plan = batches(groups)
        for m in _largest_first(whole_plan)[: self.jobs]:  # the first tasks' modules, while the build answers
            if asked.done():
                break
            m.module  # noqa: B018
        reasons = asked.result()
        todo: list[Group] = []
        for g in groups:
            why = {i.name: reasons[(g.filename, i.name)] for i in g.intrinsics}
            kept = tuple(p for p in g.members if not why[p.case.intrinsic.name])
            for c in (p.case for p in g.members if why[p.case.intrinsic.name]):
                decided.update({(_key(g, c), sel): Verdict(V.UNSUPPORTED, why[c.intrinsic.name]) for sel in g.selectors})
            if kept:  # (the same file name: the verdicts' keys stay the group's)
                todo.append(g if len(kept) == len(g.members) else dataclasses.replace(g, members=kept))
        return todo, whole_plan

    def run_batch(self, m: Batch, sels: tuple[Selector, ...]) -> dict[tuple[str, Selector], Verdict]:
        """The verdicts of one task: a compiled module is one task per selector (the selectors
        run at once); a module the verifier should reject is one task, one llvm-as run deciding
        every selector of the calls it names, the rest compiled per selector."""
        members, module = m.cases, m.module
        result = {} if _compiled(m) else self.verify(members, module)
        out: dict[tuple[str, Selector], Verdict] = {}
        for sel in sels:
            # (a selector the target lacks is llc's to refuse, before any verifier)
            known = result if members[0].intrinsic.target.has_selector(sel) else {}
            rest = [c for c in members if c.function not in known]
            each = {**known, **self.compile(rest, sel, module if len(rest) == len(members) else None)}
            out.update({(_key(g, c), sel): each[c.function] for g, c in m.members})
        return out

    def _run_batches(self, modules: list[Batch], decided: dict) -> None:
        """Every module's verdicts into `decided`, largest first: `jobs` tasks at once here, or
        on the workers of the engine this runner was given."""
        order = _largest_first(modules)
        tasks = [(m, sels) for m in order for sels in ([(sel,) for sel in m.selectors] if _compiled(m) else [m.selectors])]
        total = sum(len(m.members) * len(sels) for m, sels in tasks)  # cells: one verdict each
        done = 0
        build = f"LLVM {self.tc.version}"  # (whose cells the progress lines count)
        if self.progress and total:
            self.progress(0, total, build)  # (a run starts: the next build of `matrix` too)

        def finished(verdicts: dict, sels: tuple[Selector, ...]) -> None:
            nonlocal done
            decided.update(verdicts)
            done += len(verdicts)
            if self.progress:
                self.progress(done, total, build)

        if self.engine is not None:
            self.engine.run(self, tasks, finished)
        else:
            self._run_here(order, tasks, finished)

    def _run_here(self, order: list[Batch], tasks: list, finished: Callable) -> None:
        """The tasks on a pool of `jobs` threads of this process (the default engine)."""
        lock, errors = threading.Condition(), []
        left = len(tasks)

        def one(m: Batch, sels: tuple[Selector, ...]) -> None:
            nonlocal left
            try:
                verdicts = self.run_batch(m, sels)
                with lock:
                    finished(verdicts, sels)
            except BaseException as exc:  # surfaced in the main thread (e.g. stderr closed: never a hang)
                errors.append(exc)
            with lock:
                left -= 1
                lock.notify_all()

        pool = ThreadPoolExecutor(max_workers=self.jobs)
        try:
            for m, sels in tasks:
                pool.submit(one, m, sels)
            # The modules the first tasks do not take are emitted here, in the order the tasks
            # will need them, while those tasks' tools run (a worker that needs one first waits
            # for it): no worker's next tool waits for its module to be written.
            for m in order[self.jobs :]:
                if errors:
                    break
                m.module  # noqa: B018
            with lock:
                lock.wait_for(lambda: left == 0 or bool(errors))
        except BaseException:  # Ctrl-C, SIGTERM: end the tools running now and drop the queue
            toolchain.stop_all()
            pool.shutdown(wait=True, cancel_futures=True)
            toolchain.resume()
            raise
        pool.shutdown(wait=True)
        if errors:
            raise errors[0]


@dataclass
class Batch:
    """Cases of several groups (lit files) that one module can hold: the same target, CPU,
    features, -O level, pipeline, check and selectors. One module per batch and selector is
    the fewest tool runs that decide them; a failure that names a case still splits it off."""

    selectors: tuple[Selector, ...]
    members: list[tuple[Group, Case]]

    @property
    def cases(self) -> list[Case]:
        return [c for _, c in self.members]

    @functools.cached_property
    def module(self) -> emit.Module:
        """The members' module, emitted once for all the selectors' tasks."""
        return emit.module(self.cases)


def _rejected(g: Group) -> bool:
    """Whether a group's cases are expected to stop at the verifier."""
    return g.file_class in VERIFIER_CLASSES or g.file_class == FileClass.IR_MALFORMED


def _compiled(m: Batch) -> bool:
    """Whether a batch's cases are expected to reach code generation."""
    return not _rejected(m.members[0][0])


def _largest_first(modules: list[Batch]) -> list[Batch]:
    """The order tasks are handed out in: largest first; modules the verifier should reject stop
    at the verifier and go last, filling in behind the modules that are compiled and assembled."""
    return sorted(modules, key=lambda m: -len(m.members) * (1 if _compiled(m) else 0.1))


def _with_facts(verdict: Verdict, facts: dict) -> Verdict:
    """`verdict` with its case's facts; an mc-reject whose object holds other tuples than the
    text says so first (`obj-text-mismatch`)."""
    verdict.details = facts
    tuples = facts.get("tuples", {})
    if verdict.verdict == V.MC_REJECT and tuples.get("object") and tuples["object"] != tuples["text"]:
        t, o = tuples["text"], tuples["object"]
        verdict.detail = (
            f"obj-text-mismatch: text A {t.get('a')} B {t.get('b')}, object A {o.get('a')} B {o.get('b')}; {verdict.detail}"
        )
    return verdict


def _settle(future: Future, call: Callable, *args) -> None:
    try:
        future.set_result(call(*args))
    except BaseException as exc:
        future.set_exception(exc)


# An assembler's message that it stopped as a whole ("ptxas fatal   : Value 'sm_70' is not
# defined for option 'gpu-name'").
_FATAL = re.compile(r"^\S+ fatal\s*:", re.M)


def batch_key(g: Group, c: Case) -> tuple:
    intr = c.intrinsic
    # A CPU without the instruction must make llc stop at the call: each such case is a module
    # of its own (the fewest llc runs that decide them, and a call that hangs llc takes no other
    # case's verdict with it). Calls the verifier should reject share a module only with each
    # other: llc stops at the verifier, naming every bad call at once, and the valid calls are
    # compiled once, not first read by a failing llc and then emitted and compiled again.
    runs = intr.runs_on(c.cpu)
    return (
        intr.target.name,
        c.cpu,
        intr.features_on(c.cpu),
        c.opt,
        c.pipeline,
        c.check,
        g.selectors,
        runs,
        _rejected(g),
        runs or c.function,
    )


SHARE = 256  # cases at most in one module: what a hang or a crash in it costs, whatever -j


def batches(groups: list[Group]) -> list[Batch]:
    """The groups' cases in as few modules as can hold them (function names are unique within
    each module, and an intrinsic has one declaration in it: a name seen twice, or an intrinsic
    declared with another signature, under one key starts another module), in shares of at most
    SHARE cases, so that workers share the work and a module that hangs takes a bounded number
    of verdicts with it; the modules, and so the verdicts, do not depend on -j."""
    out: dict[tuple, list[Batch]] = {}
    names: dict[int, set[str]] = {}  # id(batch) -> its function names
    declared: dict[int, dict[str, str]] = {}  # id(batch) -> intrinsic -> its parameters there

    def fits(b: Batch, c: Case, callee: tuple[str, str]) -> bool:
        return c.function not in names[id(b)] and declared[id(b)].get(callee[0], callee[1]) == callee[1]

    for g in groups:
        for c in g.cases:
            chain = out.setdefault(batch_key(g, c), [])
            callee = emit.callee(c)
            batch = next((b for b in chain if fits(b, c, callee)), None)
            if batch is None:
                batch = Batch(g.selectors, [])
                chain.append(batch)
                names[id(batch)], declared[id(batch)] = set(), {}
            batch.members.append((g, c))
            names[id(batch)].add(c.function)
            declared[id(batch)].setdefault(*callee)
    whole = [b for chain in out.values() for b in chain]
    return [Batch(b.selectors, b.members[i : i + SHARE]) for b in whole for i in range(0, len(b.members), SHARE)]


# A function llc was given and printed no code for, in text that is llc's for the target.
_NO_CODE = (V.NO_CODE, "llc exited 0 and printed its text, but no code for this function")
# How llc's code for a case differs from its row: (verdict, why), or None when it does not.
_Shape = tuple[V.VerdictCode, str] | None


def _shape(case: Case, body: list[str], gen: ToolRun) -> tuple[V.VerdictCode, str] | None:
    """How llc's code for a case differs from its row (None: it is the row's instruction, as
    wide as the ISA says): another matrix instruction or other widths (`wrong-shape`); a call of
    the intrinsic as a plain function (a build that does not know it: `unsupported`). Code with
    neither makes no sense: no verdict comes from it."""
    intr = case.intrinsic
    wanted = intr.mnemonics(case.cpu)
    found = V.instruction(body, wanted)
    if found is None:
        other = V.matrix_instruction(body, intr.target.matrix_mnemonics)
        if other is not None:
            return V.WRONG_SHAPE, f"llc selected {other[0]}, not {' or '.join(wanted)}"
        if any(intr.symbol in line for line in body):
            return V.UNSUPPORTED, f"this build compiles {intr.symbol} as a plain function call: it does not know it"
        raise InputError(
            f"{gen.argv[0]} exited 0 but the code it printed for {case.function} has no "
            f"{' or '.join(wanted)}: no verdict comes from it"
        )
    mismatch = V.shape_mismatch(found[1], intr.tuple_widths)
    return (V.WRONG_SHAPE, mismatch) if mismatch else None


class _Readings:
    """What each constant operand of a case reads as in llc's text, llc's object and the
    assembler's object of that text (each disassembled by llvm-objdump): the ISA's spelling of
    the value the IR gave must be in all three (`modifiers`)."""

    def __init__(self, names: set[str], text: dict[str, list[str]], own: ToolRun | None, assembled: ToolRun | None):
        self.bodies = {"llc's text": text}
        for where, run in (("llc's object", own), ("llvm-mc's object of llc's text", assembled)):
            if run is not None and run.ok:
                self.bodies[where] = V.split_functions(run.stdout, names)

    def difference(self, case: Case, rejected: bool) -> str:
        """The first value a reading does not show, or the first reading whose instruction or
        modifiers differ from the call's, as one sentence; "" when all three agree with the IR.
        Where the assembler `rejected` the text, an object without any matrix instruction says
        nothing: the CPU has no encoding of it (its disassembler shows words it cannot decode)."""
        intr = case.intrinsic
        if intr.target is not AMDGPU:
            return self._selector(case)
        mnemonics, scaled = case.mnemonics(), case.scale_given
        fields = _fields(case)
        text = V.instruction_line(self.bodies["llc's text"].get(case.function, []), intr.mnemonics(case.cpu))
        for where, bodies in self.bodies.items():
            body = bodies.get(case.function, [])
            found = V.instruction_line(body, intr.mnemonics(case.cpu))
            if found is None:
                if text is None:
                    return ""  # (no reading has the row's instruction: the text's shape says why)
                other = V.matrix_instruction(body, intr.target.matrix_mnemonics)
                if other is None and rejected:
                    continue
                return f"llc's text has {text[0]}, {where} has {other[0] if other else 'no matrix instruction'}"
            if found[0] not in mnemonics:  # a scale the unscaled instruction cannot read
                return f"{scaled} is not the constant 0 in the IR (only the scaled instruction reads it), {where} has {found[0]}"
            wrong = modifiers.difference(case.constants, found[0], found[1], where, fields)
            if wrong:
                return wrong
        return ""

    def _selector(self, case: Case) -> str:
        """An NVPTX mma.sp's sparsity selector (its one immarg) against llc's PTX."""
        intr = case.intrinsic
        if not intr.ranges:
            return ""
        index = intr.ranges[0][0]
        value = dict(case.args).get(index, catalog.literal(str(intr.operands[index]))[1])
        found = V.instruction(self.bodies["llc's text"].get(case.function, []), intr.mnemonics(case.cpu))
        if found is None or not re.fullmatch(r"-?\d+", value):
            return ""
        return modifiers.ptx_selector_difference(int(value), found[1], index)


def _object_failure(object_runs: list[ToolRun], mc_runs: list[ToolRun]) -> tuple[V.VerdictCode, str] | None:
    """An object that was not written or cannot be read, for a module whose text llc printed:
    llc's object path (-filetype=obj, the one clang takes) failing, or llvm-objdump failing on
    llc's object or on llvm-mc's object of the text; (verdict, why), or None when both objects
    read (or the target has none)."""
    if object_runs and not object_runs[0].ok:
        run, where = object_runs[0], "llc -filetype=obj (the object path clang takes)"
        if run.timed_out:
            return V.TIMEOUT, f"{where} ran past its time limit on a module whose text llc printed"
        return V.CRASH, f"{where} failed where llc's text did not: {_said(run)}"
    for runs, whose in ((object_runs[1:], "llc's object"), (mc_runs, "llvm-mc's object of llc's text")):
        if runs and not runs[0].ok:
            return V.CRASH, f"llvm-objdump cannot read {whose}: {_said(runs[0])}"
    return None


def _said(run: ToolRun) -> str:
    """A failed tool's first error line, else its exit status."""
    return V.first_error(run.stderr) or ("ran past its time limit" if run.timed_out else f"exit {run.returncode}")


def _fields(case: Case) -> dict[str, tuple[int, int]]:
    """Operand name -> the range its field holds (the row's immarg ranges)."""
    intr = case.intrinsic
    names = families.operand_names(intr.base or intr.name)
    return {names[i]: (low, high) for i, low, high in intr.ranges if i < len(names)}


class _ModuleFacts:
    """Structured facts about each compiled case, from one pass over each tool's output:
    register cost, source tuples in the text and in the object, the unscaled->scaled
    rewrite, and what the opt pipeline made of each source."""

    def __init__(self, names: set[str], ir: str, asm: str, bodies: dict[str, list[str]], disassembly: ToolRun | None):
        self.asm = bodies  # (llc's text, split per function)
        self.symbols = V.symbols(asm)
        self.ir = V.split_functions(ir, names) if ir else None
        self.objects = V.split_functions(disassembly.stdout, names) if disassembly is not None and disassembly.ok else None

    def of(self, case: Case) -> dict:
        intr, fn = case.intrinsic, case.function
        body = self.asm.get(fn, [])
        facts: dict = {"metrics": V.metrics(body, fn, self.symbols)}
        found = V.instruction(body, intr.mnemonics(case.cpu))
        tuples = {"text": V.tuples_of(found)}
        if self.objects is not None:
            tuples["object"] = V.source_tuples(self.objects.get(fn, []), intr.mnemonics(case.cpu))
        facts["tuples"] = tuples
        if intr.scaled_mnemonic:
            facts["rewrite"] = (
                f"rewritten to the scaled form {intr.scaled_mnemonic} (neutral scale)"
                if found and found[0] == intr.scaled_mnemonic
                else f"not rewritten: this build selects {intr.mnemonic} directly"
            )
        if self.ir is not None:
            indices = {s: intr.arg_index(s.src) for s in Side}
            facts["ir"] = V.ir_sources(self.ir.get(fn, []), fn, indices)
        return facts


def diagnostic_facts(case: Case, diagnostic: str) -> dict:
    """The verifier's message and, for each value it printed, which call operands hold it.

    `expected_args` are the operands a correct diagnostic names: the rejected source and its
    own format operand. A value no expected operand holds is a misattributed diagnostic.
    """
    parts = V.diagnostic_parts(diagnostic)
    intr = case.intrinsic
    operands = [" ".join(emit.operand(case, i)) for i in range(len(intr.operands))]
    printed = [{"value": v, "args": [i for i, o in enumerate(operands) if o == v]} for v in parts["values"]]
    facts = {"message": parts["message"], "printed": printed}
    side = next((s for s in Side if case.side_class(s) == case.rejection), None)
    if side:
        expected = [intr.arg_index(side.src)]
        if intr.runtime_formats:
            expected.append(intr.arg_index(side.fmt))
        facts["expected_args"] = expected
        stray = [p for p in printed if p["args"] and not set(p["args"]) & set(expected)]
        if stray:
            want = " ".join(emit.operand(case, expected[-1]))
            facts["misattributed"] = (
                f"prints {stray[0]['value']} (operand {'/'.join(map(str, stray[0]['args']))}), "
                f"not operand {expected[-1]} ({want}) that decides source {side.upper()}"
            )
    return facts


def _key(g: Group, c: Case) -> str:
    return f"{g.filename}:{c.function}"


class StderrProgress:
    """How far a long run is, on stderr: cells done of all, the rate and an estimate of the time
    left, each line naming the build whose cells it counts; a live line on a terminal, redrawn
    each second while no cell ends (`TICK`), so that an estimate the run has outlived says so
    rather than standing still; elsewhere (a CI log) one line at each quarter of the work with
    the seconds so far, once a run has taken `PATIENCE` seconds; nothing when `quiet` (--json
    into a pipe: the reader is a program; into a file, a person may be watching). Called with
    (cells done, cells in all), with 0 done when a run starts: the quarters and the clock start
    again (the next build of `harness matrix`)."""

    PATIENCE = 2.0  # seconds: a run shorter than this is over before a line would help
    TICK = 1.0  # seconds between redraws of a live line that no ending cell redrew

    def __init__(self, quiet: bool = False):
        self.quiet = quiet
        self.start = time.perf_counter()
        self.quarters_said = 0
        self.last_done = 0
        self.width = 0  # of the live line written last
        self.live: tuple[int, int, str, float] | None = None  # (done, total, build, when) of a live line not ended
        self.lock = threading.Lock()

    def __call__(self, done: int, total: int, build: str = "") -> None:
        if self.quiet:
            return
        with self.lock:
            if done == 0 or done < self.last_done:  # a run starts (another, with the same counter)
                self.start, self.quarters_said = time.perf_counter(), 0
            self.last_done = done
            seconds = time.perf_counter() - self.start
            if sys.stderr.isatty():
                self._draw(done, total, build, seconds, 0.0)
            elif done * 4 >= (self.quarters_said + 1) * total:
                self.quarters_said = done * 4 // total
                if seconds >= self.PATIENCE:
                    sys.stderr.write(
                        f"# {build + ': ' if build else ''}{done}/{total} cells done ({done * 100 // total}%), "
                        f"{seconds:.1f} s{_pace(done, total, seconds)}\n"
                    )
            sys.stderr.flush()

    def _draw(self, done: int, total: int, build: str, seconds: float, idle: float) -> None:
        """The live line; `idle`: seconds since a cell last ended."""
        line = f"[{build + ': ' if build else ''}{done}/{total}] cells{_pace(done, total, seconds - idle, idle)}"
        line = line[: _columns() - 1]  # (a line the terminal wraps would not be redrawn in place)
        end = "\n" if done >= total else ""
        sys.stderr.write(f"\r{line}{' ' * max(0, self.width - len(line))}{end}")
        self.width = 0 if end else len(line)
        first = self.live is None
        self.live = None if end else (done, total, build, time.perf_counter() - idle)
        if first and self.live:
            threading.Thread(target=self._redraw, daemon=True).start()

    def _redraw(self) -> None:
        """Redraw the live line each `TICK` while it stands, until the run ends."""
        while True:
            time.sleep(self.TICK)
            with self.lock:
                if self.live is None:
                    return
                done, total, build, when = self.live
                now = time.perf_counter()
                if now - when >= self.TICK:
                    self._draw(done, total, build, now - self.start, now - when)
                    sys.stderr.flush()

    @classmethod
    def for_output(cls, json_output: bool) -> StderrProgress:
        try:
            into_pipe = stat.S_ISFIFO(os.fstat(sys.stdout.fileno()).st_mode)
        except (OSError, ValueError):  # no real stdout (in-process callers): a program reads it
            into_pipe = True
        return cls(quiet=json_output and into_pipe)


def _columns() -> int:
    """The width of the terminal stderr is on (a large number when it has none)."""
    try:
        return os.get_terminal_size(sys.stderr.fileno()).columns or 1 << 16
    except (OSError, ValueError, AttributeError):
        return 1 << 16


def _pace(done: int, total: int, seconds: float, idle: float = 0.0) -> str:
    """The rate over the run so far and the time left at that rate: ", 210 cells/s, about 3 min 4 s
    left" (nothing before a cell is done; no time left at the end). `seconds`: until the last
    cell ended; `idle`: since then, taken off the time left, and once it outlives that time the
    line says so instead of a figure."""
    if done <= 0 or seconds <= 0:
        return ""
    rate = done / seconds
    pace = f", {rate:.0f} cells/s" if rate >= 10 else f", {rate:.1f} cells/s"
    if done >= total:
        return pace
    left = round((total - done) / rate - idle)
    if left <= 0:
        return f"{pace}, {round(idle)} s since a cell ended: slower than that pace (a hang ends at --timeout)"
    return f"{pace}, about {f'{left // 60} min {left % 60} s' if left >= 60 else f'{left} s'} left"
