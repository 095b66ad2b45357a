"""A corpus of hostile input with exact expectations (tests/hostile/expected.yaml says how to read
them): every spec in tests/hostile/specs expanded (or run) alone in a work directory, and every
fake tool of tests/hostile/tools standing in for one tool of the real build.

Each run gets the exact exit status and first stderr line it should, never a traceback, and
never changes anything outside its work directory: the repository's cases/ and a canary
directory beside the work directory (the specs aim their shell syntax at ../canary/pwned) are
compared before and after. Entries marked `bug:` are xfail(strict): what the harness does now is
wrong, and the entry says what it should do instead. Only a `Misbehaviour` counts for xfail; a
run that escapes its work directory fails whatever the entry says.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parent.parent
HOSTILE = Path(__file__).resolve().parent / "hostile"
EXPECTED = yaml.safe_load((HOSTILE / "expected.yaml").read_text(encoding="utf-8"))
TIMEOUT = 60  # seconds: a hang fails the test instead of blocking the run
BUILD_TOOLS = ("llc", "llvm-mc", "opt", "llvm-as", "llvm-objdump", "FileCheck")
# The spec beside every fake-tool run: one valid case, pinned in a snapshot (so expand runs llc).
TOOL_SPEC = (
    "matrix:\n  - intrinsic: mfma.scale.f32.16x16x128.f8f6f4\n"
    "    fmt_a: fp8\n    fmt_b: fp8\n    selector: sdag\n    snapshot: true\n"
)


class Misbehaviour(AssertionError):
    """The harness does not do what the entry expects: the only failure a `bug:` entry's xfail covers."""


def expect(condition: bool, message: str) -> None:
    if not condition:
        raise Misbehaviour(message)


def _params(section: str) -> list:
    out = []
    for name, entry in EXPECTED[section].items():
        marks = [pytest.mark.xfail(raises=Misbehaviour, strict=True, reason=entry["bug"])] if "bug" in entry else []
        out.append(pytest.param(name, entry, id=name, marks=marks))
    return out


def _tree(root: Path) -> dict[str, tuple[int, int, int]]:
    """Path -> (size, mtime_ns, mode) of everything under root (links not followed)."""
    out = {}
    for path in sorted(root.rglob("*")):
        st = path.lstat()
        out[str(path.relative_to(root))] = (st.st_size, st.st_mtime_ns, st.st_mode)
    return out


@dataclass
class Run:
    returncode: int | None  # None: killed at the time limit
    stdout: str
    stderr: str
    seconds: float


class Sandbox:
    """tmp_path/work (the harness's working directory) and tmp_path/canary (must stay empty)."""

    def __init__(self, root: Path):
        self.root, self.work, self.canary = root, root / "work", root / "canary"
        self.work.mkdir()
        self.canary.mkdir()
        self.allowed = {"work", "canary", "bin"}

    def run(self, args: list[str], timeout: float, env: dict | None = None) -> Run:
        cases_before = _tree(REPO / "cases")
        start = time.monotonic()
        try:
            proc = subprocess.run(
                [sys.executable, "-m", "harness", *args],
                cwd=self.work,
                capture_output=True,
                text=True,
                errors="replace",
                env={**os.environ, **(env or {})},
                timeout=timeout,
            )
            run = Run(proc.returncode, proc.stdout, proc.stderr, time.monotonic() - start)
        except subprocess.TimeoutExpired as exc:
            out = lambda b: (b or b"").decode(errors="replace") if isinstance(b, bytes) else (b or "")
            run = Run(None, out(exc.stdout), out(exc.stderr), time.monotonic() - start)
        # Outside the work directory nothing may change, whatever the entry expects.
        assert _tree(REPO / "cases") == cases_before, "the repository's cases/ changed"
        assert not list(self.canary.iterdir()), f"the canary directory got {list(self.canary.iterdir())}"
        assert {p.name for p in self.root.iterdir()} <= self.allowed, sorted(p.name for p in self.root.iterdir())
        return run


