"""Shared fixtures: the repository, the CLI as a subprocess, and the real LLVM build (or skip).

No tool is imitated here: `fake_build` and `bad_ptxas` are fault injection (a real build with
one tool replaced by a script that fails, a ptxas that crashes or hangs). Tests that need LLVM
take the `llvm` fixture, which skips with a reason when no AMDGPU-enabled llc is found; tests whose expected verdicts were measured on a
specific release take `llvm_22_1_8`. Under CI (`CI` set) every such skip is a failure instead:
CI's set-up installs the measured build, so a skip there means the set-up is wrong.
"""

from __future__ import annotations

import atexit
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import settings

REPO = Path(__file__).resolve().parent.parent
# The first line of a fault-injection ptxas script: `--version` answered with NVIDIA's banner, as
# the harness asks before it trusts a file named as ptxas.
PTXAS_VERSION = 'case "$1" in --version) echo "ptxas: NVIDIA (R) Ptx optimizing assembler"; exit 0;; esac\n'
# What builds answered about themselves, and cached tool runs, go under a directory of this
# process's own (each xdist worker has one), never the user's, and the harness processes the
# tests start inherit it.
os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="harness-tests-cache-")
atexit.register(shutil.rmtree, os.environ["XDG_CACHE_HOME"], True)  # (gone with the process)
MEASURED_VERSION = "22.1.8"  # the release the verdict facts in these tests were measured on

# Property tests draw the same examples on every CI run (a red CI is a change, never a new draw;
# a failure prints the blob that reproduces it); HYPOTHESIS_PROFILE=explore draws fresh ones.
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("explore", deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "explore"))

# The `fast` tier (`pytest -m fast`): modules that check parsers, specs, rows and layers, with a
# few real-tool checks, in about a minute on two cores.
FAST_MODULES = {
    "test_function_split",
    "test_commands",
    "test_layers",
    "test_spec_limits",
    "test_ci_rules",
    "test_tool_lookup",
    "test_formats_catalog",
    "test_spec_errors",
    "test_case_classes",
    "test_emit_ir",
    "test_verdicts",
    "test_amdgpu_rows",
    "test_coverage",
}


def pytest_collection_modifyitems(items) -> None:
    for item in items:
        if item.module is not None and item.module.__name__.rpartition(".")[2] in FAST_MODULES:
            item.add_marker(pytest.mark.fast)


# Crash dumps stay unsymbolized: faster, and nothing here reads the addresses.
_TOOL_ENV = {**os.environ, "LLVM_DISABLE_SYMBOLIZATION": "1"}


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO


@pytest.fixture(scope="session")
def llvm():
    """The LLVM build the harness would pick, or skip when it cannot run AMDGPU tests."""
    from harness.core.errors import InputError
    from harness.tools import toolchain

    try:
        tc = toolchain.discover()
        targets = tc.targets
        version = tc.version
    except InputError as exc:
        unavailable(f"no usable LLVM build: {exc}")
    if "amdgcn" not in targets:
        unavailable(f"LLVM {version} at {tc.bin_dir or 'PATH'} has no AMDGPU (amdgcn) target")
    missing = [t for t in ("llc", "llvm-mc", "llvm-as", "opt") if not tc.tool(t)]
    if missing:
        unavailable(f"LLVM {version} lacks {', '.join(missing)}")
    return tc


