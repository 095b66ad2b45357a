"""What each `harness` command does (expand, update-checks, audit, run, try) and the entry
point; the flags and help texts are in parser.py, the other commands in their own modules."""

from __future__ import annotations

import io
import os

# The console script (`harness`) and `python -m harness` import this module before main() runs,
# and its imports take about a tenth of a second. A Ctrl-C meanwhile has started nothing and has
# nothing to say: it exits 130, as a Ctrl-C later in the run does, without a traceback.
try:
    import dataclasses
    import signal
    import sys
    import threading
    from collections.abc import Callable

    from harness import parser
    from harness.checks import expand
    from harness.core import commands, files
    from harness.core.commands import Selector
    from harness.core.errors import PATH_LIMIT, InputError, printable, quoted, shortened
    from harness.kernels import gemm_spec
    from harness.reports import compare, expectations, report
    from harness.specs import matrix, selection
    from harness.specs.cases import Planned
    from harness.tools import cache, declared, distributed, toolchain
    from harness.tools.runner import Runner, StderrProgress
except KeyboardInterrupt:
    os._exit(130)


def _tc(args) -> toolchain.Toolchain:
    return toolchain.discover(args.llvm_bin, args.timeout, cache.keeps_answers(args))


def cmd_expand(args) -> int:
    from harness.checks import snapshots
    from harness.specs import known_bugs

    rendered = expand.render(args.cases, args.max_cases)
    stale = expand.stale(args.cases, rendered)
    for warning in known_bugs.idle(args.cases, (f"{expand.GENERATED}/{name}" for name in rendered)):
        print(f"harness: {warning}", file=sys.stderr)
    if args.check:
        with answering(1 if stale else 0):
            for name, why in stale.items():
                print(f"stale: {args.cases / expand.GENERATED / name} ({why})")
            print(f"{len(rendered)} generated files, {len(stale)} stale")
        return 1 if stale else 0
    regenerate = None
    pending = [n for n in stale if n in rendered and n.startswith(expand.SNAPSHOT_PREFIX)]
    if pending:
        try:
            tc = _tc(args)
            print(f"# snapshots from {tc.describe()}", file=sys.stderr)
            regenerate = snapshots.regenerator(tc)
        except InputError as exc:
            if args.llvm_bin or os.environ.get("LLVM_BIN"):  # the build asked for is unusable: bad input
                raise
            print(
                f"harness: {len(pending)} snapshot file(s) written without CHECK lines, since no LLVM "
                f"build was found ({exc}); fill them with `harness update-checks`",
                file=sys.stderr,
            )
    touched = expand.write(args.cases, rendered, regenerate)
    with answering(0):  # (every file is written)
        print(f"{len(rendered)} generated files in {args.cases / expand.GENERATED}, {len(touched)} updated")
    return 0


def cmd_update_checks(args) -> int:
    from harness.checks import snapshots

    tc = _tc(args)
    llc = tc.require("llc")
    differs = refused = 0
    for path in args.files:
        result = snapshots.update(path, tc, llc, force=args.force)
        for warning in result.warnings:
            print(f"WARNING: {warning}", file=sys.stderr)
        if result.refused:
            refused += 1
            print(f"{path}: not updated: {result.refused}", file=sys.stderr)
            continue
        if args.check:
            for change in result.changes:
                differs += 1
                where = f"{change.function} [{change.prefix}]" if change.function else "lines outside the CHECK blocks"
                print(f"{path}: {where} differs")
                print(change.diff.rstrip("\n"))
            was, now = snapshots.recorded_version(result.old_text), snapshots.recorded_version(result.new_text)
            if was != now:  # lit would skip this snapshot on the build it was compared with
                differs += 1
                print(f"{path}: the snapshot records LLVM {was or 'no build'}; this is {now}")
            continue
        if result.new_text != result.old_text:
            files.write_atomically(path, result.new_text, result.old_text.encode())
            print(f"{path}: updated ({len(result.changes)} function/prefix block(s) changed)")
            was, now = snapshots.recorded_version(result.old_text), snapshots.recorded_version(result.new_text)
            if was != now:
                print(f"{path}: the snapshot now records LLVM {now} (was {was or 'none'})")
        else:
            print(f"{path}: up to date")
    if args.check:
        status = 2 if refused else 1 if differs else 0  # (a gate that checked nothing must not pass)
        with answering(status):
            print(
                f"{len(args.files)} file(s), {differs} function/prefix block(s) differ from llc {tc.version}"
                + (f", {refused} could not be checked" if refused else "")
            )
        return status
    if refused:  # what was asked is not done: a script must not read "updated"
        print(
            f"harness: {refused} of {len(args.files)} file(s) not updated (see above); nothing written to them", file=sys.stderr
        )
        return 2
    return 0


