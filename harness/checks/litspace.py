"""`lit cases/ --param space=full`: the whole space of the build under test as lit tests
(`--param space=representative`: its representative part, `selection.representatives`).

The tests are discovered from the row tables, not written: one test per LLVM matrix intrinsic
name, `cases/space/<target>/<name>`, holding that name's cells on every processor the build
lists, under each selector, at -O0 and -O2 — the cells `harness run --space full --intrinsic
NAME` runs. A lit worker runs them through the harness's own runner and judges them with the
harness's own expectations and `known-bugs.yaml`, so lit and `harness run` cannot differ on a
cell. Files would not do: the space of 22.1.8 is over 60,000 cells, most of them a module of
their own, against the 15 MB `cases/generated` may take.

A test FAILs when a cell is unexpected (the output lists them), is XFAIL when no cell is
unexpected and some are known bugs, PASSes when every cell judged is expected, and is
UNSUPPORTED when the build cannot judge any of its cells.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Iterator
from pathlib import Path

import lit.Test

from harness.checks.litformat import KnownBugShTest

SPACE = "space"
TOOL_TIMEOUT = 10.0  # seconds a tool may take on one cell's module before the cell is a timeout
_TOOLCHAINS: dict = {}  # (llvm_bin, timeout) -> the toolchain, once per lit worker process


class SpaceTest(KnownBugShTest):
    """The generated files as `KnownBugShTest` runs them, and beside them, in the directory that
    holds the specs, one test per matrix intrinsic name of the space."""

    def __init__(self, version: str, known: dict, cases_dir: str, llvm_bin: str | None, names: list, space: str):
        super().__init__(version, known, cases_dir)
        self.llvm_bin, self.names, self.space = llvm_bin, names, space  # space: full or representative

    def getTestsInDirectory(self, suite, path_in_suite, lit_config, local_config):
        yield from super().getTestsInDirectory(suite, path_in_suite, lit_config, local_config)
        if os.path.realpath(suite.getSourcePath(path_in_suite)) == os.path.realpath(self.cases_dir):
            for target, name in self.names:
                yield lit.Test.Test(suite, (*path_in_suite, SPACE, target, name), local_config)

    def execute(self, test, lit_config):
        where = test.path_in_suite
        if len(where) >= 3 and where[-3] == SPACE and not os.path.exists(test.getSourcePath()):
            return self._space(where[-1])
        return super().execute(test, lit_config)

    def _space(self, name: str):
        from harness.core.errors import InputError

        try:
            return _judge_space(self, name)
        except InputError as exc:  # the build or the specs cannot judge: a configuration error
            return lit.Test.Result(lit.Test.UNRESOLVED, f"harness: {exc}\n")


def _judge_space(fmt: SpaceTest, name: str):
    from harness.checks import expand
    from harness.reports import expectations as E
    from harness.reports import report
    from harness.specs import selection
    from harness.tools import toolchain
    from harness.tools.runner import Runner

    key = (fmt.llvm_bin, TOOL_TIMEOUT)
    if key not in _TOOLCHAINS:
        _TOOLCHAINS[key] = toolchain.discover(fmt.llvm_bin, TOOL_TIMEOUT)
    tc = _TOOLCHAINS[key]
    args = selection.space_args(fmt.space, [name])
    planned = selection.space(args, lambda t: tc.cpus(t.registered) if t.registered in tc.targets else None)
    groups = expand.lit_groups(planned, Path(fmt.cases_dir))
    with _tools_end_with_the_worker():
        outcomes = Runner(tc, 1, facts=False).run(groups)
    judge = E.Judge(Path(fmt.cases_dir), tc.version, groups)
    judge.known = fmt.known  # (--param known_bugs=off leaves it empty)
    judged = judge.all(outcomes)
    counts = E.counts(judged)
    records = [report.case_record(j.outcome) | E.record(j) for j in judged if j.judgment == E.UNEXPECTED]
    output = "\n".join([*E.unexpected_lines(records), E.summary(counts), ""])
    if counts[E.UNEXPECTED]:
        code = lit.Test.FAIL
    elif counts[E.Judgment.KNOWN_BUG]:
        code = lit.Test.XFAIL
    elif counts[E.Judgment.EXPECTED]:
        code = lit.Test.PASS
    else:
        code = lit.Test.UNSUPPORTED
    return lit.Test.Result(code, output)


@contextlib.contextmanager
def _tools_end_with_the_worker() -> Iterator[None]:
    """While the runner runs in this lit worker: a signal that ends the worker (lit ends its
    workers with SIGTERM on Ctrl-C or when stopped) ends the tools first. The runner starts each
    tool in a session of its own, where neither lit's signal nor the terminal's reaches it, so
    without this an llc that hangs would outlive lit. The worker then dies of the signal as it
    would have; a signal the worker ignores stays ignored."""
    from harness.tools import toolchain

    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def end(signum, frame):
        toolchain.stop_all()
        signal.signal(signum, before[signum] if before[signum] is not None else signal.SIG_DFL)
        os.kill(os.getpid(), signum)

    watched = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
    before = {s: signal.getsignal(s) for s in watched}
    for signum in watched:
        if before[signum] is not signal.SIG_IGN:
            signal.signal(signum, end)
    try:
        yield
    finally:
        for signum in watched:
            signal.signal(signum, before[signum])


def space_names() -> list[tuple[str, str]]:
    """(target, LLVM name) of every matrix intrinsic the row tables hold, in their order."""
    from harness.targets import catalog

    return [(forms[0].target.name, base) for base, forms in catalog.BY_BASE.items()]