def unavailable(reason: str):
    """A tool a test needs is missing: skip — but under CI, whose set-up installs every tool the
    tests use (ci/setup.sh --test), fail, so a missing install step cannot pass as green."""
    if os.environ.get("CI"):
        pytest.fail(f"CI's set-up installs this, but {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def llvm14() -> Path:
    """Debian's LLVM 14: a real build without gfx950/gfx1250, which cannot judge any case."""
    path = Path(os.environ.get("LLVM14_BIN", "/usr/lib/llvm-14/bin"))
    if not (path / "llc").exists():
        unavailable(f"no llvm-14 build at {path} (ci/setup.sh --test installs it, or set LLVM14_BIN)")
    return path


@pytest.fixture(scope="session")
def nvptx_tc():
    """The LLVM build, when it compiles the NVPTX kernels (target, every CPU the cases use, and
    the IR the gemm kernels are written in); else skip (fail under CI)."""
    from harness.core.errors import InputError
    from harness.targets import NVPTX
    from harness.tools import toolchain

    try:
        tc = toolchain.discover()
        lacks = sorted(set(NVPTX.cpus) - tc.cpus(NVPTX.registered))
        why = (
            f"this LLVM build has no {NVPTX.registered} target"
            if NVPTX.registered not in tc.targets
            else f"this LLVM build does not know {', '.join(lacks)}"
            if lacks
            else ""
            if NVPTX.reads_ir(tc)
            else "this LLVM build cannot read the gemm kernels' IR"
        )
    except InputError as exc:
        why = str(exc)
    if why:
        unavailable(why)
    return tc


@pytest.fixture(scope="session")
def ptxas_path() -> str:
    from harness.tools.toolchain import find_ptxas

    path = find_ptxas()
    if not path:
        unavailable("no ptxas (PATH, $PTXAS, /usr/local/cuda/bin or the pip wheel nvidia-cuda-nvcc)")
    return path


@pytest.fixture(scope="session")
def llvm_22_1_8(llvm):
    """The build, when it is the release whose verdicts the expected values were measured on;
    else skip — and under CI fail, so a set-up that drifted to another build cannot stay green
    while a quarter of the tests quietly stop running."""
    if llvm.version != MEASURED_VERSION:
        unavailable(f"expected verdicts were measured on LLVM {MEASURED_VERSION}; this is {llvm.version}")
    return llvm


@pytest.fixture(scope="session")
def tool(llvm):
    """Run one real LLVM tool: tool('llc', ['-mtriple=amdgcn', ...], stdin=text)."""

    def run(name: str, args: list[str], stdin: str = "") -> subprocess.CompletedProcess:
        path = llvm.tool(name)
        assert path, f"{name} missing from {llvm.bin_dir}"
        return subprocess.run(
            [path, *args], input=stdin, capture_output=True, text=True, errors="replace", env=_TOOL_ENV, timeout=300
        )

    return run


@pytest.fixture(scope="session")
def cli():
    """Run `python -m harness ARGS...` from the checkout of the harness this Python imports (so
    the tests can be pointed at another checkout through PYTHONPATH); returns the CompletedProcess."""
    import harness

    checkout = Path(harness.__file__).resolve().parent.parent

    def run(*args: str, cwd: Path | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "harness", *map(str, args)],
            cwd=cwd or checkout,
            capture_output=True,
            text=True,
            env={**os.environ, **(env or {})},
            timeout=600,
        )

    return run


@pytest.fixture
def shipped_cases(tmp_path) -> Path:
    """A private copy of the shipped spec files (no generated/), safe to expand into."""
    out = tmp_path / "cases"
    out.mkdir()
    for spec in (REPO / "cases").glob("*.yaml"):
        shutil.copy(spec, out / spec.name)
    return out


FACT_SPECS = ("f8f6f4-runtime-formats.yaml", "f4-fixed-format.yaml")


@pytest.fixture(scope="session")
def facts_cases(tmp_path_factory) -> Path:
    """A private cases dir with only the two shipped specs the measured facts describe, and the
    known bugs their verdicts are held against.

    Other specs may be added to cases/ over time; counts asserted by the tests are about these.
    """
    out = tmp_path_factory.mktemp("facts") / "cases"
    out.mkdir()
    for name in (*FACT_SPECS, "known-bugs.yaml"):
        shutil.copy(REPO / "cases" / name, out / name)
    return out


@pytest.fixture
def spec_dir(tmp_path):
    """Factory: spec_dir({'a.yaml': text, ...}) -> a fresh cases directory holding those files."""
    counter = iter(range(1_000_000))

    def make(files: dict[str, str]) -> Path:
        out = tmp_path / f"cases{next(counter)}"
        out.mkdir()
        for name, text in files.items():
            (out / name).write_text(text, encoding="utf-8")
        return out

    return make


@pytest.fixture(scope="session")
def lit_exe() -> str:
    """The `lit` executable of this Python environment, or skip."""
    beside = Path(sys.executable).parent / "lit"
    found = str(beside) if beside.exists() else shutil.which("lit")
    if not found:
        pytest.skip("lit is not installed")
    return found


# ---- shared assertions and fault injection ----------------------------------------------------


def one_line_exit_2(proc, *fragments: str, notes: bool = True) -> str:
    """Exit 2 with one line holding every fragment, and no traceback; with `notes`, lines that
    start with "# " (the build the harness chose) are not counted. Returns the line."""
    out = proc.stdout + proc.stderr
    assert "Traceback" not in out, proc.stderr[-3000:]
    assert proc.returncode == 2, (proc.returncode, proc.stdout[-2000:], proc.stderr[-2000:])
    lines = [l for l in out.strip().splitlines() if not (notes and l.startswith("# "))]
    assert len(lines) == 1 and all(f in lines[0] for f in fragments), lines
    return lines[0]


