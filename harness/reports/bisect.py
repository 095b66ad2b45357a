"""`harness bisect-run`: one step of `git bisect run` over LLVM builds, decided per case.

The exit status is the vote git bisect reads:
  0    every selected case and selector has the wanted verdict          (good / --invert: bad)
  1    some case does not                                               (bad / --invert: good)
  125  this build cannot judge: the build step failed, --llvm-bin-cmd found no build, a tool
       is missing, or a selected case's target, CPU or intrinsic is unknown to it   (skip)
  129  usage error or bad input (an --llvm-bin with no llc: the same at every commit; a
       --scheduler that is malformed, does not answer or is lost mid-step);
       128 the harness itself failed                                    (abort the bisect)
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import os
import signal
import subprocess
import sys
import tempfile
from typing import Any

from harness.checks import expand
from harness.core import files
from harness.core import verdicts as V
from harness.core.errors import InputError, printable
from harness.reports import expectations
from harness.specs import known_bugs, selection
from harness.specs.cases import Planned
from harness.specs.spec import quote, shorten
from harness.tools import distributed, toolchain
from harness.tools.runner import Runner

EXPECTED = "expected"  # --want: each cell's own expected verdict

GOOD, BAD, SKIP, OWN_FAILURE, USAGE = 0, 1, 125, 128, 129
REQUIRED_TOOLS = ("llc", "llvm-mc", "opt")

DESCRIPTION = """\
One step of `git bisect run`: find this commit's LLVM build, run the selected cases on it and
vote good, bad or skip. Cases are selected as in `harness try` (--intrinsic, --fmt-a/-b,
--width-a/-b, --selector, -O, --pipeline: one case, both selectors unless --selector) or from the
specs (--spec, --filter GLOB over case names, and the same flags as filters).

examples:
  # the first commit whose build gets the over-wide FP4 WMMA case right (fixed):
  git bisect start --term-old=broken --term-new=fixed
  git bisect run harness bisect-run --build "ninja -C build llc llvm-mc opt llvm-as" \\
      --llvm-bin build/bin --intrinsic wmma.f32.16x16x128.f8f6f4 --fmt-a fp4 --fmt-b fp4 \\
      --width-a 16 --invert
  # a regression: cases of a spec that passed and now do not
  git bisect run harness bisect-run --llvm-bin-cmd 'echo /builds/$(git rev-parse --short HEAD)/bin' \\
      --spec f8f6f4-runtime-formats.yaml --filter '*__a_fp8_v16__b_fp8_v16'
