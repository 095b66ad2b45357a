"""Command line: `harness expand`, `harness run`, `harness try`."""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
from pathlib import Path

from harness import cases, catalog, expand, formats, matrix, report, toolchain
from harness.cases import Case, Group, Planned, SELECTORS
from harness.errors import InputError
from harness.runner import Runner, stderr_progress

DEFAULT_CASES = Path(__file__).resolve().parent.parent / "cases"

EPILOG = """\
verdicts (per case and selector):
  pass             llc's text reassembles with llvm-mc
  mc-reject        llc succeeded but llvm-mc rejects its text (the over-wide tuple bug)
  cannot-select    llc's selector gave up ("Cannot select", GlobalISel "unable to legalize")
  verifier-reject  the IR verifier rejects the call (e.g. a source narrower than its format)
  crash            a tool died for another reason
  timeout          a tool ran past --timeout
  unsupported      this LLVM build lacks the target, CPU or intrinsic

LLVM build: --llvm-bin DIR, else $LLVM_BIN, else the newest /usr/lib/llvm-N/bin with AMDGPU,
else llc on PATH.
"""


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line and exit 2, like every other input error
        self.exit(2, f"{self.prog}: error: {message}\n")


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--llvm-bin", metavar="DIR", help="directory with llc, llvm-mc, llvm-as, opt")
    p.add_argument("--timeout", type=float, default=toolchain.DEFAULT_TIMEOUT, metavar="S",
                   help="seconds allowed to each tool call (default %(default)s)")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")


def _parser() -> argparse.ArgumentParser:
    fmt = argparse.RawDescriptionHelpFormatter
    top = _Parser(prog="harness", description="Regression harness for LLVM's matrix-instruction lowering.",
                  epilog=EPILOG, formatter_class=fmt)
    sub = top.add_subparsers(dest="command", required=True, parser_class=_Parser)

    p = sub.add_parser("expand", help="regenerate cases/generated/*.ll from the YAML specs",
                       description="Expand every cases/*.yaml into lit tests under cases/generated/.")
    p.add_argument("--cases", type=Path, default=DEFAULT_CASES, metavar="DIR")
    p.add_argument("--check", action="store_true", help="only report stale files; exit 1 if any")

    p = sub.add_parser("run", help="verdict for every expanded case", epilog=EPILOG, formatter_class=fmt,
                       description="Compile every case of the specs in grouped modules and print a verdict table.")
    p.add_argument("--cases", type=Path, default=DEFAULT_CASES, metavar="DIR")
    p.add_argument("-j", "--jobs", type=int, default=None, metavar="N", help="parallel tool runs (default: cores)")
    p.add_argument("--intrinsic", action="append", metavar="NAME", help="only these intrinsics (repeatable)")
    p.add_argument("--spec", action="append", metavar="FILE",
                   help="only the cases of these spec files in the cases directory (repeatable)")
    p.add_argument("--by", choices=("intrinsic", "class"), default="intrinsic",
                   help="rows of the table: intrinsic x selector (default) or file class x selector")
    p.add_argument("--object", action="store_true",
                   help="also build each object, disassemble it and compare its source tuples with the text")
    p.add_argument("--metrics", metavar="P1,P2",
                   help="compare register cost of every compiled case under two opt pipelines, e.g. none,instcombine")
    _common(p)

    p = sub.add_parser("try", help="run one case and print its verdict", epilog=EPILOG, formatter_class=fmt,
                       description="Build one case, run it through the real tools, print the verdict.\n"
                                   "Example: harness try --intrinsic wmma.f32.16x16x128.f8f6f4 --fmt-a fp4 --fmt-b fp8 --width-a 16")
    p.add_argument("--intrinsic", required=True, metavar="NAME", help="e.g. " + ", ".join(list(catalog.BY_NAME)[:2]))
    p.add_argument("--fmt-a", default=None, metavar="F", help=f"A format ({formats.spellings()})")
    p.add_argument("--fmt-b", default=None, metavar="F", help="B format (same spellings)")
    p.add_argument("--width-a", default="exact", metavar="N", help="A source width in i32 (or exact, max)")
    p.add_argument("--width-b", default="exact", metavar="N", help="B source width in i32 (or exact, max)")
    p.add_argument("--selector", choices=SELECTORS, default="sdag")
    p.add_argument("--cpu", default=None, help="default: the intrinsic's CPU")
    p.add_argument("-O", dest="opt", type=int, choices=cases.OPT_LEVELS, default=0, help="llc -O level (default 0)")
    p.add_argument("--pipeline", default="none", metavar="P",
                   help="opt -passes= pipeline run before llc: none (default), instcombine, or any pass list")
    p.add_argument("--arg", action="append", default=[], metavar="N=V",
                   help="override call operand N (an index, or fmt_a/fmt_b) with V (an integer or %%name)")
    p.add_argument("--narrowing", choices=("shufflevector", "vector.extract"), default="",
                   help="narrow over-wide sources in IR, in this representation, before the call")
    p.add_argument("--no-object", dest="object", action="store_false",
                   help="skip building and disassembling the object (tuples from the object)")
    _common(p)
    return top


def _tc(args) -> toolchain.Toolchain:
    return toolchain.discover(args.llvm_bin, args.timeout)


def cmd_expand(args) -> int:
    rendered = expand.render(args.cases)
    if args.check:
        stale = expand.differences(args.cases, rendered)
        for name in stale:
            print(f"stale: {args.cases / expand.GENERATED / name}")
        print(f"{len(rendered)} generated files, {len(stale)} stale")
        return 1 if stale else 0
    touched = expand.write(args.cases, rendered)
    print(f"{len(rendered)} generated files in {args.cases / expand.GENERATED}, {len(touched)} updated")
    return 0