def cmd_audit(args) -> int:
    from harness.checks import audit

    for path in args.files:  # every file readable before any tool runs
        audit.read_test(path)
    tc = _tc(args)
    print(f"# {tc.describe()}", file=sys.stderr)
    audits, skipped = [], []
    for path in args.files:
        try:
            audits.append(audit.audit_file(path, tc))
        except audit.NothingAudited as exc:  # (bad input when no file could be audited at all)
            skipped.append(exc)
    if not audits:
        if len(skipped) == 1:
            raise skipped[0]
        raise InputError(f"nothing audited in {len(skipped)} files (the first, {skipped[0].path}: {skipped[0].reason})")
    status = 0 if all(a.clean for a in audits) else 1
    with answering(status):
        if args.json:
            records = [a.record() for a in audits] + [{"path": e.path, "skipped": e.message} for e in skipped]
            print(files.json_text({"llvm": tc.version, "files": records}))
        else:
            print(audit.table(audits, skipped))
    return status


def _quietly(call: Callable, *args) -> None:
    """call(*args) in a thread of its own: what it raises is raised again where it is asked."""
    try:
        call(*args)
    except BaseException:
        pass


def _ask_ahead(tc: toolchain.Toolchain, planned: list[Planned]) -> None:
    """Ask the build its version, the CPUs of the targets the cases use and which of their
    intrinsics it knows, all at once, each in a thread of its own, while the caller groups the
    cases. The answers are memoised in `tc`, where the runner finds them; what a probe raises
    is raised again where it is asked. Until the caller sets it back, a thread that asks for
    the interpreter gets it within 0.2 ms, so the probes start at once."""
    sys.setswitchinterval(0.0002)
    intrinsics = list({p.case.intrinsic: None for p in planned})
    asks: list[tuple] = [(lambda: tc.version_text,), (declared.support_of, tc, intrinsics)]
    asks += [(tc.cpus, registered) for registered in {i.target.registered for i in intrinsics}]
    for ask in asks:
        threading.Thread(target=_quietly, args=ask, daemon=True).start()


def cmd_run(args) -> int:
    with distributed.connected(args) as engine:
        return _run(args, engine)


def _run(args, engine) -> int:
    if args.space != "specs":
        tc = _tc(args)
        planned = selection.space(args, lambda t: tc.cpus(t.registered) if t.registered in tc.targets else None)
    else:
        planned = _run_selection(args)
        tc = _tc(args)
    pipelines = _metrics_pipelines(args.metrics) if args.metrics else None
    store = cache.from_args(args)
    switch = sys.getswitchinterval()
    try:
        if store is None:  # (with a cache, every probe goes through it)
            _ask_ahead(tc, planned)
        groups = [] if pipelines else expand.lit_groups(planned, args.cases)
    finally:
        sys.setswitchinterval(switch)
    print(f"# {tc.describe()}", file=sys.stderr)
    if pipelines:
        return _compare_pipelines(args, tc, planned, pipelines)
    progress = StderrProgress.for_output(args.json)
    runner = Runner(tc, args.jobs, progress, with_object=args.object, cache=store, facts=args.json, engine=engine)
    outcomes = runner.run(groups)
    judged = expectations.Judge(args.cases, tc.version, groups, narrowed=bool(args.selector)).all(outcomes)
    status, why = _judged_status(judged)
    with answering(status, why and printable(f"harness run: error: {why}")):
        if args.json:
            shard = f"{args.shard[0]}/{args.shard[1]}" if args.shard else None
            records = [report.case_record(j.outcome) | expectations.record(j) for j in judged]
            doc = {
                "llvm": tc.version,
                "llvm_bin": str(tc.bin_dir or "PATH"),
                "shard": shard,
                "selection": compare.selection_record(args),
                "judgments": expectations.count_record(judged),
                "cases": records,
            }
            print(files.json_text(doc))
        else:
            bad = [
                report.case_record(j.outcome) | expectations.record(j) for j in judged if j.judgment == expectations.UNEXPECTED
            ]
            print("\n".join([*expectations.unexpected_lines(bad), report.table(outcomes, by=args.by)]))
            print(expectations.summary(expectations.counts(judged)))
    return status