def _message_lines(stderr: str) -> list[str]:
    """stderr without the informational '# ...' lines (`# LLVM 22.1.8 from ...`)."""
    return [line for line in stderr.split("\n") if line and not line.startswith("# ")]


def _judge(entry: dict, run: Run, work_before: dict, work: Path, placeholders: dict[str, str]) -> None:
    """Everything the entry expects of one run; each shortfall is a Misbehaviour."""
    expect(run.returncode is not None, f"ran past {run.seconds:.0f} s (killed)")
    expect("Traceback" not in run.stderr + run.stdout, "a traceback:\n" + run.stderr[-3000:])
    lines = _message_lines(run.stderr)
    first = lines[0] if lines else ""
    for value, name in placeholders.items():
        first = first.replace(value, name)
    wanted = entry["exit"] if isinstance(entry["exit"], list) else [entry["exit"]]
    expect(run.returncode in wanted, f"exit {run.returncode}, expected {entry['exit']}: {run.stderr[-2000:]}")
    if "seconds" in entry:
        expect(run.seconds <= entry["seconds"], f"took {run.seconds:.1f} s, expected at most {entry['seconds']} s")
    if "stderr" in entry:
        expect(first == entry["stderr"], f"first stderr line:\n  {first!r}\nexpected:\n  {entry['stderr']!r}")
    if run.returncode == 2:
        expect(len(lines) == 1, f"bad input must be one line; got {len(lines)}: {lines[:4]}")
        expect(first.count("error:") == 1, f"one 'error:' per line: {first!r}")
        expect(_tree(work) == work_before, f"exit 2 left the work directory changed: {sorted(_tree(work))}")
        if "stderr_prefix" in entry:
            expect(first.startswith(entry["stderr_prefix"]), f"{first!r} does not start with {entry['stderr_prefix']!r}")
    for fragment in entry.get("stderr_contains", []):
        expect(fragment in first, f"{fragment!r} not in {first!r}")
    if "max_chars" in entry:
        expect(len(first) <= entry["max_chars"], f"the line is {len(first)} characters long")
    if "verdict" in entry:
        # A verdict prints its document: exit 0, 1 when a verdict is unexpected (a crash), 2 when
        # no cell could be judged (timeout, unsupported).
        statuses = (0, 1, 2) if entry["verdict"] in ("timeout", "unsupported") else (0, 1)
        expect(run.returncode in statuses and run.stdout.strip().startswith("{"), "no verdict")
        doc = json.loads(run.stdout)
        records = [doc] if "verdict" in doc else doc["cases"]
        verdicts = {r["verdict"] for r in records}
        expect(verdicts == {entry["verdict"]}, f"verdicts {sorted(verdicts)}, expected {entry['verdict']}")
        details = " | ".join(r.get("detail") or "" for r in records)
        if "detail" in entry:
            expect(details == entry["detail"], f"the detail {details!r}, expected {entry['detail']!r}")
        for fragment in entry.get("detail_contains", []):
            expect(fragment in details, f"{fragment!r} not in the detail {details!r}")


def _run_lines(text: str) -> list[str]:
    """RUN lines of a generated lit file (a trailing backslash continues a line)."""
    out, continued = [], False
    for line in text.split("\n"):
        body = line.partition("RUN:")[2].strip() if line.lstrip().startswith(";") and "RUN:" in line else None
        if body is None:
            continued = False
            continue
        part = body[:-1].strip() if body.endswith("\\") else body
        if continued:
            out[-1] += " " + part
        else:
            out.append(part)
        continued = body.endswith("\\")
    return out