"""

EPILOG = """\
exit status: 0 every selected case has the wanted verdict (good), 1 some case does not (bad),
125 the build cannot judge (skip), 129 usage error or bad input, 128 the harness failed (both
abort git bisect). --invert swaps 0 and 1, to hunt the commit that fixed something with
`git bisect start --term-old=broken --term-new=fixed`.
"""


HELP = "one git bisect step: vote good/bad/skip on this commit's LLVM build"


def add_parser(sub, formatter_class) -> argparse.ArgumentParser:
    p: Any = selection.command(sub, "bisect-run", HELP, DESCRIPTION, EPILOG, formatter_class)
    p.usage_status = USAGE  # a usage error aborts the bisect, never votes (parser.Parser.error)
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--llvm-bin", metavar="DIR", help="the build's bin directory (llc, llvm-mc, opt, llvm-as)")
    where.add_argument(
        "--llvm-bin-cmd", metavar="CMD", help="a shell command run at this commit that prints the bin directory (last line)"
    )
    p.add_argument("--build", metavar="CMD", help="a shell command that builds the tools first; failing skips (125)")
    p.add_argument(
        "--want",
        choices=[EXPECTED, *(v.value for v in V.ALL)],
        default=EXPECTED,
        help="the verdict every case must have: expected (default: each cell's own, as lit holds its file to: "
        "pass, llc-reject on a processor without the instruction, verifier-reject for IR the verifier must "
        "refuse) or one verdict for every case",
    )
    p.add_argument("--invert", action="store_true", help="swap good and bad (hunt the commit that fixed it)")
    selection.add_spec_flags(p)
    selection.add_space_flag(p)
    selection.add_case_flags(p)
    p.add_argument("-j", "--jobs", type=selection.jobs, default=None, metavar="N", help="parallel tool runs (default: cores)")
    distributed.add_flags(p)
    selection.add_timeout(p)
    return p


def main(args) -> int:
    try:
        if args.llvm_bin is not None and not args.llvm_bin.strip():
            raise InputError("--llvm-bin is empty (an unset variable?); every commit would test the same build")
        chosen = selection.planned(args)  # bad flags abort before anything is built
        if args.want == EXPECTED:  # (the same known-bugs file at every commit: bad there, bad everywhere)
            known_bugs.entries(args.cases)
        planned = _own_selectors(chosen)
        if chosen and not planned:  # (a target without the selector asked for: no commit judges it)
            return _decide(SKIP, _lacked_selectors(chosen), args.invert)
        if not planned:
            raise InputError(
                "the selection holds no case" + (" (is --shard K/N larger than the selection?)" if args.shard else "")
            )
        for target in {p.case.intrinsic.target for p in planned if p.case.intrinsic.target.assembler_optional}:
            if not toolchain.tool_path(target.assembler_tool, None):  # not the build's: no commit has it
                raise InputError(f"no {target.assembler_tool} to close {target.name} cases: no commit could be judged")
    except InputError as exc:
        print(f"harness bisect-run: {exc}", file=sys.stderr)
        return USAGE
    except Exception as exc:  # a spec the harness cannot read: abort, never vote
        print(f"harness bisect-run: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return OWN_FAILURE
    try:
        return _step(args, planned)
    except distributed.ClusterError as exc:  # not the build's doing: the same cluster fails every step
        print(f"harness bisect-run: {exc}", file=sys.stderr)
        return USAGE
    except InputError as exc:  # the build's tools gave output no verdict can come from
        return _decide(SKIP, str(exc), args.invert)
    except Exception as exc:  # the harness's own failure must not vote
        print(f"harness bisect-run: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return OWN_FAILURE


def _own_selectors(planned: list[Planned]) -> list[Planned]:
    """Each case under the selectors its target has: llc's `unsupported` for a selector the
    target lacks (GlobalISel on NVPTX) is the same at every commit, and would make each skip."""
    out = []
    for p in planned:
        own = tuple(s for s in p.selectors if p.case.intrinsic.target.has_selector(s))
        if own:
            out.append(dataclasses.replace(p, selectors=own))
    return out


def _lacked_selectors(planned: list[Planned]) -> str:
    """Why a selection whose every selector its target lacks cannot be judged (GlobalISel on
    NVPTX: llc's `unsupported` at every commit)."""
    lacked = sorted({f"{p.case.intrinsic.target.name} has no {s} selector" for p in planned for s in p.selectors})
    return f"{'; '.join(lacked)}: llc cannot judge these cases at any commit (choose another --selector)"


def _step(args, planned) -> int:
    invert = args.invert
    if args.build:
        run = _shell(args.build, None)
        if run.flooded:
            return _decide(SKIP, f"the build step printed more than {OUTPUT_LIMIT >> 20} MB on {run.flooded}; stopped", invert)
        if run.returncode != 0:
            return _decide(SKIP, f"the build step failed (exit {run.returncode}): {_tail(run.stdout + run.stderr)}", invert)
    bin_dir = args.llvm_bin
    if args.llvm_bin_cmd:
        bin_dir, why = _found_build(_shell(args.llvm_bin_cmd, args.timeout))
        if why:
            return _decide(SKIP, why, invert)
    elif bin_dir is not None and (lack := _no_llc(bin_dir)):
        # The same directory at every commit: a typo would make every step skip, and a build step
        # that succeeds without writing llc there is built elsewhere.
        after = " after the build step succeeded" if args.build else ""
        nxt = "check the path" + ("" if args.build else ", or build into it with --build")
        why = f"--llvm-bin {quote(str(bin_dir))} {lack}{after}: no commit can be judged from it ({nxt})"
        print(printable(f"harness bisect-run: {why}"), file=sys.stderr)
        return USAGE
    tc = toolchain.discover(bin_dir, args.timeout)
    version = tc.version
    missing = [t for t in REQUIRED_TOOLS if not tc.tool(t)]
    build = f"LLVM {version} ({_digest(tc.require('llc'))}) at {tc.bin_dir}"
    if missing:
        return _decide(SKIP, f"{build} lacks {', '.join(missing)}", invert)
    if args.space != "specs":  # the space of this build: the processors its llc lists
        planned = _own_selectors(selection.space(args, lambda t: tc.cpus(t.registered) if t.registered in tc.targets else None))
    groups = expand.lit_groups(planned, args.cases)
    with distributed.connected(args) as engine:  # (a build no worker has: unsupported, so skip)
        runner = Runner(tc, args.jobs, facts=False, engine=engine)
        outcomes = runner.run(groups)
    if runner.probe_died is not None:  # no case was compiled: its verdict says nothing of the cases
        return _decide(SKIP, f"{build}: {runner.probe_died.detail}; no case was compiled", invert)
    counts: dict[V.VerdictCode, int] = {}
    for o in outcomes:
        counts[o.verdict.verdict] = counts.get(o.verdict.verdict, 0) + 1
    summary = ", ".join(f"{counts[v]} {v}" for v in V.ALL if v in counts)
    unexpected: set[int] = set()  # (ids of the outcomes judged unexpected: named first below)
    if args.want == EXPECTED:
        judged = expectations.Judge(args.cases, version, groups, narrowed=bool(args.selector)).all(outcomes)
        summary += f" ({expectations.summary(expectations.counts(judged))})"
        unexpected = {id(j.outcome) for j in judged if j.judgment == expectations.UNEXPECTED}
    if counts.get(V.UNSUPPORTED) and args.want != V.UNSUPPORTED:
        why = next(o.verdict.detail for o in outcomes if o.verdict.verdict == V.UNSUPPORTED)
        return _decide(SKIP, f"{build}: {summary}: this build cannot judge ({why})", invert)
    if args.want == EXPECTED:
        want, wrong = (
            (lambda o: expectations.expected_verdict(o.case)),
            [o for o in outcomes if not expectations.meets(o.case, o.verdict)],
        )
    else:
        want, wrong = (lambda o: V.VerdictCode(args.want)), [o for o in outcomes if o.verdict.verdict != args.want]
    if not wrong:  # (the vote reads raw verdicts: a known bug that passes is no failure here)
        met = "gives the verdict its class expects" if args.want == EXPECTED else f"is {args.want}"
        return _decide(BAD if invert else GOOD, f"{build}: {summary}: every case {met}", invert)
    first = next((o for o in wrong if id(o) in unexpected), wrong[0])
    detail = f"{first.case.function} [{first.selector}] is {first.verdict.verdict}, not {want(first)}"
    return _decide(GOOD if invert else BAD, f"{build}: {summary}: {len(wrong)} not {args.want}, e.g. {detail}", invert)


def _no_llc(bin_dir: str) -> str:
    """Why `bin_dir` can hold no build (it is not a directory; its llc is missing, empty or not
    executable), or "". Without --build the same llc is judged at every commit, and a build step
    that succeeds leaves no such llc: either way every step would skip."""
    if not os.path.isdir(bin_dir):
        return "is not a directory"
    llc = os.path.join(bin_dir, "llc")
    if not os.path.isfile(llc):
        return "holds no llc"
    if os.path.getsize(llc) == 0:
        return "holds an empty llc"
    return "" if os.access(llc, os.X_OK) else "holds an llc that is not executable"


def _found_build(run: ShellRun) -> tuple[str, str]:
    """(the directory --llvm-bin-cmd printed last, "") or ("", why there is none)."""
    if run.flooded:
        return "", f"--llvm-bin-cmd printed more than {OUTPUT_LIMIT >> 20} MB on {run.flooded}, too long to be a path; stopped"
    lines = [line.strip() for line in run.stdout.splitlines() if line.strip()]
    if run.returncode != 0 or not lines:
        return "", f"--llvm-bin-cmd found no build (exit {run.returncode}): {_tail(run.stdout + run.stderr)}"
    if not os.path.isdir(lines[-1]):  # (False for a name too long or holding a NUL)
        whole = not run.cut or "\n" in run.stdout.rstrip()
        shown = quote(lines[-1]) if whole else f"{lines[-1][:58]!r}... (more than {KEPT:,} bytes)"
        return "", f"--llvm-bin-cmd printed {shown} last, which is not a directory"
    return lines[-1], ""


def _decide(code: int, why: str, invert: bool = False) -> int:
    """Print the one line of this step and return its exit status. With --invert, 0 is the old
    term (still broken) and 1 the new one (fixed), as `git bisect --term-old/--term-new` reads them."""
    words = {GOOD: "old: still broken", BAD: "new: fixed", SKIP: "skip"} if invert else {GOOD: "good", BAD: "bad", SKIP: "skip"}
    print(printable(f"bisect-run: {words[code]} (exit {code}): {why}"), flush=True)
    return code


@dataclasses.dataclass(frozen=True)
class ShellRun:
    """What a user's command did: its exit status (124 when it timed out), the ends of its
    streams (`cut`: stdout was longer than what is kept), and the name of a stream it printed
    more than OUTPUT_LIMIT bytes on ("" if none)."""

    returncode: int
    stdout: str
    stderr: str
    flooded: str = ""
    cut: bool = False


# Bytes a user's command may print on one stream before it is stopped (a build log is a few MB),
# and of each stream's end kept for the one line a step prints.
OUTPUT_LIMIT = toolchain.OUTPUT_LIMIT
KEPT = 64 << 10


def _shell(command: str, timeout: float | None) -> ShellRun:
    """A user's build or lookup command, run through the shell as typed (it is theirs), in a
    session of its own, its streams written to unnamed temporary files: the step goes on once
    the shell has exited, even when a daemon it started (sccache, a gradle daemon) still holds
    them. A timeout, a flood, Ctrl-C or SIGTERM ends the shell and everything left in its
    session, and nothing in it is left running when the step ends."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(command, shell=True, stdin=subprocess.DEVNULL, stdout=out, stderr=err, start_new_session=True)
        try:
            streams = {"stdout": out, "stderr": err}
            timed_out, flooded = toolchain.await_exit(proc, math.inf if timeout is None else timeout, streams, OUTPUT_LIMIT)
        except BaseException:
            _end_group(proc)
            raise
        flooded = flooded or next((name for name, f in streams.items() if os.fstat(f.fileno()).st_size > OUTPUT_LIMIT), "")
        if timed_out:
            return ShellRun(124, "", f"timed out after {timeout:g} s")
        cut = os.fstat(out.fileno()).st_size > KEPT
        return ShellRun(proc.returncode, _end_of(out), _end_of(err), flooded, cut)


def _end_of(f) -> str:
    """The last KEPT bytes a stream's file holds, as text."""
    size = os.fstat(f.fileno()).st_size
    f.seek(max(0, size - KEPT))
    return f.read(KEPT).decode(errors="replace")


def _end_group(proc: subprocess.Popen) -> None:
    """Kill the command's session and reap the shell."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()


def _digest(path: str) -> str:
    return "llc sha256 " + files.sha256_of(path)[:12]


def _tail(text: str, lines: int = 3) -> str:
    kept = [shorten(line.strip()) for line in text.splitlines() if line.strip()][-lines:]
    return " | ".join(kept) or "no output"


COMMANDS = {"bisect-run": main}