def _judged_status(judged: list[expectations.Judged]) -> tuple[int, str]:
    """The exit status of judged cells and, when none was judged, why (status NOTHING_JUDGED):
    decided before the answer is printed, so that a reader who leaves early gets it too."""
    why = expectations.nothing_judged(judged)
    if why:
        return expectations.NOTHING_JUDGED, why
    return expectations.exit_status(expectations.counts(judged)), ""


def _run_selection(args) -> list[Planned]:
    """The cases (from the specs' matrix blocks, every target alike) that `run`'s flags select."""
    planned = selection.planned(args, direct_ok=False)
    gemm_spec.load_gemm(selection.spec_paths(args))  # every section of the specs is checked, as expand does
    return planned


def _metrics_pipelines(text: str) -> list[str]:
    names = [p.strip() for p in text.split(",")]
    if len(names) != 2 or not all(names):
        raise InputError(f"--metrics takes two pipelines separated by a comma, e.g. none,instcombine; got {quoted(text)}")
    for name in names:
        why = commands.pass_pipeline_error(name) if name != "none" else ""
        if why:
            raise InputError(f"--metrics {quoted(name)}: {why}")
    return names


def _compare_pipelines(args, tc, planned: list[Planned], names: list[str]) -> int:
    compiled = [p for p in planned if not p.case.rejection]
    runs = []
    for name in names:
        moved = [Planned(dataclasses.replace(p.case, pipeline=name, check="codegen"), p.selectors, p.origins) for p in compiled]
        runner = Runner(tc, args.jobs, StderrProgress.for_output(args.json), cache=cache.from_args(args))
        runs.append(runner.run(expand.lit_groups(moved, args.cases)))
    pairs = list(zip(*runs))
    with answering(0):
        if args.json:
            doc = [
                {
                    "function": a.case.function,
                    "selector": a.selector,
                    names[0]: {"verdict": a.verdict.verdict, "metrics": a.verdict.details.get("metrics")},
                    names[1]: {"verdict": b.verdict.verdict, "metrics": b.verdict.details.get("metrics")},
                }
                for a, b in pairs
            ]
            print(files.json_text(doc))
        else:
            print(report.metrics_table(pairs, names))
    return 0


def cmd_try(args) -> int:
    if not args.intrinsic or len(args.intrinsic) != 1:
        raise InputError("try takes exactly one --intrinsic")
    intr = selection.lookup(args.intrinsic[0], args.cpu)
    case = selection.one_case(args, intr, {"args": matrix.resolve_arg_flags(intr, args.arg), "narrowing": args.narrowing})
    selectors = (Selector(args.selector),) if args.selector else intr.target.selectors
    cases_dir = getattr(args, "cases", selection.DEFAULT_CASES)
    group = expand.lit_groups([Planned(case, selectors, ())], cases_dir)[0]
    tc = _tc(args)
    tc.keep_inputs = args.keep is not None
    outcomes = Runner(tc, len(selectors), with_object=args.object).run([group])
    judge = expectations.Judge(cases_dir, tc.version, [group], narrowed=bool(args.selector))
    judged = judge.all(outcomes)  # (a file's cells judged together, as lit judges the file)
    records = [report.case_record(j.outcome, with_tools=True) | expectations.record(j) | {"llvm": tc.version} for j in judged]
    if args.keep is not None:
        runs = [t for o in outcomes for t in o.verdict.tools]
        toolchain.keep_runs(args.keep, runs)
        print(f"# inputs, outputs and replay.sh of {len(runs)} tool runs in {args.keep}", file=sys.stderr)
    status, why = _judged_status(judged)
    with answering(status, why and printable(f"harness try: error: {why}")):
        if args.json:
            many = {"llvm": tc.version, "judgments": expectations.count_record(judged), "cases": records}
            print(files.json_text(records[0] if len(records) == 1 else many))
        elif len(judged) == 1:
            _print_tried(judged[0], f"{case.function} [{outcomes[0].selector}, -O{case.opt}, {tc.describe()}]")
        else:
            _print_tried_selectors(judged, f"{case.function} [-O{case.opt}, {tc.describe()}]")
    return status


