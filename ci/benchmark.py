#!/usr/bin/env python3
"""Benchmark `harness run` on the full shipped matrix against the raw tools, in one run.

(a) raw lower bound: the fewest tool processes that decide the same verdicts, their modules
    written to disk beforehand and piped straight through the tools with no harness (see
    raw_jobs), with the same number of parallel workers.
(b) `harness run` as a user runs it (a fresh process: start-up, expansion, probes, verdicts).
Prints the median of --repeat runs of each and the ratio b/a.

With --lit, also (c) `lit cases/` over the same generated files, and the ratio c/b both in wall
time and in CPU seconds of each process tree (children included), which a busy machine moves
far less than wall time.

With --scheduler 1,2: no (a)-(c), but the scaling of a distributed run. For each worker count, a
real `dask scheduler` and that many `dask worker` processes (one thread each, the builds found
by the harness's preload) on this machine, and `harness run --space SPACE --scheduler` over
them: cells per second and the speed-up over the first count.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from harness.checks import expand  # noqa: E402
from harness.specs import cases, emit, matrix  # noqa: E402
from harness.tools import runner, toolchain  # noqa: E402


def raw_jobs(groups, tc, workdir: Path) -> list[str]:
    """Shell pipelines over pre-written modules: the least tool work that decides every verdict,
    with the answers known beforehand. Per module the harness would build (runner.batches): the
    calls the verifier rejects in one module through llvm-as; each call on a CPU without its
    instruction alone through llc per selector (llc stops at the first); the rest per selector
    through [opt -S |] llc | llvm-mc, and for object checks llc -filetype=obj | llvm-objdump -d.
    """
    tool = lambda command: shlex.join([tc.require(command.tool), *command.args])
    jobs = []
    for n, batch in enumerate(runner.batches(groups)):
        members = [c for _, c in batch.members]
        rejected = [c for c in members if c.rejection]
        absent = [c for c in members if not c.rejection and c.cpu not in c.intrinsic.cpus]
        rest = [c for c in members if not c.rejection and c.cpu in c.intrinsic.cpus]
        if rejected:
            path = workdir / f"{n}.verifier.ll"
            path.write_text(emit.module(rejected).text)
            jobs.append(f"{tc.require('llvm-as')} -o /dev/null {path}")
        for i, c in enumerate(absent):
            path = workdir / f"{n}.absent.{i}.ll"
            path.write_text(emit.module([c]).text)
            jobs += [f"{tool(cases.llc_command(c, sel))} < {path}" for sel in batch.selectors]
        if not rest:
            continue
        first, path = rest[0], workdir / f"{n}.ll"
        path.write_text(emit.module(rest).text)
        head = f"{tool(cases.opt_command(first, first.pipeline))} -S < {path} | " if first.pipeline != "none" else ""
        source = "" if head else f" < {path}"
        for sel in batch.selectors:
            closing = cases.mc_command(first, first.intrinsic.target.stdin_name)
            jobs.append(f"{head}{tool(cases.llc_command(first, sel))}{source} | {tool(closing)}")
            if first.check == "object":
                obj = tool(cases.llc_command(first, sel, obj=True))
                jobs.append(f"{head}{obj}{source} | {tc.require('llvm-objdump')} -d - > /dev/null")
    return jobs


def time_raw(jobs: list[str], workers: int) -> float:
    start = time.perf_counter()
    with ThreadPoolExecutor(workers) as pool:  # same environment as the harness gives its tools
        list(pool.map(lambda cmd: subprocess.run(cmd, shell=True, capture_output=True, env=toolchain.TOOL_ENV), jobs))
    return time.perf_counter() - start


def timed(argv: list[str], what: str) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system, every reaped descendant) of one command."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        sys.exit(f"{what} failed (exit {proc.returncode}):\n{proc.stderr[-2000:]}")
    return elapsed, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def time_harness(args: list[str]) -> tuple[float, float]:
    return timed([sys.executable, "-m", "harness", "run", *args], "harness run")


def time_lit(args: list[str], workers: int) -> tuple[float, float]:
    lit = Path(sys.executable).with_name("lit")
    return timed([str(lit), "-q", f"-j{workers}", str(ROOT / "cases"), *args], "lit cases/")


def runs(label: str, values: list[float]) -> str:
    return f"{label} {statistics.median(values):8.3f} s  (runs: {', '.join(f'{x:.3f}' for x in values)})"


def _cluster(workers: int, bin_dir: str, tmp: Path) -> tuple[str, list[subprocess.Popen]]:
    """A scheduler and `workers` one-thread workers with this build; (address, processes)."""
    dask = str(Path(sys.executable).with_name("dask"))
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HARNESS_LLVM_BIN": bin_dir}
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "env": env, "start_new_session": True}
    file = tmp / f"scheduler-{workers}.json"
    procs = [subprocess.Popen([dask, "scheduler", "--scheduler-file", str(file), "--host", "127.0.0.1", "--port", "0",
                               "--no-dashboard"], **quiet)]  # fmt: skip
    while not file.exists():
        time.sleep(0.1)
    address = json.loads(file.read_text())["address"]
    procs += [subprocess.Popen([dask, "worker", address, "--nthreads", "1", "--no-dashboard", "--preload",
                                "harness.tools.distributed"], **quiet) for _ in range(workers)]  # fmt: skip
    from distributed import Client

    with Client(address, timeout=30) as client:
        client.wait_for_workers(workers, timeout=120)
    return address, procs


def scaling(counts: list[int], space: str, tc, timeout: float | None) -> int:
    """Cells per second of `harness run --space SPACE --scheduler` on 1.. local workers; each
    count's row is printed when its run ends, with the cells whose record differs from the first count's."""
    rows, first_cases = [], None
    print(f"{tc.describe()}; --space {space}; local Dask workers of one thread each", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        for n in counts:
            address, procs = _cluster(n, str(tc.bin_dir), Path(tmp))
            try:
                argv = [sys.executable, "-m", "harness", "run", "--llvm-bin", str(tc.bin_dir), "--space", space, "--json"]
                argv += ["--timeout", str(timeout)] if timeout is not None else []
                start = time.perf_counter()
                proc = subprocess.run([*argv, "--scheduler", address], capture_output=True, text=True, cwd=ROOT)
                wall = time.perf_counter() - start
            finally:
                for p in procs:
                    p.terminate()
                for p in procs:
                    p.wait()
            if proc.returncode not in (0, 1):
                sys.exit(f"harness run --scheduler failed (exit {proc.returncode}):\n{proc.stderr[-2000:]}")
            cases = json.loads(proc.stdout)["cases"]
            first_cases = first_cases or cases
            other = sum(a != b for a, b in zip(cases, first_cases)) + abs(len(cases) - len(first_cases))
            rows.append((n, len(cases), wall))
            print(f"{n:3d} worker(s): {len(cases)} cells in {wall:8.1f} s, {len(cases) / wall:7.1f} cells/s, "
                  f"{other} cells judged otherwise than with {rows[0][0]}", flush=True)  # fmt: skip
    base = min(rows)
    for n, _, wall in rows:
        print(f"speed-up of {n} worker(s) over {base[0]}: {base[2] / wall:.2f}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--llvm-bin", default=None)
    parser.add_argument(
        "--spec",
        action="append",
        metavar="FILE",
        help="only these spec files of cases/ (default: all), e.g. f8f6f4-runtime-formats.yaml",
    )
    parser.add_argument("--lit", action="store_true", help="also time `lit cases/` (all its files) against `harness run`")
    parser.add_argument("--scheduler", metavar="N,N", help="instead: the scaling on N local Dask workers (e.g. 1,2)")
    parser.add_argument("--space", default="full", help="the space --scheduler runs (default full)")
    parser.add_argument(
        "--timeout", type=float, help="harness run's --timeout for --scheduler (the full space of 22.1.8 has 110 hangs)"
    )
    opts = parser.parse_args()
    if opts.scheduler:
        return scaling([int(n) for n in opts.scheduler.split(",")], opts.space, toolchain.discover(opts.llvm_bin), opts.timeout)
    if opts.lit and opts.spec:
        parser.error("--lit runs every file of cases/: give no --spec")
    tc = toolchain.discover(opts.llvm_bin)
    workers = os.cpu_count() or 1
    specs = matrix.spec_files(ROOT / "cases")
    if opts.spec:
        specs = [p for p in specs if p.name in {Path(s).name for s in opts.spec}]
    groups = expand.lit_groups(matrix.plan(specs), ROOT / "cases")
    n_cases = sum(len(g.cases) * len(g.selectors) for g in groups)
    harness_args = ["--llvm-bin", str(tc.bin_dir)] if tc.bin_dir else []
    harness_args += [arg for p in specs for arg in ("--spec", p.name)] if opts.spec else []
    lit_args = ["--param", f"llvm_bin={tc.bin_dir}"] if tc.bin_dir else []
    with tempfile.TemporaryDirectory() as tmp:
        jobs = raw_jobs(groups, tc, Path(tmp))
        raw, full, lit = [], [], []
        for _ in range(opts.repeat):  # interleaved, so all see the same machine state
            raw.append(time_raw(jobs, workers))
            full.append(time_harness(harness_args))
            if opts.lit:
                lit.append(time_lit(lit_args, workers))
    a, b = statistics.median(raw), statistics.median(w for w, _ in full)
    print(f"{tc.describe()}; {n_cases} case-selector verdicts in {len(groups)} lit files; {workers} workers")
    print(runs(f"(a) raw tools, {len(jobs)} pipelines, wall:", raw))
    print(runs("(b) harness run, wall:                 ", [w for w, _ in full]))
    print(f"ratio b/a (wall): {b / a:.2f}")
    if lit:
        c = statistics.median(w for w, _ in lit)
        cpu_b, cpu_c = statistics.median(u for _, u in full), statistics.median(u for _, u in lit)
        print(runs("(b) harness run, CPU:                  ", [u for _, u in full]))
        print(runs("(c) lit cases/, wall:                  ", [w for w, _ in lit]))
        print(runs("(c) lit cases/, CPU:                   ", [u for _, u in lit]))
        print(f"ratio c/b: CPU {cpu_c / cpu_b:.2f}, wall {c / b:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