def _spec_paths(args) -> list[Path]:
    paths = matrix.spec_files(args.cases)
    if not args.spec:
        return paths
    by_name = {p.name: p for p in paths}
    chosen = []
    for name in args.spec:
        key = Path(name).name
        if key not in by_name:
            raise InputError(f"--spec: no spec {key!r} in {args.cases}; have: {', '.join(by_name)}")
        chosen.append(by_name[key])
    return chosen


def cmd_run(args) -> int:
    planned = matrix.plan(_spec_paths(args))
    if args.intrinsic:
        wanted = {_lookup(n).name for n in args.intrinsic}
        planned = [p for p in planned if p.case.intrinsic.name in wanted]
    pipelines = _metrics_pipelines(args.metrics) if args.metrics else None
    tc = _tc(args)
    print(f"# {tc.describe()}", file=sys.stderr)
    if pipelines:
        return _compare_pipelines(args, tc, planned, pipelines)
    outcomes = Runner(tc, args.jobs, stderr_progress, with_object=args.object).run(cases.group(planned))
    if args.json:
        doc = {"llvm": tc.version, "llvm_bin": str(tc.bin_dir or "PATH"),
               "cases": [report.case_record(o) for o in outcomes]}
        print(json.dumps(doc, indent=1))
    else:
        print(report.table(outcomes, by=args.by))
    return 0


def _metrics_pipelines(text: str) -> list[str]:
    names = [p.strip() for p in text.split(",")]
    if len(names) != 2 or not all(names):
        raise InputError(f"--metrics takes two pipelines separated by a comma, e.g. none,instcombine; got {text!r}")
    return names


def _compare_pipelines(args, tc, planned: list[Planned], names: list[str]) -> int:
    compiled = [p for p in planned if not p.case.rejection]
    runs = []
    for name in names:
        moved = [Planned(dataclasses.replace(p.case, pipeline=name, check="codegen"), p.selectors, p.origins) for p in compiled]
        runs.append(Runner(tc, args.jobs, stderr_progress).run(cases.group(moved)))
    pairs = list(zip(*runs))
    if args.json:
        doc = [{"function": a.case.function, "selector": a.selector,
                names[0]: {"verdict": a.verdict.verdict, "metrics": a.verdict.details.get("metrics")},
                names[1]: {"verdict": b.verdict.verdict, "metrics": b.verdict.details.get("metrics")}} for a, b in pairs]
        print(json.dumps(doc, indent=1))
    else:
        print(report.metrics_table(pairs, names))
    return 0


def _width(text: str, source: catalog.Source, fmt: int, flag: str) -> int:
    if text in ("exact", "max"):
        return cases.widths_for(text, source, fmt)[0]
    try:
        value = int(text)
    except ValueError:
        raise InputError(f"{flag} must be an integer, exact or max; got {text!r}") from None
    if value <= 0:
        raise InputError(f"{flag} must be positive; got {value}")
    return value


def _fmt(text: str | None, source: catalog.Source, flag: str) -> int:
    if text is None:
        if len(source.formats) == 1:
            return source.formats[0]
        raise InputError(f"{flag} is required for this intrinsic ({formats.spellings()})")
    try:
        value = formats.parse(text)
    except ValueError as exc:
        raise InputError(f"{flag}: {exc}") from None
    if value not in source.regs:
        raise InputError(f"{flag}: this intrinsic's source takes only {' '.join(map(formats.short, source.formats))}")
    return value


def _lookup(name: str) -> catalog.Intrinsic:
    try:
        return catalog.lookup(name)
    except KeyError as exc:
        raise InputError(str(exc).strip('"')) from None


def cmd_try(args) -> int:
    intr = _lookup(args.intrinsic)
    cpu = args.cpu or intr.cpus[0]
    if cpu not in intr.cpus:
        raise InputError(f"--cpu: {intr.name} runs on {', '.join(intr.cpus)}, not {cpu}")
    fa = _fmt(args.fmt_a, intr.a, "--fmt-a")
    fb = _fmt(args.fmt_b, intr.b, "--fmt-b")
    overrides = matrix.resolve_arg_flags(intr, args.arg)
    case = Case(intr, cpu, fa, fb, _width(args.width_a, intr.a, fa, "--width-a"),
                _width(args.width_b, intr.b, fb, "--width-b"), args.opt, args.pipeline,
                args=overrides, narrowing=args.narrowing)
    group = Group(intr, cpu, args.opt, case.file_class, (args.selector,), (Planned(case, (args.selector,), ()),),
                  args.pipeline)
    tc = _tc(args)
    outcome = Runner(tc, 1, with_object=args.object).run([group])[0]
    record = report.case_record(outcome, with_tools=True)
    record["llvm"] = tc.version
    if args.json:
        print(json.dumps(record, indent=1))
    else:
        print(f"{case.function} [{args.selector}, -O{args.opt}, {tc.describe()}]")
        print(f"verdict: {outcome.verdict.verdict}")
        if outcome.verdict.detail:
            print("detail:  " + outcome.verdict.detail.replace("\n", "\n         "))
        for key, value in outcome.verdict.details.items():
            print(f"{key + ':':8} {json.dumps(value)}")
        for t in outcome.verdict.tools:
            print(f"  $ {' '.join(t.argv)}  -> {'timeout' if t.timed_out else t.returncode}")
    return 0


COMMANDS = {"expand": cmd_expand, "run": cmd_run, "try": cmd_try}


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except InputError as exc:
        print(f"harness: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `harness run | head`: the reader left; say nothing more
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