def _print_tried_selectors(judged: list[expectations.Judged], header: str) -> None:
    print(header)
    width = max(len(j.outcome.verdict.verdict) for j in judged)
    for j in judged:
        detail = j.outcome.verdict.detail.splitlines()[0] if j.outcome.verdict.detail else ""
        line = f"{j.outcome.selector:<6} {j.outcome.verdict.verdict:<{width}}  {expectations.in_brief(j)}"
        print(line + (f": {_cut(detail, 148 - len(line))}" if detail else ""))
    print("(--selector S: that selector's judgment in full, its detail, facts and tool runs)")


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= max(limit, 40) else text[: max(limit, 40) - 3] + "..."


def _print_tried(judged: expectations.Judged, header: str) -> None:
    verdict = judged.outcome.verdict
    print(header)
    print(f"verdict: {verdict.verdict}")
    print(f"judged:  {expectations.in_words(judged)}")
    if verdict.detail:
        print("detail:  " + verdict.detail.replace("\n", "\n         "))
    for key, value in verdict.details.items():
        print(f"{key + ':':8} {files.json_text(value, indent=None)}")
    for t in verdict.tools:
        print(f"  $ {' '.join(t.argv)}  -> {'timeout' if t.timed_out else t.returncode}")


# The subcommands run here; parser.ELSEWHERE names the modules that run the others.
COMMANDS = {"expand": cmd_expand, "update-checks": cmd_update_checks, "audit": cmd_audit, "run": cmd_run, "try": cmd_try}


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP: unwinds like Ctrl-C (the tools are ended and every temporary file is
    removed on the way out), and the harness exits 128 + the signal's number, as a shell reports
    a process that signal ended (143, 129; Ctrl-C's is 130)."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


def _terminated(signum, frame):
    raise Terminated(signum)


def _closed_streams_to_devnull() -> None:
    """Give a standard stream the shell closed (`>&-`, `2>&-`, `<&-`) to /dev/null.

    Python leaves such a stream None, so a print() to sys.stderr would land on sys.stdout (a
    note inside --json) and sys.stderr.write would raise. With the descriptor on /dev/null and
    the stream on it, whatever the harness says there goes nowhere, the other stream keeps only
    its own text and the exit status stays the verdict's. The descriptor itself is filled too:
    a file opened later would otherwise take it, and a tool started without redirection would
    write into that file."""
    for fd, name in enumerate(("stdin", "stdout", "stderr")):
        try:
            os.fstat(fd)
        except OSError:  # closed: /dev/null takes the number (the lowest free one)
            null = os.open(os.devnull, os.O_RDONLY if fd == 0 else os.O_WRONLY)
            if null != fd:
                os.dup2(null, fd)
                os.close(null)
        if getattr(sys, name) is None:
            setattr(sys, name, open(os.devnull, "r" if fd == 0 else "w", encoding="utf-8"))


def _dispatch(argv: list[str] | None) -> int:
    """Run the command `argv` names; its exit status."""
    _closed_streams_to_devnull()
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGTERM, signal.SIGHUP):
            signal.signal(signum, _terminated)
    words = sys.argv[1:] if argv is None else argv
    if "bisect-run" in words:
        from harness.reports import bisect

        parser.Parser.usage_status = bisect.USAGE
    else:
        parser.Parser.usage_status = 2
    args = parser.build(words).parse_args(words)
    return (COMMANDS.get(args.command) or parser.command(args.command))(args)


ReaderLeft, answering = files.ReaderLeft, files.answering


def _delivered(status: int) -> None:
    """Hand what the command printed to stdout's reader now, inside main(), where a reader that
    left is answered; the interpreter's own flush at exit would print a traceback-like note and
    exit 120."""
    with answering(status):
        sys.stdout.flush()