def _check_generated(work: Path, llvm_as: str, passes: str | None) -> None:
    """What an accepted spec wrote: RUN lines lit's internal shell reads as one pipeline touching
    nothing outside the test (no sequence, redirections only to %t files), and IR llvm-as parses."""
    import lit.ShUtil

    files = sorted((work / "generated").rglob("*.ll")) if (work / "generated").is_dir() else []
    expect(bool(files), "exit 0 but nothing generated")
    seen_passes = set()
    for path in files:
        for line in _run_lines(path.read_text(encoding="utf-8")):
            if line.startswith("%if"):
                continue
            try:
                tree = lit.ShUtil.ShParser(line, False, True).parse()
            except Exception as exc:  # lit's lexer raises whatever it hits
                raise Misbehaviour(f"{path.name}: lit cannot split {line!r}: {exc}") from None
            expect(isinstance(tree, lit.ShUtil.Pipeline), f"{path.name}: {line!r} is not one pipeline")
            for command in tree.commands:
                for (op, *_), target in command.redirects:
                    target = str(target)
                    expect(op in ("<", ">", ">&") and (target in ("%s", "1") or target.startswith("%t")), line)
                seen_passes.update(a for a in command.args if isinstance(a, str) and a.startswith("-passes="))
        parsed = subprocess.run(
            [llvm_as, "-disable-verify", "-o", os.devnull, str(path)], capture_output=True, text=True, timeout=TIMEOUT
        )
        expect(parsed.returncode == 0, f"{path.name}: llvm-as cannot parse it: {parsed.stderr.strip()[:500]}")
    if passes is not None:
        expect(seen_passes == {f"-passes={passes}"}, f"opt gets {sorted(seen_passes)}, expected -passes={passes}")


# ---- the spec corpus ---------------------------------------------------------------------------


def test_every_spec_has_exactly_one_expectation():
    files = {p.name for p in (HOSTILE / "specs").iterdir()}
    assert files == set(EXPECTED["specs"]), files ^ set(EXPECTED["specs"])
    assert len(files) >= 80


@pytest.mark.parametrize("name, entry", _params("specs"))
def test_hostile_spec(name, entry, tmp_path, request):
    box = Sandbox(tmp_path)
    shutil.copyfile(HOSTILE / "specs" / name, box.work / name)
    command = shlex.split(entry.get("command", "expand"))
    if command[0] != "expand":
        request.getfixturevalue("llvm_22_1_8")  # messages from the build's tools were measured there
    before = _tree(box.work)
    run = box.run([*command, "--cases", "."], timeout=entry.get("seconds", TIMEOUT))
    _judge(entry, run, before, box.work, {})
    if run.returncode == 0 and command[0] == "expand":
        llvm = request.getfixturevalue("llvm")
        _check_generated(box.work, llvm.require("llvm-as"), entry.get("passes"))


# ---- fake tools ------------------------------------------------------------------------------


def _fake_build(bin_dir: Path, real: Path, tool: str, fake: Path) -> Path:
    """The real build's tools as links, with `tool` replaced by the fake script."""
    bin_dir.mkdir()
    for name in BUILD_TOOLS:
        if (real / name).exists():
            (bin_dir / name).symlink_to(real / name)
    (bin_dir / tool).unlink(missing_ok=True)
    (bin_dir / tool).symlink_to(fake)
    return bin_dir


def test_every_fake_tool_is_an_executable_script():
    for entry in EXPECTED["tools"].values():
        script = HOSTILE / "tools" / entry["kind"] / entry["tool"]
        assert script.read_text().startswith("#!/bin/sh\n") and os.access(script, os.X_OK), script


@pytest.mark.parametrize("tid, entry", _params("tools"))
def test_fake_tool(tid, entry, tmp_path, llvm_22_1_8):
    box = Sandbox(tmp_path)
    real = llvm_22_1_8.bin_dir
    fake = _fake_build(tmp_path / "bin", real, entry["tool"], HOSTILE / "tools" / entry["kind"] / entry["tool"])
    (box.work / "a.yaml").write_text(TOOL_SPEC)
    before = _tree(box.work)
    run = box.run(
        [*shlex.split(entry["command"]), "--llvm-bin", str(fake)],
        timeout=entry.get("seconds", TIMEOUT),
        env={"HOSTILE_REAL_BIN": str(real)},
    )
    _judge(entry, run, before, box.work, {str(fake): "{bin}"})