def run_json(cli, *args):
    """`harness ARGS... --json`, which must print its document (exit 0, 1 where a verdict is
    unexpected, 2 where no cell could be judged): the document; `try` with one selector
    (SelectionDAG unless the args name one)."""
    one = ("--selector", "sdag") if args[0] == "try" and "--selector" not in args else ()
    proc = cli(*args, *one, "--json")
    assert proc.returncode in (0, 1, 2), proc.stderr[-3000:]
    doc = json.loads(proc.stdout)
    if proc.returncode == 2:
        records = [doc] if "verdict" in doc else doc["cases"]
        assert {r["verdict"] for r in records} <= {"unsupported", "timeout"}, proc.stderr[-3000:]
        assert "error: nothing judged: " in proc.stderr, proc.stderr[-3000:]
    return doc


FAKE_TOOLS = ("llc", "llvm-mc", "opt", "llvm-as", "llvm-objdump", "llvm-extract", "FileCheck")


def fake_build(tmp_path: Path, real: Path, name: str | None = None, script: str = "") -> Path:
    """Fault injection: tmp/fake/bin, links to the real build's tools, `name` (if any) replaced by
    a shell script."""
    out = tmp_path / "fake" / "bin"
    out.mkdir(parents=True)
    for tool in FAKE_TOOLS:
        if (real / tool).exists():
            (out / tool).symlink_to(real / tool)
    if name:
        (out / name).unlink(missing_ok=True)
        (out / name).write_text("#!/bin/sh\n" + script)
        (out / name).chmod(0o755)
    return out


def elf_pair(tmp_path: Path, tags: str = "--enable-new-dtags") -> tuple[Path, Path]:
    """A real ELF tool and the library of its build it loads (tmp/tool, tmp/lib/libf.so, found
    through an RPATH or RUNPATH of $ORIGIN/lib, per `tags`), linked by the system's C compiler."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        unavailable("no C compiler to link an ELF with an RPATH")
    lib = tmp_path / "lib"
    lib.mkdir()
    (tmp_path / "f.c").write_text("int f(void) { return 1; }\n")
    (tmp_path / "main.c").write_text("int f(void);\nint main(void) { return f(); }\n")
    subprocess.run([cc, "-shared", "-fPIC", "-o", lib / "libf.so", tmp_path / "f.c"], check=True, timeout=120)
    link = [cc, "-o", tmp_path / "tool", tmp_path / "main.c", f"-L{lib}", "-lf", f"-Wl,{tags}", "-Wl,-rpath,$ORIGIN/lib"]
    subprocess.run(link, check=True, timeout=120)
    return tmp_path / "tool", lib / "libf.so"


@pytest.fixture
def bad_ptxas(tmp_path) -> dict[str, Path]:
    """Fault injection: ptxas scripts that segfault ("segv") and hang ("hang") on every file, and
    answer `--version` as ptxas does (the harness asks that first)."""
    out = {}
    for name, body in (("segv", "kill -SEGV $$\n"), ("hang", "exec sleep 60\n")):
        out[name] = tmp_path / f"ptxas-{name}"
        out[name].write_text("#!/bin/sh\n" + PTXAS_VERSION + body)
        out[name].chmod(0o755)
    return out


def lit_results(lit_exe: str, root: Path) -> dict[str, str]:
    """`lit -a cases/` in the copy of the repository at `root`: each generated file's result (PASS,
    XFAIL, XPASS, ...) by its name."""
    env = {**os.environ, "LLVM_DISABLE_SYMBOLIZATION": "1"}
    proc = subprocess.run([lit_exe, "-a", "cases/"], capture_output=True, text=True, cwd=root, env=env, timeout=600)
    found = re.findall(r"^(\w+): matrix-lowering :: cases/generated/(\S+) \(", proc.stdout, re.M)
    assert found, (proc.stdout + proc.stderr)[-3000:]
    return {name: result for result, name in found}


def json_at(cli, root: Path, *args: str) -> tuple[int, dict]:
    """`harness ARGS... --json` run in `root`: (its exit status, 0 or 1, and its document)."""
    proc = cli(*args, "--json", cwd=root)
    assert proc.returncode in (0, 1) and "Traceback" not in proc.stderr, proc.stderr[-3000:]
    return proc.returncode, json.loads(proc.stdout)


# A case's fields as `run --json` writes them, for records and matrix cells written by hand.
HAND_CELL = {
    "function": "f",
    "intrinsic": "wmma.x",
    "cpu": "gfx1250",
    "opt": 0,
    "pipeline": "none",
    "class": "codegen",
    "fmt_a": "fp8",
    "fmt_b": "fp8",
    "width_a": 16,
    "width_b": 16,
    "selector": "sdag",
}