def _reader_left(status: int | None) -> int:
    """The exit status when stdout's reader left before taking everything (`harness run | head`,
    `harness run --json | jq` with jq failing).

    A status the command had already decided other than 0 is kept: 1 for unexpected cells, 2 for
    bad input. Under `set -o pipefail` a pipeline must fail as the run failed, whatever the reader
    did; that status says more than any other. Otherwise (0, or no status decided yet) it is 141,
    128 + SIGPIPE, what a shell reports for a process SIGPIPE ended, as `yes | head` ends: 0 would
    vouch for output the reader never took (a truncated document, a table cut short), and a
    command stopped mid-way has no verdict to give. Nothing more is said; stdout goes to
    /dev/null, so that what is still buffered does not fail again at exit."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return status if status else 128 + signal.SIGPIPE


def _say(line: str) -> None:
    """Print one line on stderr (`Notes`: a stderr that cannot take it takes nothing, and the
    exit status says the rest)."""
    print(line, file=sys.stderr)


class Notes:
    """stderr, which holds notes (progress, the build, what was written) and error lines: a
    stream that refuses a write (its reader left, a full disk as with `2>/dev/full`) is given
    /dev/null and takes nothing more, so the exit status stays the command's own, never the
    failure of a note."""

    def __init__(self, stream):
        self.stream = stream

    def write(self, text: str) -> int:
        try:
            return self.stream.write(text)
        except (OSError, ValueError):
            self._drop()
            return len(text)

    def flush(self) -> None:
        try:
            self.stream.flush()
        except (OSError, ValueError):
            self._drop()

    def _drop(self) -> None:
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), self.stream.fileno())  # (what it still buffers goes there)
        except (OSError, ValueError, AttributeError):
            pass
        self.stream = open(os.devnull, "w", encoding="utf-8")

    def __getattr__(self, name: str):
        return getattr(self.stream, name)


def _exit_code(exc: SystemExit) -> int:
    """The exit status a SystemExit ends the process with (argparse's: 0 after --help, 2)."""
    return exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1


class Answer:
    """stdout, written in pieces no larger than its buffer: CPython's buffered writer, handed one
    large write that a pipe takes only in part, can drop the broken pipe of the rest (`harness
    report --json ... | head -c 5` would exit 0); a piece that small goes through the buffer,
    whose flush reports it."""

    PIECE = io.DEFAULT_BUFFER_SIZE

    def __init__(self, stream):
        self.stream = stream

    def write(self, text: str) -> int:
        for start in range(0, len(text), self.PIECE):
            self.stream.write(text[start : start + self.PIECE])
        return len(text)

    def __getattr__(self, name: str):
        return getattr(self.stream, name)


def main(argv: list[str] | None = None) -> int:
    before = {"stdout": sys.stdout, "stderr": sys.stderr}
    kinds = {"stdout": Answer, "stderr": Notes}
    ours = {}  # (a stream the shell closed stays None here: _closed_streams_to_devnull fills it)
    for name, stream in before.items():
        if stream is not None and not isinstance(stream, kinds[name]):
            ours[name] = kinds[name](stream)
            setattr(sys, name, ours[name])
    try:
        return _main(argv)
    finally:
        for name, stream in ours.items():
            if getattr(sys, name) is stream:
                setattr(sys, name, before[name])


def _main(argv: list[str] | None) -> int:
    try:  # (a Ctrl-C from the first statement on is answered below)
        try:
            status = _dispatch(argv)
        except SystemExit as exc:  # argparse after --help or a usage error: its text is printed
            _delivered(_exit_code(exc))
            raise
        _delivered(status)
        return status
    except InputError as exc:
        _say(f"harness: {exc}")
        return 2
    except KeyboardInterrupt as exc:
        toolchain.stop_all()  # any tool still running ends with the harness
        return 128 + (exc.signum if isinstance(exc, Terminated) else signal.SIGINT)
    except ReaderLeft as exc:
        return _reader_left(exc.status)
    except BrokenPipeError:  # (before the command decided its status: a tool may still run)
        toolchain.stop_all()
        return _reader_left(None)
    except OSError as exc:  # the file system refused (permissions, disk full, a path gone): one line
        where = f"{shortened(str(exc.filename), PATH_LIMIT)}: " if exc.filename else ""
        _say(f"harness: {where}error: {exc.strerror or exc}")
        return 2
