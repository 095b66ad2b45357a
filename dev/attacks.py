#!/usr/bin/env python3
"""Before/after attack table: the same hostile inputs against several revisions of the harness.

Each revision is exported (`git archive`) into a throwaway directory and run as
`<python> -m harness ...` with PYTHONPATH=<that copy>, so that copy's harness answers. Every
attack works in its own temporary directory (its own cases/ copy, a canary directory beside it
that must stay empty), under a time limit, and is classified against the outcome written in its
definition (never derived from the code under test):

  clean      the right outcome: exit 0 where the input is fine, exit 2 with one line on stderr
             and no traceback where it is not, the right verdict
  traceback  a Python traceback
  wrong      exit 0 or a verdict where it should refuse, a confident verdict from garbage, an
             injected file created, a refusal of good input, more than one line for exit 2
  hang       past the time limit, or unbounded time or memory (MemoryError, past a stated bound)
  loss       leftover temporary files, files lost, half-written or with the wrong mode
  n/a        the revision's CLI lacks what the attack needs (not counted as tried)

Not run by CI (minutes per revision, real LLVM tools). Examples:

  python dev/attacks.py                         # ed1c00d (before the hostile-input work) and HEAD
  python dev/attacks.py HEAD --only tools --verbose
  python dev/attacks.py HEAD WORKTREE --only audit     # WORKTREE: uncommitted changes included
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
import traceback
import zlib
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
HOSTILE = ROOT / "tests" / "hostile"
DEFAULT_REVISIONS = ("ed1c00d", "HEAD")
CATEGORIES = ("spec", "injection", "flags", "tools", "files", "audit", "update", "bisect", "report", "nvptx", "cache")
VERDICTS = ("clean", "traceback", "wrong", "hang", "loss")
WORST_FIRST = ("hang", "traceback", "loss", "wrong")
MEMORY_LIMIT = 4 << 30  # bytes of address space per harness process: more is unbounded memory
LLVM_BIN = os.environ.get("LLVM_BIN") or "/usr/lib/llvm-22/bin"
MFMA = "mfma.scale.f32.16x16x128.f8f6f4"
WMMA = "wmma.f32.16x16x128.f8f6f4"
F4 = "wmma.f32.32x16x128.f4"
TRY = ("try", "--intrinsic", MFMA, "--fmt-a", "fp8", "--fmt-b", "fp8", "--no-object")
VERDICT_WORDS = ("pass", "mc-reject", "cannot-select", "verifier-reject", "crash", "timeout", "unsupported")


class NotApplicable(Exception):
    """The revision's CLI lacks a flag or command the attack needs."""


@dataclass
class Result:
    rc: int | None  # None: killed at the time limit
    out: str
    err: str
    wall: float

    @property
    def timed_out(self) -> bool:
        return self.rc is None

    def lines(self) -> list[str]:
        """stderr lines that are not blank and not informational (`# ...`, update-checks'
        `WARNING: ...` lines in the upstream script's words)."""
        return [line for line in self.err.splitlines() if line.strip() and not line.startswith(("#", "WARNING: "))]

    def brief(self) -> str:
        if self.timed_out:
            return f"killed after {self.wall:.0f} s"
        first = (self.lines() or [""])[0]
        more = f" (+{len(self.lines()) - 1} lines)" if len(self.lines()) > 1 else ""
        return f"exit {self.rc}, {self.wall:.1f} s, stderr: {first[:140]!r}{more}"


@dataclass
class Outcome:
    verdict: str
    note: str


@dataclass
class Attack:
    name: str
    category: str
    expect: str  # the expected outcome, in words (the table's --verbose rows print it)
    body: Callable[[Ctx], Outcome]


@dataclass
class Ctx:
    """What one attack gets: the revision's copy, its own directory, the CLI's help texts."""

    rev_root: Path
    base: Path  # this attack's directory: work/ (the harness's cwd) and canary/ beside it
    helps: dict[str, str]
    python: str
    limit: float
    notes: list[str] = field(default_factory=list)

    @property
    def work(self) -> Path:
        return self.base / "work"

    @property
    def canary(self) -> Path:
        return self.base / "canary"

    def need(self, command: str, *flags: str) -> None:
        text = self.helps.get(command)
        if text is None:
            raise NotApplicable(f"no `{command}` command")
        for flag in flags:
            if not re.search(rf"(?<![\w-]){re.escape(flag)}(?![\w-])", text):
                raise NotApplicable(f"`{command}` has no {flag}")

    def env(self, extra: dict | None = None) -> dict:
        env = {k: v for k, v in os.environ.items() if k not in ("LLVM_BIN", "PYTHONPATH")}
        env.update(
            PYTHONPATH=str(self.rev_root),
            LLVM_DISABLE_SYMBOLIZATION="1",
            XDG_CACHE_HOME=str(self.base / "cache"),
            HOME=str(self.base / "home"),
        )
        env.update(extra or {})
        return env

    def start(self, argv: list[str], cwd: Path | None = None, env: dict | None = None, modes: bool = False, umask=None):
        """Start a command (own session, memory-limited). `modes`: file modes bind even for root
        (the command runs without CAP_DAC_OVERRIDE)."""

        def prepare():
            resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
            if umask is not None:
                os.umask(umask)

        if modes and os.geteuid() == 0:
            argv = ["setpriv", "--bounding-set=-dac_override,-dac_read_search", *argv]
        return subprocess.Popen(
            argv,
            cwd=cwd or self.work,
            env=self.env(env),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            preexec_fn=prepare,
        )

    def finish(self, proc, began: float, limit: float | None = None) -> Result:
        try:
            out, err = proc.communicate(timeout=limit or self.limit)
            rc = proc.returncode
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            out, err = proc.communicate()
            rc = None
        return Result(rc, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), time.monotonic() - began)

    def run(self, argv: list[str], limit: float | None = None, **kw) -> Result:
        began = time.monotonic()
        return self.finish(self.start(argv, **kw), began, limit)

    def harness(self, *args: object, limit: float | None = None, **kw) -> Result:
        return self.run([self.python, "-m", "harness", *map(str, args)], limit=limit, **kw)

    def lit(self, *paths: Path, params: dict | None = None, limit: float | None = None) -> Result:
        lit = Path(self.python).parent / "lit"
        argv = [str(lit) if lit.exists() else "lit", "-v"]
        for key, value in {"llvm_bin": LLVM_BIN, **(params or {})}.items():
            argv += ["--param", f"{key}={value}"]
        return self.run(argv + [str(p) for p in paths], limit=limit)

    def cases(self, files: dict[str, bytes | str] | None = None, name: str = "cases") -> Path:
        """A cases directory under work/ holding `files` (default: the revision's own specs)."""
        out = self.work / name
        out.mkdir(parents=True, exist_ok=True)
        if files is None:
            for spec in (self.rev_root / "cases").glob("*.yaml"):
                shutil.copy(spec, out / spec.name)
            return out
        for fname, data in files.items():
            (out / fname).write_bytes(data.encode() if isinstance(data, str) else data)
        return out

    def tree(self) -> Path:
        """A full private copy of the revision (lit reads lit.cfg.py and cases/ beside it)."""
        out = self.work / "tree"
        shutil.copytree(self.rev_root, out, symlinks=True)
        return out

    def canary_files(self) -> list[str]:
        return sorted(str(p.relative_to(self.canary)) for p in self.canary.rglob("*"))


def _kill_group(proc) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


# --------------------------------------------------------------------------- judging


def has_traceback(res: Result) -> bool:
    return "Traceback (most recent call last)" in res.err or "Traceback (most recent call last)" in res.out


def judge(res: Result, exits=(2,), seconds: float | None = None, one_line: bool = True) -> Outcome:
    """The common rules: time, traceback, memory, exit status, one line for exit 2."""
    if res.timed_out:
        return Outcome("hang", res.brief())
    if "MemoryError" in res.err:
        return Outcome("hang", "MemoryError: unbounded memory; " + res.brief())
    if has_traceback(res):
        last = [line for line in res.err.splitlines() if line.strip()][-1:] or [""]
        return Outcome("traceback", f"exit {res.rc}: {last[0][:160]}")
    if seconds is not None and res.wall > seconds:
        return Outcome("hang", f"took {res.wall:.1f} s, bound {seconds} s; " + res.brief())
    if res.rc not in exits:
        return Outcome("wrong", f"expected exit {'/'.join(map(str, exits))}; " + res.brief())
    if res.rc == 2 and one_line and len(res.lines()) != 1:
        return Outcome("wrong", f"exit 2 with {len(res.lines())} stderr lines; " + res.brief())
    return Outcome("clean", res.brief())


def worst(*outcomes: Outcome) -> Outcome:
    for verdict in WORST_FIRST:
        for o in outcomes:
            if o.verdict == verdict:
                return o
    return outcomes[0] if outcomes else Outcome("clean", "")


def refuse(res: Result, seconds: float | None = None) -> Outcome:
    return judge(res, (2,), seconds)


def accept(res: Result, seconds: float | None = None) -> Outcome:
    return judge(res, (0,), seconds)


def canary_outcome(ctx: Ctx, outcome: Outcome) -> Outcome:
    found = ctx.canary_files()
    if found:
        return Outcome("wrong", f"injected file(s) created: {', '.join(found)}; {outcome.note}")
    return outcome


def verdict_of(text: str) -> str:
    """The verdict `harness try` printed (first verdict word in its output), or ''."""
    m = re.search(r'"verdict":\s*"([\w-]+)"', text)
    if m:
        return m.group(1)
    for word in re.findall(r"[\w-]+", text):
        if word in VERDICT_WORDS:
            return word
    return ""


def generated_files(cases: Path) -> list[Path]:
    gen = cases / "generated"
    return sorted(p for p in gen.rglob("*") if p.is_file()) if gen.is_dir() else []


def leftovers(cases: Path) -> list[str]:
    gen = cases / "generated"
    return sorted(str(p.relative_to(gen)) for p in gen.rglob("*.tmp")) if gen.is_dir() else []


# --------------------------------------------------------------------------- attacks

ATTACKS: list[Attack] = []


def attack(category: str, name: str, expect: str):
    def register(body):
        ATTACKS.append(Attack(name, category, expect, body))
        return body

    return register


def block(intrinsic: str = MFMA, **dims: str) -> str:
    text = f"matrix:\n  - intrinsic: {intrinsic}\n"
    return text + "".join(f"    {k}: {v}\n" for k, v in dims.items())


VALID = block(MFMA, fmt_a="fp8", fmt_b="fp8")
BIG_BLOCK = block(
    MFMA,
    fmt_a="all",
    fmt_b="all",
    width_a="[4, 5, 6, 7, 8, 9, 10, 11, 12, 13]",
    width_b="[4, 5, 6, 7, 8, 9, 10, 11, 12, 13]",
    opt="[0, 1, 2, 3]",
    elem_a="[i32, i64, i16, i8]",
    elem_b="[i32, i64, i16, i8]",
    narrowing="[none, shufflevector]",
)  # 25 x 100 x 4 x 16 x 2 x 2 selectors: 2,560,000 case-selector pairs


def _exclude_bomb() -> str:
    """A block of ~72,000 pairs (under --max-cases) and 2,000 exclude rules that drop nothing."""
    head = block(
        "[" + ", ".join(i for i in _runtime()) + "]",
        fmt_a="all",
        fmt_b="all",
        width_a="[exact, overwide, underwide]",
        width_b="[exact, overwide, underwide]",
        opt="[0, 1, 2, 3]",
        elem_a="[i32, i64]",
    )
    return head + "    exclude:\n" + "      - {elem_b: i32, check: ir}\n" * 2000


def _runtime() -> list[str]:
    return [WMMA, "wmma.scale.f32.16x16x128.f8f6f4", "wmma.scale16.f32.16x16x128.f8f6f4", MFMA, "mfma.scale.f32.32x32x64.f8f6f4"]


def _gemm_bomb() -> str:
    def many(value: str) -> str:
        return "[" + ", ".join([value] * 25) + "]"

    keys = dict(shape="16x8x16", dtype="f16", beta="0", alpha="1", transpose_a="false", transpose_b="false", cpu="sm_90")
    return "gemm:\n  - " + "\n    ".join(f"{k}: {many(v)}" for k, v in keys.items()) + "\n"  # 25^7 kernels


def _alias_bomb() -> str:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 9)]
    return "\n".join(lines) + "\n" + VALID


# (name, content, expected exits, extra args, seconds bound): content is bytes, or a callable
# that builds the spec in the cases dir.
def _fifo(d: Path) -> None:
    os.mkfifo(d / "a.yaml")


def _dir(d: Path) -> None:
    (d / "a.yaml").mkdir()


def _dangling(d: Path) -> None:
    (d / "a.yaml").symlink_to(d / "missing.yaml")


def _dev_zero(d: Path) -> None:
    (d / "a.yaml").symlink_to("/dev/zero")


def _only_known_bugs(d: Path) -> None:
    (d / "known-bugs.yaml").write_text('"22.1.8": []\n')


def _nothing(d: Path) -> None:
    pass


BRIEF_SPECS = [  # the hostile specs the hostile-input work was about (also run through `run`)
    ("non-utf8", b"matrix:\n  - intrinsic: caf\xe9\n"),
    ("nul-byte", b"matrix:\x00\n"),
    ("nesting-20000-flow", b"matrix: " + b"[" * 20000 + b"]" * 20000 + b"\n"),
    ("nesting-20000-map", b"matrix: " + b"{a: " * 20000 + b"}" * 20000 + b"\n"),
    ("tag-int-abc", block(F4, opt="!!int abc").encode()),
    ("tag-bool-maybe", block(F4, split_selectors="!!bool maybe").encode()),
    ("tag-int-0x", block(F4, opt="!!int 0x").encode()),
    ("args-operand-twice", block(MFMA, fmt_a="fp8", fmt_b="fp8", args="{5: 1, 5: 0}").encode()),
    ("split-selectors-list", block(F4, split_selectors="[true, false]").encode()),
    ("exclude-opt-9", (block(F4) + "    exclude:\n      - {opt: 9}\n").encode()),
    ("exclude-check-codgen", (block(F4) + "    exclude:\n      - {check: codgen}\n").encode()),
    ("elem-i0", block(MFMA, fmt_a="fp8", fmt_b="fp8", elem_a="i0").encode()),
    ("elem-i99999999", block(MFMA, fmt_a="fp8", fmt_b="fp8", elem_a="i99999999").encode()),
    ("width-2^40", block(MFMA, fmt_a="fp8", fmt_b="fp8", width_a=str(2**40)).encode()),
    ("literal-10^20", block(MFMA, fmt_a="fp8", fmt_b="fp8", args=f"{{5: {10**20}}}").encode()),
    ("2M-cases", BIG_BLOCK.encode()),
    ("fifo-named-yaml", _fifo),
]
MORE_SPECS = [  # (name, content, expected exits, seconds bound)
    ("nesting-20000-block-seq", b"matrix:\n" + b"- " * 20000 + b"x\n", (2,), None),
    ("empty-file", b"", (2,), None),
    ("comments-only", b"# nothing\n", (2,), None),
    ("top-level-list", b"- matrix\n", (2,), None),
    ("top-level-scalar", b"matrix\n", (2,), None),
    ("matrix-empty-list", b"matrix: []\n", (2,), None),
    ("matrix-mapping", b"matrix: {intrinsic: x}\n", (2,), None),
    ("block-no-intrinsic", b"matrix:\n  - fmt_a: fp8\n", (2,), None),
    ("unknown-block-key", block(F4, widht_a="exact").encode(), (2,), None),
    ("duplicate-block-key", (block(F4) + f"    intrinsic: {F4}\n").encode(), (2,), None),
    ("unknown-intrinsic", block("wmma.nope").encode(), (2,), None),
    ("format-not-taken", block(F4, fmt_a="fp8").encode(), (2,), None),
    ("width-0", block(F4, width_a="0").encode(), (2,), None),
    ("width-negative", block(F4, width_a="-1").encode(), (2,), None),
    ("width-word", block(F4, width_a="wide").encode(), (2,), None),
    ("opt-9", block(F4, opt="9").encode(), (2,), None),
    ("selector-bogus", block(F4, selector="fast").encode(), (2,), None),
    ("pipeline-with-space", block(F4, pipeline='"instcombine, dce"').encode(), (2,), None),
    ("check-ir-no-pipeline", block(F4, check="ir").encode(), (2,), None),
    ("check-diagnostic-valid-ir", block(MFMA, fmt_a="fp8", fmt_b="fp8", check="diagnostic").encode(), (2,), None),
    ("args-operand-99", block(MFMA, fmt_a="fp8", fmt_b="fp8", args="{99: 1}").encode(), (2,), None),
    ("args-source-operand", block(MFMA, fmt_a="fp8", fmt_b="fp8", args="{0: 1}").encode(), (2,), None),
    ("args-word-value", block(MFMA, fmt_a="fp8", fmt_b="fp8", args="{5: abc}").encode(), (2,), None),
    ("args-valid-format", block(MFMA, fmt_a="fp8", fmt_b="fp8", args="{fmt_a: 2}").encode(), (2,), None),
    ("intrinsic-with-newline", block('"wmma\\nnope"').encode(), (2,), None),
    ("undefined-alias", block(F4, opt="*nothing").encode(), (2,), None),
    ("two-documents", (VALID + "---\n" + VALID).encode(), (2,), None),
    ("cpu-wrong", block(F4, cpu="gfx90a").encode(), (2,), None),
    ("key-is-a-list", b"? [matrix, gemm]\n: 1\n", (2,), None),
    ("python-object-tag", block("!!python/object/apply:os.system ['touch ../canary/pwned']").encode(), (2,), None),
    ("int-5000-digits", block(F4, opt="9" * 5000).encode(), (2,), None),
    ("elem-i-5000-digits", block(MFMA, fmt_a="fp8", fmt_b="fp8", elem_a="i" + "9" * 5000).encode(), (2,), None),
    ("gemm-shape-5000-digits", ("gemm:\n  - shape: " + "9" * 5000 + "x8x16\n    dtype: f16\n").encode(), (2,), None),
    ("mma-glob-with-newline", b'mma:\n  - intrinsic: "nothing\\n*"\n', (2,), None),
    ("gemm-too-big", b"gemm:\n  - shape: 2048x2048x2048\n    dtype: f16\n", (2,), None),
    ("gemm-alpha-nan", b"gemm:\n  - shape: 16x8x16\n    dtype: f16\n    alpha: nan\n", (2,), None),
    ("mma-glob-matches-nothing", b"mma:\n  - intrinsic: 'nothing.*'\n", (2,), None),
    ("alias-bomb-under-unknown-key", _alias_bomb().encode(), (2,), 30),
    ("dangling-symlink", _dangling, (2,), None),
    ("directory-named-yaml", _dir, (2,), None),
    ("symlink-to-dev-zero", _dev_zero, (2,), 30),
    ("no-spec-files", _nothing, (2,), None),
    ("only-known-bugs-yaml", _only_known_bugs, (2,), None),
    ("exclude-bomb-72k-pairs-2k-rules", _exclude_bomb().encode(), (0, 2), 30),
    ("gemm-product-bomb-25^7", _gemm_bomb().encode(), (0, 2), 30),
    ("description-5MB", b'description: "' + b"a" * (5 << 20) + b'"\n' + VALID.encode(), (0, 2), 30),
    ("10k-duplicate-blocks", ("matrix:\n" + "".join(VALID.split("\n", 1)[1] for _ in range(10000))).encode(), (0, 2), 30),
    ("valid-control", VALID.encode(), (0,), None),
    ("valid-bom", b"\xef\xbb\xbf" + VALID.encode(), (0,), None),
    ("valid-crlf", VALID.replace("\n", "\r\n").encode(), (0,), None),
]


def _spec_attack(name: str, content, exits, seconds, command: tuple[str, ...]):
    def body(ctx: Ctx) -> Outcome:
        ctx.need(command[0], *[a for a in command[1:] if a.startswith("--")])
        cases = ctx.cases({} if callable(content) else {"a.yaml": content})
        if callable(content):
            content(cases)
        before = sorted(p.name for p in cases.iterdir())
        args = list(command) + ["--cases", str(cases)]
        if command[0] == "run":
            args += ["--llvm-bin", LLVM_BIN, "--timeout", "30"]
        res = ctx.harness(*args)
        outcome = canary_outcome(ctx, judge(res, exits, seconds))
        if res.rc == 2 and command[0] == "expand" and sorted(p.name for p in cases.iterdir()) != before:
            return worst(outcome, Outcome("wrong", "refused, yet the cases dir changed; " + res.brief()))
        return outcome

    word = {(2,): "exit 2, one located line", (0,): "exit 0", (0, 2): "exit 0 or a one-line exit 2"}[tuple(exits)]
    bound = f", within {seconds} s" if seconds else ""
    attack("spec", f"{' '.join(command)}: {name}", f"{word}{bound}; nothing written when refused")(body)


for _name, _content in BRIEF_SPECS:
    _spec_attack(_name, _content, (2,), 30 if _name == "2M-cases" else None, ("expand",))
    _spec_attack(_name, _content, (2,), 30 if _name == "2M-cases" else None, ("run",))
for _name, _content in BRIEF_SPECS[:3] + BRIEF_SPECS[7:8] + BRIEF_SPECS[15:]:
    _spec_attack(_name, _content, (2,), 30 if _name == "2M-cases" else None, ("expand", "--check"))
for _name, _content, _exits, _seconds in MORE_SPECS:
    _spec_attack(_name, _content, _exits, _seconds, ("expand",))


# The corpus another helper keeps (tests/hostile/specs, expectations in tests/hostile/expected.yaml).
def _corpus() -> dict:
    try:
        return yaml.safe_load((HOSTILE / "expected.yaml").read_text(encoding="utf-8")).get("specs", {})
    except (OSError, yaml.YAMLError, AttributeError):
        return {}


def _corpus_attack(name: str, entry: dict):
    command = str(entry.get("command", "expand")).split()
    exits = entry.get("exit", 2)
    exits = tuple(exits) if isinstance(exits, list) else (exits,)

    def body(ctx: Ctx) -> Outcome:
        ctx.need(command[0], *[a for a in command[1:] if a.startswith("--")])
        ctx.work.mkdir(parents=True, exist_ok=True)
        shutil.copy(HOSTILE / "specs" / name, ctx.work / name)
        res = ctx.harness(*command, "--cases", ".")
        outcome = canary_outcome(ctx, judge(res, exits, entry.get("seconds")))
        first = (res.lines() or [""])[0]
        if outcome.verdict == "clean" and res.rc == 2:
            for want in entry.get("stderr_contains", []):
                if want not in first:
                    outcome = Outcome("wrong", f"stderr lacks {want!r}; {res.brief()}")
            if entry.get("max_chars") and len(first) > entry["max_chars"]:
                outcome = Outcome("wrong", f"a {len(first)}-character line (at most {entry['max_chars']}); {res.brief()}")
        if outcome.verdict == "clean" and res.rc == 0 and entry.get("passes"):
            texts = [p.read_text(errors="replace") for p in generated_files(ctx.work)]
            if not any(entry["passes"] in t for t in texts):
                outcome = Outcome("wrong", f"no RUN line passes {entry['passes'][:60]!r} to opt; {res.brief()}")
        return outcome

    expect = f"exit {'/'.join(map(str, exits))} (tests/hostile/expected.yaml)"
    if entry.get("bug"):
        expect += "; known bug: " + str(entry["bug"])[:100]
    attack("spec", f"corpus {' '.join(command)}: {name}", expect)(body)


if (HOSTILE / "specs").is_dir():
    for _name, _entry in sorted(_corpus().items()):
        if (HOSTILE / "specs" / _name).is_file() and isinstance(_entry, dict):
            _corpus_attack(_name, _entry)


# --------------------------------------------------------------------------- injection


def _lit_verdicts(res: Result) -> list[str]:
    return re.findall(r"^(PASS|FAIL|XFAIL|XPASS|UNRESOLVED|UNSUPPORTED|TIMEOUT): ", res.out, re.M)


def _pipeline_through_lit(pipeline_for: Callable[[Ctx], str], valid: bool):
    def body(ctx: Ctx) -> Outcome:
        tree = ctx.tree()
        cases = tree / "cases"
        for old in cases.glob("*.yaml"):
            if old.name != "known-bugs.yaml":
                old.unlink()
        shutil.rmtree(cases / "generated", ignore_errors=True)
        pipeline = pipeline_for(ctx)
        (cases / "a.yaml").write_text(block(MFMA, fmt_a="fp8", fmt_b="fp8", selector="sdag", pipeline=json.dumps(pipeline)))
        res = ctx.harness("expand", "--cases", cases)
        if res.rc == 2 and not valid:
            return canary_outcome(ctx, refuse(res))
        outcome = accept(res)
        if outcome.verdict != "clean":
            return canary_outcome(ctx, outcome)
        before = set(os.listdir(tree))
        lit = ctx.lit(cases / "generated")
        verdicts = _lit_verdicts(lit)
        note = f"expand exit 0; lit exit {lit.rc}: {', '.join(verdicts) or 'no result'}"
        if lit.timed_out:
            return Outcome("hang", note)
        stray = sorted(set(os.listdir(tree)) - before - {"build"})
        if ctx.canary_files() or stray:
            return Outcome("wrong", f"file(s) created: {ctx.canary_files() + stray}; {note}")
        if valid:
            return Outcome("clean" if verdicts and set(verdicts) <= {"PASS"} else "wrong", note)
        # A pipeline opt cannot read reached a RUN line: it can only FAIL (expand should refuse it).
        return Outcome("wrong" if "PASS" in verdicts else "clean", note + " (accepted by expand)")

    return body


attack(
    "injection",
    "pipeline instcombine>FILE through lit",
    "expand refuses it (one line), or lit runs it as one opt argument: no FILE, never PASS",
)(_pipeline_through_lit(lambda ctx: f"instcombine>{ctx.canary}/redirected", valid=False))
attack(
    "injection",
    "pipeline instcombine;echo>FILE through lit",
    "expand refuses it, or lit runs no second command: no FILE, never PASS",
)(_pipeline_through_lit(lambda ctx: f"instcombine;echo>{ctx.canary}/echoed", valid=False))
attack(
    "injection",
    "pipeline instcombine&&echo>FILE through lit",
    "expand refuses it, or lit runs no second command: no FILE, never PASS",
)(_pipeline_through_lit(lambda ctx: f"instcombine&&echo>{ctx.canary}/anded", valid=False))
attack(
    "injection",
    "pipeline instcombine|tee>FILE through lit",
    "expand refuses it, or lit runs no pipe: no FILE, never PASS",
)(_pipeline_through_lit(lambda ctx: f"instcombine|tee>{ctx.canary}/piped", valid=False))
attack(
    "injection",
    "pipeline with %s (lit substitution) through lit",
    "expand refuses it, or opt gets it literally: never PASS, no stray file",
)(_pipeline_through_lit(lambda ctx: "instcombine,%s", valid=False))
attack(
    "injection",
    "valid pipeline instcombine<max-iterations=1> through lit",
    "expand exit 0, lit PASS (the <...> is not a redirect), no stray file",
)(_pipeline_through_lit(lambda ctx: "instcombine<max-iterations=1>", valid=True))


@attack("injection", "try --pipeline instcombine>FILE", "no FILE; exit 2 (one line) or a non-pass verdict")
def _try_pipeline_redirect(ctx: Ctx) -> Outcome:
    res = ctx.harness(*TRY, "--pipeline", f"instcombine>{ctx.canary}/x", "--llvm-bin", LLVM_BIN)
    if res.rc == 0 and verdict_of(res.out) == "pass":
        return canary_outcome(ctx, Outcome("wrong", "verdict pass for a pipeline opt cannot read; " + res.brief()))
    return canary_outcome(ctx, judge(res, (0, 2)))


# --------------------------------------------------------------------------- flags


def _flag_attack(name: str, args: tuple[str, ...], exits=(2,), needs: tuple[str, ...] = ()):
    def body(ctx: Ctx) -> Outcome:
        if args and args[0] in ("try", "run", "expand"):
            ctx.need(args[0], *needs)
        cases = ctx.cases(None)
        argv = [a.replace("{cases}", str(cases)) for a in args]
        if argv and argv[0] == "run" and "--cases" not in argv:
            argv += ["--cases", str(cases)]
        return canary_outcome(ctx, judge(ctx.harness(*argv)))

    word = "exit 2, one line" if exits == (2,) else "exit " + "/".join(map(str, exits))
    attack("flags", " ".join(a if a else "''" for a in args) or "(no command)", word)(body)


for _value in ("nan", "inf", "0", "-1", "", "abc", "1e400"):
    _flag_attack(f"try --timeout {_value}", (*TRY, "--timeout", _value))
_flag_attack("run --timeout nan", ("run", "--timeout", "nan"))
_flag_attack("expand --timeout nan", ("expand", "--cases", "{cases}", "--timeout", "nan"), needs=("--timeout",))
for _value in ("-1", "0", "", "x"):
    _flag_attack(f"run -j {_value}", ("run", "-j", _value))
for _args in (
    ("--arg", "5=1", "--arg", "5=0"),
    ("--arg", "5"),
    ("--arg", "=1"),
    ("--arg", "99=1"),
    ("--arg", f"5={10**20}"),
    ("--arg", "fmt_a=abc"),
    ("--arg", "fmt_a=2"),
    ("--arg", "0=1"),
):
    _flag_attack(" ".join(_args), (*TRY, *_args))
for _words in (("try", "--bogus"), ("run", "--bogus"), ("expand", "--bogus"), ("--bogus",), ("nosuchcommand",), ()):
    _flag_attack(" ".join(_words), _words)
for _flag in ("--intrinsic", "--fmt-a", "--width-a", "--pipeline", "--llvm-bin", "--cpu", "--selector", "--narrowing", "-O"):
    _flag_attack(f"try {_flag} ''", (*TRY, _flag, ""))
_flag_attack("run --spec ''", ("run", "--spec", ""))
_flag_attack("run --filter ''", ("run", "--filter", ""), needs=("--filter",))
_flag_attack("run --cases ''", ("run", "--cases", ""))
_flag_attack("expand --cases ''", ("expand", "--cases", ""))
for _args in (
    ("--width-a", str(2**40)),
    ("--width-a", "-1"),
    ("--width-a", "0"),
    ("-O", "9"),
    ("--fmt-a", "9"),
    ("--cpu", "gfx90a"),
    ("--selector", "fast"),
    ("--intrinsic", "wmma.nope"),
    ("--llvm-bin", "/nonexistent"),
):
    _flag_attack(" ".join(_args), (*TRY, *_args))
for _value in ("0/4", "5/4", "1/0", "a/b"):
    _flag_attack(f"run --shard {_value}", ("run", "--shard", _value), needs=("--shard",))
for _value in ("-1", "0", "abc"):
    _flag_attack(f"expand --max-cases {_value}", ("expand", "--cases", "{cases}", "--max-cases", _value), needs=("--max-cases",))
_flag_attack("run --metrics none", ("run", "--metrics", "none"))
_flag_attack("run --spec nosuch.yaml", ("run", "--spec", "nosuch.yaml"))


@attack("flags", "try (valid, control)", "exit 0, verdict pass")
def _try_control(ctx: Ctx) -> Outcome:
    res = ctx.harness(*TRY, "--llvm-bin", LLVM_BIN)
    outcome = accept(res)
    if outcome.verdict == "clean" and verdict_of(res.out) != "pass":
        return Outcome("wrong", f"verdict {verdict_of(res.out)!r}; {res.brief()}")
    return outcome


# --------------------------------------------------------------------------- tools

PASS_THROUGH = 'case "$*" in *--version*|*-mcpu=help*|*-mattr=help*) exec "{real}/{tool}" "$@";; esac\n'


def fake_build(ctx: Ctx, tool: str, script: str | None, pass_through: bool = True, mode: int = 0o755) -> Path:
    """The real build's bin/ as links, with `tool` replaced by a script (None: removed)."""
    out = ctx.base / "bin"
    out.mkdir()
    for entry in Path(LLVM_BIN).iterdir():
        (out / entry.name).symlink_to(entry)
    (out / tool).unlink(missing_ok=True)
    if script is not None:
        head = "#!/bin/bash\n" + (PASS_THROUGH.format(real=LLVM_BIN, tool=tool) if pass_through else "")
        (out / tool).write_text(head + script)
        (out / tool).chmod(mode)
    return out


def _tool_attack(name: str, tool: str, script: str | None, want: str, **kw):
    """`harness try` with one tool replaced; `want` is 'refuse' or a verdict."""

    def body(ctx: Ctx) -> Outcome:
        fake = fake_build(ctx, tool, script, kw.get("pass_through", True), kw.get("mode", 0o755))
        extra = ("--pipeline", "instcombine") if tool == "opt" else ()
        res = ctx.harness(*TRY, *extra, "--llvm-bin", fake, "--timeout", str(kw.get("timeout", 10)), "--json")
        if want == "refuse":
            outcome = refuse(res, kw.get("seconds"))
            if outcome.verdict == "wrong" and res.rc == 0:
                outcome = Outcome("wrong", f"verdict {verdict_of(res.out)!r} from a broken {tool}; {res.brief()}")
            return outcome
        outcome = judge(res, (0, 2) if kw.get("or_refuse") else (0,), kw.get("seconds"))
        got = verdict_of(res.out)
        if outcome.verdict == "clean" and res.rc == 0 and got != want:
            return Outcome("wrong", f"verdict {got!r}, expected {want!r}; {res.brief()}")
        return outcome

    attack("tools", name, ("exit 2, one line" if want == "refuse" else f"verdict {want}") + _bound(kw))(body)


def _bound(kw) -> str:
    return f", within {kw['seconds']} s" if kw.get("seconds") else ""


GARBAGE = "cat >/dev/null\nprintf '\\211PNG\\r\\n\\032 junk v_wmma v[0:99999] \\377\\n'\nexit 0\n"
_tool_attack("llc prints garbage, exit 0", "llc", GARBAGE, "refuse")
_tool_attack("llc prints nothing, exit 0", "llc", "cat >/dev/null\nexit 0\n", "refuse")
_tool_attack(
    "llc prints 50 MB of garbage", "llc", "cat >/dev/null\nhead -c 50000000 /dev/zero | tr '\\0' x\n", "refuse", seconds=60
)
_tool_attack("llc killed by SIGSEGV", "llc", "cat >/dev/null\nkill -SEGV $$\n", "crash")
_tool_attack("llvm-mc killed by SIGSEGV", "llvm-mc", "cat >/dev/null\nkill -SEGV $$\n", "crash")
_tool_attack("llvm-mc killed by SIGKILL", "llvm-mc", "cat >/dev/null\nkill -KILL $$\n", "crash")
_tool_attack("llc exits 1 with junk on stderr", "llc", "cat >/dev/null\necho '\\x01 ???' >&2\nexit 1\n", "crash", or_refuse=True)
_tool_attack("llc hangs (child sleep), --timeout 5", "llc", "sleep 300\n", "timeout", timeout=5, seconds=20)
_tool_attack("llvm-mc hangs, --timeout 5", "llvm-mc", "sleep 300\n", "timeout", timeout=5, seconds=20)
_tool_attack("opt hangs (--pipeline instcombine), --timeout 5", "opt", "sleep 300\n", "timeout", timeout=5, seconds=20)
_tool_attack("llc --version hangs (try)", "llc", "sleep 300\n", "refuse", pass_through=False, timeout=5, seconds=30)
_tool_attack("llc --version prints garbage", "llc", "echo 'not llvm at all'\n", "refuse", pass_through=False)
_tool_attack("llc not executable", "llc", "exit 0\n", "refuse", mode=0o644)
_tool_attack("llvm-mc missing", "llvm-mc", None, "refuse")


@attack("tools", "llc hangs, run of 6 case-selector pairs, --timeout 5", "every pair timeout, within 30 s (wall measured)")
def _run_six_hanging(ctx: Ctx) -> Outcome:
    fake = fake_build(ctx, "llc", "sleep 300\n")
    cases = ctx.cases({"a.yaml": block(MFMA, fmt_a="[fp8, fp6, fp4]", fmt_b="fp8")})
    res = ctx.harness("run", "--cases", cases, "--llvm-bin", fake, "--timeout", "5", "-j", "2", "--json")
    outcome = judge(res, (0,), seconds=30)
    verdicts = re.findall(r'"verdict":\s*"([\w-]+)"', res.out)
    note = f"wall {res.wall:.1f} s, verdicts {dict(Counter(verdicts))}"
    if outcome.verdict != "clean":
        return Outcome(outcome.verdict, note + "; " + outcome.note)
    if len(verdicts) != 6 or set(verdicts) != {"timeout"}:
        return Outcome("wrong", note)
    return Outcome("clean", note)


@attack("tools", "llc --version hangs under lit", "lit stops with a configuration error (non-zero), within 60 s")
def _lit_version_hang(ctx: Ctx) -> Outcome:
    fake = fake_build(ctx, "llc", "sleep 300\n", pass_through=False)
    tree = ctx.tree()
    target = sorted((tree / "cases" / "generated").glob("*.ll"))[0]
    lit = Path(ctx.python).parent / "lit"
    res = ctx.run([str(lit), "-v", "--param", f"llvm_bin={fake}", str(target)], limit=60)
    if res.timed_out:
        return Outcome("hang", res.brief())
    if has_traceback(res):
        return Outcome("traceback", res.brief())
    return Outcome("clean" if res.rc not in (0, None) else "wrong", f"lit exit {res.rc} after {res.wall:.1f} s")


# --------------------------------------------------------------------------- files


def _expanded(ctx: Ctx, files: dict | None = None) -> Path:
    """A cases dir (default: one valid spec) already expanded once by this revision."""
    cases = ctx.cases(files or {"a.yaml": VALID})
    res = ctx.harness("expand", "--cases", cases)
    if res.rc != 0:
        raise RuntimeError(f"setup expand failed: {res.brief()}")
    return cases


def _snapshot(cases: Path) -> dict[str, bytes]:
    return {str(p.relative_to(cases)): p.read_bytes() for p in cases.rglob("*") if p.is_file()}


@attack("files", "cases/generated read-only (modes binding, even for root)", "exit 2, one line; files as they were")
def _readonly(ctx: Ctx) -> Outcome:
    cases = _expanded(ctx)
    (cases / "b.yaml").write_text(block(F4))  # something to write
    gen = cases / "generated"
    for p in gen.rglob("*"):
        p.chmod(0o555 if p.is_dir() else 0o444)
    gen.chmod(0o555)
    before = _snapshot(cases)
    res = ctx.harness("expand", "--cases", cases, modes=True)
    outcome = refuse(res)
    if _snapshot(cases) != before:
        return worst(outcome, Outcome("loss", "files changed although refused; " + res.brief()))
    return outcome


@attack("files", "cases/generated is a regular file", "exit 2, one line; the file kept")
def _generated_file(ctx: Ctx) -> Outcome:
    cases = ctx.cases({"a.yaml": VALID})
    (cases / "generated").write_text("precious\n")
    res = ctx.harness("expand", "--cases", cases)
    outcome = refuse(res)
    if (cases / "generated").read_text() != "precious\n":
        return worst(outcome, Outcome("loss", "the file named generated changed"))
    return outcome


def _dir_named_ll(check: bool):
    def body(ctx: Ctx) -> Outcome:
        cases = _expanded(ctx)
        (cases / "generated" / "stray.ll").mkdir()
        (cases / "generated" / "stray.ll" / "keep").write_text("x")
        res = ctx.harness("expand", *(["--check"] if check else []), "--cases", cases)
        outcome = judge(res, (1,) if check else (2,))
        if not (cases / "generated" / "stray.ll" / "keep").exists():
            return worst(outcome, Outcome("loss", "the directory's content is gone"))
        return outcome

    return body


attack("files", "generated/ holds a directory named stray.ll: expand", "exit 2, one line; directory kept")(_dir_named_ll(False))
attack("files", "generated/ holds a directory named stray.ll: expand --check", "exit 1 (stale), no traceback")(
    _dir_named_ll(True)
)


def _ff_byte(check: bool):
    def body(ctx: Ctx) -> Outcome:
        cases = _expanded(ctx)
        target = generated_files(cases)[0]
        target.write_bytes(target.read_bytes() + b"; \xff\n")
        res = ctx.harness("expand", *(["--check"] if check else []), "--cases", cases)
        outcome = judge(res, (1,) if check else (0,))
        if not check and outcome.verdict == "clean":
            again = ctx.harness("expand", "--check", "--cases", cases)
            if again.rc != 0:
                return Outcome("loss", "expand did not repair the file; then " + again.brief())
        return outcome

    return body


attack("files", "a generated .ll with a 0xff byte: expand", "exit 0 and the file rewritten")(_ff_byte(False))
attack("files", "a generated .ll with a 0xff byte: expand --check", "exit 1 (stale), no traceback")(_ff_byte(True))


@attack("files", "two concurrent expands with obsolete files, 16 rounds", "both exit 0 every round; then nothing stale, no .tmp")
def _concurrent(ctx: Ctx) -> Outcome:
    specs = {f"s{i}.yaml": block(MFMA, fmt_a="all", fmt_b=fmt) for i, fmt in enumerate(("fp8", "fp6", "fp4"))}
    problems: list[Outcome] = []
    for round_ in range(16):
        cases = ctx.cases(dict(specs), name=f"cases{round_}")
        gen = cases / "generated"
        gen.mkdir()
        for i in range(40):
            (gen / f"obsolete{i}.ll").write_text("; RUN: false\n")
        began = time.monotonic()
        procs = [ctx.start([ctx.python, "-m", "harness", "expand", "--cases", str(cases)]) for _ in range(2)]
        results = [ctx.finish(p, began) for p in procs]
        for res in results:
            o = judge(res, (0,))
            if o.verdict != "clean":
                problems.append(Outcome(o.verdict, f"round {round_}: {o.note}"))
        check = ctx.harness("expand", "--check", "--cases", cases)
        if leftovers(cases) or check.rc != 0 or any(gen.glob("obsolete*")):
            problems.append(Outcome("loss", f"round {round_}: leftovers {leftovers(cases)}, then --check {check.brief()}"))
    if problems:
        o = worst(*problems)
        return Outcome(o.verdict, f"{len(problems)} problem(s) in 16 rounds, e.g. {o.note}")
    return Outcome("clean", "16 rounds: both exit 0, nothing stale or left over")


def _interrupt(sig: int, rounds: int):
    def body(ctx: Ctx) -> Outcome:
        problems: list[Outcome] = []
        landed = 0
        for round_ in range(rounds):
            cases = ctx.cases(None, name=f"cases{round_}")
            for spec in cases.glob("*.yaml"):  # no llc: snapshot blocks written as skeletons
                spec.write_text(spec.read_text().replace("snapshot: true", "snapshot: false"))
            gen = cases / "generated"
            proc = ctx.start([ctx.python, "-m", "harness", "expand", "--cases", str(cases)])
            began = time.monotonic()
            while not gen.exists() and proc.poll() is None and time.monotonic() - began < 30:
                time.sleep(0.002)
            time.sleep(0.005 * (round_ % 10))  # into the write phase, at different points
            if proc.poll() is None:
                landed += 1
                os.kill(proc.pid, sig)
            res = ctx.finish(proc, began)
            if res.timed_out or has_traceback(res):
                problems.append(Outcome(judge(res).verdict, f"round {round_}: {res.brief()}"))
            elif res.rc not in (0, 130, -sig, 128 + sig):
                problems.append(Outcome("wrong", f"round {round_}: {res.brief()}"))
            left = leftovers(cases)
            half = [
                str(p.relative_to(gen))
                for p in generated_files(cases)
                if not p.name.endswith(".tmp") and not p.read_bytes().endswith(b"\n")
            ]
            if left or half:
                problems.append(Outcome("loss", f"round {round_}: {len(left)} .tmp left, half-written {half[:2]}"))
        name = signal.Signals(sig).name
        if problems:
            o = worst(*problems)
            kinds = Counter(p.verdict for p in problems)
            return Outcome(o.verdict, f"{name} landed in {landed}/{rounds} rounds; problems {dict(kinds)}, e.g. {o.note}")
        return Outcome("clean", f"{name} landed in {landed}/{rounds} rounds; no traceback, no .tmp left")

    return body


attack("files", "SIGINT during expand, 30 rounds", "exit 130 (or 0), no traceback, no .tmp or half file left")(
    _interrupt(signal.SIGINT, 30)
)
attack("files", "SIGTERM during expand, 10 rounds", "no traceback, no .tmp or half file left")(_interrupt(signal.SIGTERM, 10))


@attack("files", "written-file mode under umask 022", "every generated file 0644")
def _mode(ctx: Ctx) -> Outcome:
    cases = ctx.cases({"a.yaml": VALID})
    res = ctx.harness("expand", "--cases", cases, umask=0o022)
    outcome = accept(res)
    modes = Counter(oct(stat.S_IMODE(p.stat().st_mode)) for p in generated_files(cases))
    if outcome.verdict == "clean" and set(modes) != {"0o644"}:
        return Outcome("loss", f"modes {dict(modes)}")
    return Outcome(outcome.verdict, f"modes {dict(modes)}; {outcome.note}")


@attack("files", "a stale generated file of mode 0640 keeps its mode", "rewritten, still 0640")
def _mode_kept(ctx: Ctx) -> Outcome:
    cases = _expanded(ctx)
    target = generated_files(cases)[0]
    target.write_text("; stale\n")
    target.chmod(0o640)
    res = ctx.harness("expand", "--cases", cases, umask=0o022)
    outcome = accept(res)
    mode = oct(stat.S_IMODE(target.stat().st_mode))
    if outcome.verdict == "clean" and mode != "0o640":
        return Outcome("loss", f"mode now {mode}")
    return outcome


@attack("files", "a .tmp a killed writer left: expand", "exit 0 and the .tmp removed")
def _old_tmp(ctx: Ctx) -> Outcome:
    cases = _expanded(ctx)
    (cases / "generated" / ".x.ll.abc123.tmp").write_text("; half")
    res = ctx.harness("expand", "--cases", cases)
    outcome = accept(res)
    if outcome.verdict == "clean" and leftovers(cases):
        return Outcome("loss", f"left: {leftovers(cases)}")
    return outcome


def _known_bugs(content: bytes):
    def body(ctx: Ctx) -> Outcome:
        tree = ctx.tree()
        (tree / "cases" / "known-bugs.yaml").write_bytes(content)
        target = sorted((tree / "cases" / "generated").glob("*.overwide.ll"))[0]
        res = ctx.lit(target)
        if res.timed_out:
            return Outcome("hang", res.brief())
        if has_traceback(res):
            last = [line for line in (res.err + res.out).splitlines() if "Error" in line][-1:] or [""]
            return Outcome("traceback", f"lit exit {res.rc}: {last[0][:140]}")
        verdicts = _lit_verdicts(res)
        note = f"lit exit {res.rc}, {', '.join(verdicts) or 'no result'}"
        if res.rc in (0, 1) or verdicts:
            return Outcome("wrong", "known-bugs.yaml accepted: " + note)
        if "known-bugs.yaml" not in res.err + res.out:
            return Outcome("wrong", "the error does not name known-bugs.yaml: " + note)
        return Outcome("clean", note)

    return body


_DUPLICATE = (
    b'"22.1.8":\n  - files: generated/*.overwide.ll\n    reason: r\n"22.1.8":\n  - files: generated/none.ll\n    reason: r\n'
)
attack("files", "known-bugs.yaml with a version listed twice (lit)", "lit configuration error naming the file")(
    _known_bugs(_DUPLICATE)
)
attack("files", "known-bugs.yaml not UTF-8 (lit)", "lit configuration error naming the file")(
    _known_bugs(b'"22.1.8":\n  - files: generated/*.ll\n    reason: caf\xe9\n')
)
attack("files", "known-bugs.yaml invalid YAML (lit)", "lit configuration error naming the file")(_known_bugs(b'"22.1.8": [\n'))


# --------------------------------------------------------------------------- audit and update-checks
# Test files with `llc` RUN lines, run through `harness audit` and `harness update-checks`.

LLC950 = "llc -mtriple=amdgcn -mcpu=gfx950"
MFMA_DECL8 = (
    "declare <4 x float> @llvm.amdgcn.mfma.scale.f32.16x16x128.f8f6f4.v8i32.v8i32"
    "(<8 x i32>, <8 x i32>, <4 x float>, i32, i32, i32, i32, i32, i32)\n"
)


def overwide(name: str = "over") -> str:
    """A function holding the FP4 x FP4 MFMA with 8 i32 per source (FP4 reads 4): llvm-mc rejects it."""
    return (
        f"define amdgpu_ps void @{name}(<8 x i32> %a, <8 x i32> %b, <4 x float> %c, ptr addrspace(1) %out) {{\n"
        "  %r = call <4 x float> @llvm.amdgcn.mfma.scale.f32.16x16x128.f8f6f4.v8i32.v8i32(<8 x i32> %a, <8 x i32> %b,"
        " <4 x float> %c, i32 4, i32 4, i32 0, i32 0, i32 0, i32 0)\n"
        "  store <4 x float> %r, ptr addrspace(1) %out\n  ret void\n}\n"
    )


def fadd(name: str = "fadd", checks: str = "") -> str:
    """A function that compiles everywhere; `checks` go right after its `define` line, where
    update_llc_test_checks.py puts them."""
    return f"define float @{name}(float %a, float %b) {{\n{checks}  %r = fadd float %a, %b\n  ret float %r\n}}\n"


def test_file(run: str, body: str, checks: str = "") -> str:
    return f"; RUN: {run}\n{checks}{MFMA_DECL8}{body}"


def fake_tools(ctx: Ctx, scripts: dict[str, str]) -> Path:
    """The real build's bin/ as links, with each named tool replaced by a script (its --version
    and -mcpu=help still answered by the real tool)."""
    out = ctx.base / "bin"
    out.mkdir(exist_ok=True)
    for entry in Path(LLVM_BIN).iterdir():
        if not (out / entry.name).exists():
            (out / entry.name).symlink_to(entry)
    for tool, script in scripts.items():
        (out / tool).unlink(missing_ok=True)
        (out / tool).write_text("#!/bin/bash\n" + PASS_THROUGH.format(real=LLVM_BIN, tool=tool) + script)
        (out / tool).chmod(0o755)
    return out


def _summary_passes(res: Result) -> bool:
    """Whether `audit`'s text says some function passed (its last line: `N file(s): K pass, ...`)."""
    return bool(re.search(r"file\(s\):.*\b\d+ pass\b", res.out))


def _write_test(ctx: Ctx, text: str, name: str = "t.ll") -> Path:
    ctx.work.mkdir(parents=True, exist_ok=True)
    path = ctx.work / name
    path.write_text(text)
    return path


def _audit_attack(name: str, text: Callable[[Ctx], str] | str, expect: str, check: Callable[[Ctx, Result], Outcome], **kw):
    def body(ctx: Ctx) -> Outcome:
        ctx.need("audit")
        path = _write_test(ctx, text(ctx) if callable(text) else text)
        before = path.read_bytes()
        llvm_bin = fake_tools(ctx, kw["fakes"]) if kw.get("fakes") else LLVM_BIN
        arg = path.name if kw.get("bare") else path
        res = ctx.harness("audit", arg, "--llvm-bin", llvm_bin, "--timeout", "20", limit=kw.get("limit"))
        outcome = judge(res, (0, 1, 2), kw.get("seconds"))
        if outcome.verdict == "clean":
            outcome = check(ctx, res)
        if path.read_bytes() != before:
            outcome = worst(outcome, Outcome("loss", "the test file changed; " + res.brief()))
        return canary_outcome(ctx, outcome)

    attack("audit", f"audit: {name}", expect)(body)


def never_pass(ctx: Ctx, res: Result) -> Outcome:
    if res.rc == 0 or _summary_passes(res):
        return Outcome("wrong", "a function passes that was never judged; " + _tail_out(res))
    return judge(res, (1, 2))


def refused(ctx: Ctx, res: Result) -> Outcome:
    return judge(res, (2,))


def mc_rejects(fn: str):
    def check(ctx: Ctx, res: Result) -> Outcome:
        if res.rc != 1 or not re.search(rf"(?<![\w\\]){re.escape(fn)}: mc-reject\b", res.out):
            return Outcome("wrong", f"expected exit 1 and {fn}: mc-reject; " + _tail_out(res))
        return Outcome("clean", res.brief())

    return check


def _tail_out(res: Result) -> str:
    return f"exit {res.rc}, stdout {' | '.join(res.out.strip().splitlines()[-2:])[:200]!r}, " + res.brief()


JUNK_LLC = "cat >/dev/null\necho 'this is not assembly'\nexit 0\n"
SILENT = "cat >/dev/null\nexit 0\n"
_audit_attack(
    'quoted name @"my-func" with the over-wide MFMA',
    test_file(f"{LLC950} < %s", overwide('"my-func"')),
    "exit 1, my-func: mc-reject",
    mc_rejects("my-func"),
)
_audit_attack("llc prints junk, exit 0", test_file(f"{LLC950} < %s", fadd()), "never pass", never_pass, fakes={"llc": JUNK_LLC})
_audit_attack("llc prints nothing, exit 0", test_file(f"{LLC950} < %s", fadd()), "never pass", never_pass, fakes={"llc": SILENT})
_audit_attack("sed -n 1p %s | llc (an empty module)", test_file(f"sed -n 1p %s | {LLC950}", fadd()), "never pass", never_pass)
_audit_attack(
    "llc -filetype obj (space-separated)",
    test_file(f"{LLC950} -filetype obj < %s", overwide()),
    "never pass (mc-reject, or refused)",
    never_pass,
)
_audit_attack(
    "llvm-mc dies with LLVM ERROR: out of memory",
    test_file(f"{LLC950} < %s", fadd()),
    "never pass",
    never_pass,
    fakes={"llvm-mc": "cat >/dev/null\necho 'LLVM ERROR: out of memory' >&2\nexit 1\n"},
)
_audit_attack(
    "llvm-mc prints error: and exits 0",
    test_file(f"{LLC950} < %s", fadd()),
    "exit 2, one line naming llvm-mc",
    lambda ctx, res: refused(ctx, res) if "llvm-mc" in res.err else Outcome("wrong", "llvm-mc not named; " + _tail_out(res)),
    fakes={"llvm-mc": "cat >/dev/null\necho '<stdin>:3:1: error: bogus' >&2\nexit 0\n"},
)
_audit_attack(
    "sed -i s/fadd/fsub/ %s | llc",
    test_file(f"sed -i s/fadd/fsub/ %s | {LLC950}", fadd()),
    "the file unchanged; exit 2 (nothing audited)",
    refused,
)
_audit_attack(
    "sed --in-place=.bak s/fadd/fsub/ %s | llc",
    test_file(f"sed --in-place=.bak s/fadd/fsub/ %s | {LLC950}", fadd()),
    "the file unchanged, no .bak; exit 2",
    lambda ctx, res: refused(ctx, res) if not list(ctx.work.glob("*.bak")) else Outcome("wrong", "a .bak file was written"),
)
_audit_attack(
    "sed -e s/x/x/wFILE %s | llc",
    lambda ctx: test_file(f"sed -e s/x/x/w{ctx.canary}/written %s | {LLC950}", fadd()),
    "no FILE; exit 2",
    refused,
)
_audit_attack(
    "sed -e '1e touch FILE' %s | llc",
    lambda ctx: test_file(f"sed -e '1e touch {ctx.canary}/executed' %s | {LLC950}", fadd()),
    "no FILE; exit 2",
    refused,
)
_audit_attack(
    "sed 's|.*|touch FILE|e' %s | llc",
    lambda ctx: test_file(f"sed -n 's|.*|touch {ctx.canary}/flag-e|ep' %s | {LLC950}", fadd()),
    "no FILE; exit 2",
    refused,
)
_audit_attack(
    "llvm-as %s -o FILE | llc",
    lambda ctx: test_file(f"llvm-as %s -o {ctx.canary}/as.bc | {LLC950}", fadd()),
    "no FILE; exit 2 (or audited without writing)",
    lambda ctx, res: judge(res, (0, 2)),
)
_audit_attack(
    "cat %S/t.ll | llc, the file named without a directory",
    test_file(f"cat %S/t.ll | {LLC950}", overwide()),
    "exit 1, over: mc-reject (%S is the file's directory)",
    mc_rejects("over"),
    bare=True,
)
_audit_attack(
    "cat %p/t.ll | llc, %{pathsep} elsewhere",
    test_file(f"cat %p/t.ll | {LLC950} -mattr=%{{pathsep}}", overwide()),
    "no traceback; exit 1 or 2",
    lambda ctx, res: judge(res, (1, 2)),
)
_audit_attack(
    "CHECK line {{(.+)+Z}} against the rejected instruction",
    test_file(
        f"{LLC950} < %s | FileCheck %s",
        overwide(),
        "; CHECK-LABEL: over:\n; CHECK: v_mfma_f32_16x16x128_f8f6f4 {{(.+)+Z}} v[0:7]\n",
    ),
    "exit 1 within 30 s",
    mc_rejects("over"),
    seconds=30,
)
_audit_attack("llc < /dev/zero", test_file(f"{LLC950} < /dev/zero", fadd()), "exit 2 within 30 s", refused, seconds=30)
_audit_attack(
    "cat /dev/zero | llc",
    test_file(f"cat /dev/zero | {LLC950}", fadd()),
    "exit 2 within 60 s (bounded memory)",
    refused,
    seconds=60,
)
_audit_attack(
    "valid control: the over-wide MFMA",
    test_file(f"{LLC950} < %s | FileCheck %s", overwide()),
    "exit 1, over: mc-reject",
    mc_rejects("over"),
)
_audit_attack(
    "valid control: fadd passes",
    test_file(f"{LLC950} < %s | FileCheck %s", fadd()),
    "exit 0",
    lambda ctx, res: judge(res, (0,)),
)


def _update_attack(name: str, text, expect: str, check: Callable[[Ctx, Result, str, str], Outcome], **kw):
    """`harness update-checks [--check] FILE`; `check(ctx, res, before, after)` judges a clean run."""

    def body(ctx: Ctx) -> Outcome:
        ctx.need("update-checks")
        path = _write_test(ctx, text(ctx) if callable(text) else text)
        if kw.get("prepare"):
            kw["prepare"](path)
        before = path.read_text()
        llvm_bin = fake_tools(ctx, kw["fakes"]) if kw.get("fakes") else LLVM_BIN
        flags = ["--check"] if kw.get("check_only") else []
        arg = path.name if kw.get("bare") else path
        res = ctx.harness("update-checks", *flags, arg, "--llvm-bin", llvm_bin, "--timeout", "20", limit=kw.get("limit"))
        for _ in range(kw.get("again", 0)):
            if res.rc == 0:
                res = ctx.harness("update-checks", *flags, arg, "--llvm-bin", llvm_bin, "--timeout", "20")
        outcome = judge(res, (0, 1, 2), kw.get("seconds"))
        after = path.read_text(errors="replace")
        if outcome.verdict == "clean":
            outcome = check(ctx, res, before, after)
        if kw.get("check_only") and after != before:
            outcome = worst(outcome, Outcome("loss", "--check changed the file; " + res.brief()))
        leftover = [p.name for p in ctx.work.iterdir() if p.name != path.name]
        if leftover:
            outcome = worst(outcome, Outcome("wrong", f"files written beside the test: {leftover[:3]}"))
        return canary_outcome(ctx, outcome)

    attack("update", f"update-checks{' --check' if kw.get('check_only') else ''}: {name}", expect)(body)


def unchanged_refused(ctx, res, before, after) -> Outcome:
    if after != before:
        return Outcome("loss", "the file was rewritten; " + res.brief())
    return judge(res, (2,))


def checks_kept(*lines: str):
    def check(ctx, res, before, after) -> Outcome:
        lost = [line for line in lines if line not in after]
        if lost:
            return Outcome("loss", f"hand-written line(s) gone: {lost[:2]}; " + res.brief())
        return judge(res, (0, 2))

    return check


def labels(*names: str, ir: tuple[str, ...] = ()):
    def check(ctx, res, before, after) -> Outcome:
        lost = [line for line in ir if line not in after]
        if lost:
            return Outcome("loss", f"IR line(s) gone: {lost[:2]}; " + res.brief())
        missing = [n for n in names if not re.search(rf"^; \w[\w-]*-LABEL: {re.escape(n)}:", after, re.M)]
        if missing:
            return Outcome("wrong", f"no CHECK-LABEL for {missing}; " + res.brief())
        return judge(res, (0,))

    return check


HAND = ("; B-LABEL: fadd:", "; B: v_add_f32")
HAND_CHECKS = "".join(line + "\n" for line in HAND)
_update_attack(
    "llc prints junk, exit 0",
    test_file(f"{LLC950} < %s | FileCheck %s --check-prefix=B", fadd(checks=HAND_CHECKS)),
    "exit 2, the file unchanged",
    unchanged_refused,
    fakes={"llc": JUNK_LLC},
)
_update_attack(
    "llc prints nothing, exit 0",
    test_file(f"{LLC950} < %s | FileCheck %s --check-prefix=B", fadd(checks=HAND_CHECKS)),
    "exit 2 (could not be checked)",
    lambda ctx, res, before, after: judge(res, (2,)),
    fakes={"llc": SILENT},
    check_only=True,
)
_update_attack(
    "llc -o %t.s < %s | FileCheck (not run) keeps its CHECK lines",
    test_file(
        f"{LLC950} < %s | FileCheck %s --check-prefix=A\n; RUN: {LLC950} -o %t.s < %s | FileCheck %s --check-prefix=B",
        fadd(checks=HAND_CHECKS),
    ),
    "the B lines kept",
    checks_kept(*HAND),
)
_update_attack(
    "a failing sed before llc keeps the CHECK lines",
    test_file(f"sed -e bogus %s | {LLC950} | FileCheck %s --check-prefix=B", fadd(checks=HAND_CHECKS)),
    "the B lines kept",
    checks_kept(*HAND),
)
_update_attack(
    "sed -n 1p %s | llc (an empty module) keeps the CHECK lines",
    test_file(f"sed -n 1p %s | {LLC950} | FileCheck %s --check-prefix=B", fadd(checks=HAND_CHECKS)),
    "the B lines kept",
    checks_kept(*HAND),
)
_update_attack(
    "a one-line function before another",
    test_file(f"{LLC950} < %s | FileCheck %s", "define void @tiny() { ret void }\n" + fadd()),
    "both functions get CHECK lines, the IR kept",
    labels("tiny", "fadd", ir=("define void @tiny() { ret void }", "  %r = fadd float %a, %b")),
)
_update_attack(
    "a comment quoting the unused-prefix NOTE",
    test_file(
        f"{LLC950} < %s | FileCheck %s",
        '; this test once said "NOTE: These prefixes are unused and the list is autogenerated. '
        'Do not add tests below this line:"\n' + fadd(),
    ),
    "the IR after the comment kept",
    labels("fadd", ir=("  %r = fadd float %a, %b",)),
)
_update_attack(
    "prefix GFX-NEXT, run twice",
    test_file(f"{LLC950} < %s | FileCheck %s --check-prefixes=GFX-NEXT", fadd()),
    "the second run changes nothing",
    lambda ctx, res, before, after: (
        Outcome("clean", res.brief()) if "up to date" in res.out else Outcome("wrong", "not idempotent: " + res.out.strip()[:160])
    ),
    again=1,
)


def _owned(path: Path) -> None:
    os.chown(path, 4321, 4321)
    path.chmod(0o640)


def owner_kept(ctx, res, before, after) -> Outcome:
    st = (ctx.work / "t.ll").stat()
    if (st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)) != (4321, 4321, 0o640):
        return Outcome("loss", f"owner {st.st_uid}:{st.st_gid}, mode {oct(stat.S_IMODE(st.st_mode))}; " + res.brief())
    return judge(res, (0, 2))


_update_attack(
    "a file of another owner, mode 0640",
    test_file(f"{LLC950} < %s | FileCheck %s", fadd()),
    "owner 4321:4321 and mode 0640 kept (or refused)",
    owner_kept,
    prepare=_owned,
)
_update_attack(
    'UTC_ARGS: --filter "(a+)+$" over a long name',
    '; NOTE: Assertions have been autogenerated by utils/update_llc_test_checks.py UTC_ARGS: --filter "(a+)+$"\n'
    + test_file(
        f"{LLC950} < %s | FileCheck %s",
        "@" + "a" * 40 + " = addrspace(1) global i32 0\n"
        "define void @f(ptr addrspace(1) %p) {\n  %v = load i32, ptr addrspace(1) @" + "a" * 40 + "\n"
        "  store i32 %v, ptr addrspace(1) %p\n  ret void\n}\n",
    ),
    "exit 0 or 2 within 30 s",
    lambda ctx, res, before, after: judge(res, (0, 2)),
    seconds=30,
)
_update_attack(
    "touch FILE | llc | FileCheck",
    lambda ctx: test_file(f"touch {ctx.canary}/touched | {LLC950} | FileCheck %s", fadd()),
    "no FILE",
    lambda ctx, res, before, after: judge(res, (0, 2)),
)
_update_attack(
    "touch %S/../canary/x with the file named without a directory",
    test_file(f"touch %S/../canary/x | {LLC950} | FileCheck %s", fadd()),
    "no file anywhere",
    lambda ctx, res, before, after: judge(res, (0, 2)),
    bare=True,
)
_update_attack(
    "sed -i s/fadd/fsub/ %s | llc | FileCheck",
    test_file(f"sed -i s/fadd/fsub/ %s | {LLC950} | FileCheck %s", fadd()),
    "the file unchanged, exit 2",
    unchanged_refused,
    check_only=True,
)
_update_attack(
    "sed -e s/x/x/wFILE %s | llc | FileCheck",
    lambda ctx: test_file(f"sed -e s/x/x/w{ctx.canary}/w %s | {LLC950} | FileCheck %s", fadd()),
    "no FILE",
    lambda ctx, res, before, after: judge(res, (0, 2)),
)
_update_attack(
    "sed -e '1e touch FILE' %s | llc | FileCheck",
    lambda ctx: test_file(f"sed -e '1e touch {ctx.canary}/e' %s | {LLC950} | FileCheck %s", fadd()),
    "no FILE",
    lambda ctx, res, before, after: judge(res, (0, 2)),
)
_update_attack(
    "llvm-as %s -o FILE | llc | FileCheck",
    lambda ctx: test_file(f"llvm-as %s -o {ctx.canary}/as.bc | {LLC950} | FileCheck %s", fadd()),
    "no FILE",
    lambda ctx, res, before, after: judge(res, (0, 2)),
    check_only=True,
)
_update_attack(
    "cat %S/t.ll | llc | FileCheck, the file named without a directory",
    test_file(f"cat %S/t.ll | {LLC950} | FileCheck %s", fadd()),
    "exit 0, fadd checked",
    labels("fadd"),
    bare=True,
)
_update_attack(
    "llc < /dev/zero | FileCheck",
    test_file(f"{LLC950} < /dev/zero | FileCheck %s", fadd()),
    "exit 2 within 30 s",
    lambda ctx, res, before, after: judge(res, (2,)),
    seconds=30,
)
_update_attack(
    "valid control",
    test_file(f"{LLC950} < %s | FileCheck %s", fadd()),
    "exit 0, fadd checked",
    labels("fadd"),
)


# --------------------------------------------------------------------------- bisect-run

BISECT = ("bisect-run", "--intrinsic", MFMA, "--fmt-a", "fp8", "--fmt-b", "fp8", "--selector", "sdag")


def _alive(pidfile: Path) -> list[int]:
    """The processes listed in `pidfile` still running (a zombie waiting for a reaper is not),
    killed on the way out."""
    alive = []
    for word in pidfile.read_text().split() if pidfile.exists() else []:
        try:
            state = Path(f"/proc/{int(word)}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, ValueError, IndexError):
            continue
        if state != "Z":
            alive.append(int(word))
    for pid in alive:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return alive


def _bisect_tool(name: str, script: str, timeout: str = "20"):
    def body(ctx: Ctx) -> Outcome:
        ctx.need("bisect-run")
        pids = ctx.base / "pids"
        fake = fake_tools(ctx, {"opt": script.replace("PIDS", str(pids))})
        res = ctx.harness(*BISECT, "--llvm-bin", fake, "--timeout", timeout, "--cases", ctx.cases(None))
        outcome = judge(res, (125,), seconds=60, one_line=False)
        left = _alive(pids)
        if left:
            outcome = worst(outcome, Outcome("hang", f"{len(left)} child process(es) left running; " + res.brief()))
        return outcome

    attack("bisect", f"bisect-run: {name}", "skip (125): no case was compiled")(body)


_bisect_tool("opt crashes on every run (the support probe)", "cat >/dev/null\nkill -SEGV $$\n")
_bisect_tool("opt hangs on every run (the support probe), --timeout 3", "echo $$ >> PIDS\nexec sleep 300\n", timeout="3")


@attack("bisect", "bisect-run: --llvm-bin-cmd hangs (its child too), --timeout 3", "skip (125) within 60 s, no child left")
def _bisect_cmd_hangs(ctx: Ctx) -> Outcome:
    ctx.need("bisect-run", "--llvm-bin-cmd")
    pids = ctx.base / "pids"
    cmd = f"sleep 300 & echo $! >> {pids}; wait"
    res = ctx.harness(*BISECT, "--llvm-bin-cmd", cmd, "--timeout", "3", "--cases", ctx.cases(None), limit=90)
    outcome = judge(res, (125,), seconds=60, one_line=False)
    left = _alive(pids)
    if left:
        outcome = worst(outcome, Outcome("hang", f"{len(left)} child process(es) left running; " + res.brief()))
    return outcome


@attack("bisect", "bisect-run: SIGTERM during --build", "exits (never 0, 1 or 125), the build's children ended")
def _bisect_sigterm(ctx: Ctx) -> Outcome:
    ctx.need("bisect-run", "--build")
    pids = ctx.base / "pids"
    build = f"sleep 300 & echo $! >> {pids}; wait"
    argv = [ctx.python, "-m", "harness", *BISECT, "--build", build, "--llvm-bin", LLVM_BIN, "--cases", str(ctx.cases(None))]
    began = time.monotonic()
    proc = ctx.start(argv)
    while not pids.exists() and proc.poll() is None and time.monotonic() - began < 30:
        time.sleep(0.05)
    time.sleep(0.2)
    proc.send_signal(signal.SIGTERM)
    res = ctx.finish(proc, began, limit=30)
    left = _alive(pids)
    if res.timed_out:
        return Outcome("hang", res.brief())
    if has_traceback(res):
        return Outcome("traceback", res.brief())
    if left:
        return Outcome("hang", f"{len(left)} child process(es) left running; " + res.brief())
    if res.rc in (0, 1, 125):
        return Outcome("wrong", "voted although interrupted; " + res.brief())
    return Outcome("clean", res.brief())


@attack("bisect", "bisect-run: valid control", "good (0)")
def _bisect_control(ctx: Ctx) -> Outcome:
    ctx.need("bisect-run")
    res = ctx.harness(*BISECT, "--llvm-bin", LLVM_BIN, "--cases", ctx.cases(None))
    return judge(res, (0,), one_line=False)


# --------------------------------------------------------------------------- report

RUN_SELECTION = ("--intrinsic", MFMA, "--fmt-a", "fp8", "--fmt-b", "fp8")


def _run_doc(ctx: Ctx) -> dict:
    res = ctx.harness("run", *RUN_SELECTION, "--llvm-bin", LLVM_BIN, "--cases", ctx.cases(None), "--json")
    if res.rc != 0:
        raise RuntimeError(f"setup run failed: {res.brief()}")
    return json.loads(res.out)


def _report_attack(name: str, mutate: Callable[[dict], object], flags: tuple[str, ...], exits=(0, 2)):
    def body(ctx: Ctx) -> Outcome:
        ctx.need("report")
        doc = _run_doc(ctx)
        mutate(doc)
        path = ctx.work / "r.json"
        path.write_text(json.dumps(doc))
        before = path.read_bytes()
        argv = [a.replace("{work}", str(ctx.work)) for a in flags]
        res = ctx.harness("report", path, *argv)
        outcome = judge(res, exits)
        if path.read_bytes() != before:
            outcome = worst(outcome, Outcome("loss", "the input was overwritten; " + res.brief()))
        return canary_outcome(ctx, outcome)

    word = "exit 2, one line" if exits == (2,) else "exit 0 or a one-line exit 2"
    attack("report", f"report {' '.join(flags)}: {name}", word + "; inputs unchanged")(body)


def _first(key: str, value):
    return lambda doc: doc["cases"][0].__setitem__(key, value)


for _flags in ((), ("--markdown",), ("--html", "{work}/o.html")):
    _report_attack('"args": [1, 2] in a record', _first("args", [1, 2]), _flags)
    _report_attack('"llvm_bin": ["/a"]', lambda doc: doc.__setitem__("llvm_bin", ["/a"]), _flags)
    _report_attack('"llvm": 22', lambda doc: doc.__setitem__("llvm", 22), _flags)
    _report_attack('"detail": ["x"] in a record', _first("detail", ["x"]), _flags)
    _report_attack('"selection": "all"', lambda doc: doc.__setitem__("selection", "all"), _flags)
    _report_attack('"narrowing": 5 in a record', _first("narrowing", 5), _flags)
_report_attack("width_a = 10^4000", _first("width_a", 10**4000), (), exits=(2,))
_report_attack("opt = -5", _first("opt", -5), (), exits=(2,))
_report_attack("width_a = -3", _first("width_a", -3), (), exits=(2,))
_report_attack("--html onto its own input", lambda doc: None, ("--html", "{work}/r.json"), exits=(2,))
_report_attack("valid control", lambda doc: None, (), exits=(0,))


@attack("report", "report --html onto a symlink to its input", "exit 2, one line; the input unchanged")
def _report_html_link(ctx: Ctx) -> Outcome:
    ctx.need("report")
    path = ctx.work / "r.json"
    path.write_text(json.dumps(_run_doc(ctx)))
    before = path.read_bytes()
    (ctx.work / "o.html").symlink_to(path)
    res = ctx.harness("report", path, "--html", ctx.work / "o.html")
    outcome = refuse(res)
    if path.read_bytes() != before:
        outcome = worst(outcome, Outcome("loss", "the input was overwritten through the link; " + res.brief()))
    return outcome


# --------------------------------------------------------------------------- nvptx: gpu check, gpu build

GEMM_FILTER = "gemm_16x8x16_f16_beta0*"


def _gemm_dir(ctx: Ctx, out: Path, *extra: object, llvm_bin: object = LLVM_BIN) -> Result:
    return ctx.harness(
        "gpu",
        "build",
        "--kind",
        "gemm",
        "--out",
        out,
        "--cases",
        ctx.cases(None),
        "--filter",
        GEMM_FILTER,
        "--llvm-bin",
        llvm_bin,
        *extra,
    )


def _manifest_attack(name: str, mutate: Callable[[Ctx, Path], None], exits=(2,), seconds=None):
    def body(ctx: Ctx) -> Outcome:
        ctx.need("gpu")
        out = ctx.work / "g"
        made = _gemm_dir(ctx, out, "--no-ptxas")
        if made.rc != 0:
            raise RuntimeError(f"setup gpu build failed: {made.brief()}")
        mutate(ctx, out / "manifest.json")
        res = ctx.harness("gpu", "check", out, limit=60)
        return canary_outcome(ctx, judge(res, exits, seconds))

    word = "exit 2, one line" if exits == (2,) else "exit " + "/".join(map(str, exits))
    attack("nvptx", f"gpu check: {name}", word)(body)


def _edit(change: Callable[[dict], None]):
    def mutate(ctx: Ctx, path: Path) -> None:
        doc = json.loads(path.read_text())
        change(doc)
        path.write_text(json.dumps(doc))

    return mutate


def _case0(key: str, value):
    return _edit(lambda doc: doc["kernels"][0].__setitem__(key, value))


def _bytes(data: bytes):
    return lambda ctx, path: path.write_bytes(data)


def _replace_with(make: Callable[[Path], None]):
    def mutate(ctx: Ctx, path: Path) -> None:
        path.unlink()
        make(path)

    return mutate


_manifest_attack('"ptx": 5', _case0("ptx", 5))
_manifest_attack('"ptx": "/etc/passwd"', _case0("ptx", "/etc/passwd"))
_manifest_attack('"ptx": "../../../../../../etc/passwd"', _case0("ptx", "../../../../../../etc/passwd"))
_manifest_attack('"m": "sixteen"', _case0("m", "sixteen"))
_manifest_attack("m = n = k = 10^9", _edit(lambda d: d["kernels"][0].update(m=10**9, n=10**9, k=10**9)))
_manifest_attack('"seed": "x"', _case0("seed", "x"))
_manifest_attack('"beta": [1]', _case0("beta", [1]))
_manifest_attack('"transpose_a": "yes"', _case0("transpose_a", "yes"))
_manifest_attack('"sm": 90', _case0("sm", 90))
_manifest_attack('"kernel": {}', _case0("kernel", {}))
_manifest_attack('"dtype": ["f16"]', _case0("dtype", ["f16"]))
_manifest_attack("a 0xff byte", _bytes(b'{"kernels": [\xff]}'))
_manifest_attack("nesting 100000 deep", _bytes(b"[" * 100000 + b"]" * 100000))
_manifest_attack("a FIFO", _replace_with(os.mkfifo), seconds=30)
_manifest_attack("a symlink to /dev/zero", _replace_with(lambda p: p.symlink_to("/dev/zero")), seconds=30)
_manifest_attack("valid control (no GPU here: 125)", lambda ctx, path: None, exits=(0, 1, 125))


@attack("nvptx", "gpu build --out o with o/manifest.json a symlink to another file", "that file unchanged; exit 0 or 2")
def _gemm_symlinked_manifest(ctx: Ctx) -> Outcome:
    ctx.need("gpu")
    out = ctx.work / "o"
    out.mkdir(parents=True)
    victim = ctx.canary / "precious"
    victim.write_text("precious\n")
    (out / "manifest.json").symlink_to(victim)
    res = _gemm_dir(ctx, out, "--no-ptxas")
    outcome = judge(res, (0, 2))
    if victim.read_text() != "precious\n":
        return Outcome("wrong", "written through the symlink; " + res.brief())
    return outcome


@attack("nvptx", "gpu build with a ptxas that prints fatal and exits 0", "exit 2, one line naming ptxas")
def _gemm_fatal_ptxas(ctx: Ctx) -> Outcome:
    ctx.need("gpu")
    ptxas = ctx.base / "ptxas"
    ptxas.write_text("#!/bin/bash\necho 'ptxas fatal   : Unresolved extern function' >&2\nexit 0\n")
    ptxas.chmod(0o755)
    res = _gemm_dir(ctx, ctx.work / "o", "--ptxas", ptxas)
    outcome = refuse(res)
    if outcome.verdict == "clean" and "ptxas" not in res.err:
        return Outcome("wrong", "the error does not name ptxas; " + res.brief())
    return outcome


@attack("nvptx", "try on an NVPTX row with a ptxas that prints fatal and exits 0", "exit 2, one line naming ptxas")
def _try_fatal_ptxas(ctx: Ctx) -> Outcome:
    ptxas = ctx.base / "ptxas"
    ptxas.write_text("#!/bin/bash\necho 'ptxas fatal   : Unresolved extern function' >&2\nexit 0\n")
    ptxas.chmod(0o755)
    res = ctx.harness("try", "--intrinsic", "mma.m16n8k16.row.col.bf16", "--llvm-bin", LLVM_BIN, env={"PTXAS": str(ptxas)})
    outcome = refuse(res)
    if outcome.verdict == "clean" and "ptxas" not in res.err:
        return Outcome("wrong", "the error does not name ptxas; " + res.brief())
    return outcome


# --------------------------------------------------------------------------- cache


def _cache_attack(name: str, spoil: Callable[[Path], int]):
    """`run --cache-dir D` twice; `spoil(D)` damages D between the runs (returns how many entries)."""

    def body(ctx: Ctx) -> Outcome:
        ctx.need("run", "--cache-dir")
        store = ctx.base / "store"
        argv = ("run", *RUN_SELECTION, "--llvm-bin", LLVM_BIN, "--cases", ctx.cases(None), "--cache-dir", store)
        first = ctx.harness(*argv)
        if first.rc != 0:
            raise RuntimeError(f"setup run failed: {first.brief()}")
        spoiled = spoil(store)
        res = ctx.harness(*argv, limit=60)
        outcome = judge(res, (0,), seconds=60)
        if outcome.verdict == "clean" and res.out != first.out:
            return Outcome("wrong", "another table from a damaged cache; " + res.brief())
        return Outcome(outcome.verdict, f"{spoiled} entries spoiled; {outcome.note}")

    attack("cache", f"run --cache-dir: {name}", "exit 0 within 60 s, the same table")(body)


def _each(kind: str, make: Callable[[Path], None]):
    def spoil(store: Path) -> int:
        entries = [p for p in (store / kind).rglob("*") if p.is_file()]
        for p in entries:
            p.unlink()
            make(p)
        return len(entries)

    return spoil


_cache_attack("every run entry a FIFO", _each("runs", os.mkfifo))
_cache_attack("every run entry a symlink to /dev/zero", _each("runs", lambda p: p.symlink_to("/dev/zero")))
_cache_attack("every run entry a directory", _each("runs", lambda p: p.mkdir()))
_cache_attack("every binary-digest note a FIFO", _each("files", os.mkfifo))
_cache_attack("every binary-digest note a symlink to /dev/zero", _each("files", lambda p: p.symlink_to("/dev/zero")))
_cache_attack(
    "every run entry valid zlib of JSON with wrong types",
    _each("runs", lambda p: p.write_bytes(zlib.compress(b'{"format": 1, "key": [], "returncode": "0"}'))),
)


# --------------------------------------------------------------------------- round 3
# Third review (after the kept answers of `harness/tools/builds.py`): every name carries "[r3]"
# (`--filter '[r3]'` runs this round alone).


def _store(ctx: Ctx) -> Path:
    return ctx.base / "cache" / "matrix-harness"


def _tmp_in(d: Path) -> list[str]:
    return sorted(str(p.relative_to(d)) for p in d.rglob("*.tmp")) if d.is_dir() else []


def _passes(res: Result, expect: str = "pass") -> Outcome:
    outcome = accept(res, seconds=60)
    if outcome.verdict == "clean" and verdict_of(res.out) != expect:
        return Outcome("wrong", f"verdict {verdict_of(res.out)!r}, expected {expect!r}; {res.brief()}")
    return outcome


def _answers_attack(name: str, spoil: Callable[[Ctx, Path], None], expect: str = "the same verdict (pass), exit 0", **kw):
    """`try` fills the answers store, `spoil(ctx, store)` damages it, `try` again must still
    judge from the build (pass), write nothing outside the store, and leave no .tmp."""

    def body(ctx: Ctx) -> Outcome:
        first = ctx.harness(*TRY, "--llvm-bin", LLVM_BIN)
        if first.rc != 0 or not (_store(ctx) / "answers").is_dir():
            raise RuntimeError(f"setup try failed or kept no answers: {first.brief()}")
        spoil(ctx, _store(ctx))
        res = ctx.harness(*TRY, "--llvm-bin", LLVM_BIN, modes=kw.get("modes", False))
        outcome = canary_outcome(ctx, _passes(res))
        left = _tmp_in(_store(ctx))
        if left:
            outcome = worst(outcome, Outcome("loss", f"temporary files left in the store: {left[:3]}"))
        if kw.get("check"):
            outcome = worst(outcome, kw["check"](ctx, res))
        return outcome

    attack("cache", f"[r3] answers: {name}", expect)(body)


def _entries(store: Path) -> list[Path]:
    return sorted(p for p in (store / "answers").iterdir() if p.name.endswith(".json"))


def _each_entry(make: Callable[[Ctx, Path], None]):
    def spoil(ctx: Ctx, store: Path) -> None:
        for p in _entries(store):
            p.unlink()
            make(ctx, p)

    return spoil


def _answers_elsewhere(ctx: Ctx, store: Path) -> None:
    shutil.rmtree(store / "answers")
    (store / "answers").symlink_to(ctx.canary, target_is_directory=True)


def _answers_a_file(ctx: Ctx, store: Path) -> None:
    shutil.rmtree(store / "answers")
    (store / "answers").write_text("not a directory\n")


def _victim(ctx: Ctx) -> Path:
    return ctx.base / "victim.json"


def _link_to_victim(ctx: Ctx, p: Path) -> None:
    _victim(ctx).write_text('{"key": "precious", "answer": "precious"}\n')
    p.symlink_to(_victim(ctx))


def _victim_kept(ctx: Ctx, res: Result) -> Outcome:
    if _victim(ctx).read_text() != '{"key": "precious", "answer": "precious"}\n':
        return Outcome("wrong", "written through a link in the store; " + res.brief())
    return Outcome("clean", "")


def _unreadable(ctx: Ctx, p: Path) -> None:
    p.write_text("{}")
    p.chmod(0)


def _read_only_store(ctx: Ctx, store: Path) -> None:
    for p in _entries(store):
        p.unlink()
    (store / "answers").chmod(0o555)
    store.chmod(0o555)


def _damage_in_place(old: str, new: str):
    """One answer's text changed where it lies (its key as it was): disk damage, not a forgery."""

    def spoil(ctx: Ctx, store: Path) -> None:
        hits = [p for p in _entries(store) if old in p.read_text()]
        if not hits:
            raise RuntimeError(f"no kept answer holds {old!r}")
        hits[0].write_text(hits[0].read_text().replace(old, new, 1))

    return spoil


def _version_named(ctx: Ctx, res: Result) -> Outcome:
    if "LLVM 22." not in res.out:
        return Outcome("wrong", "the build's version is not the one llc gives; " + _tail_out(res))
    return Outcome("clean", "")


_answers_attack("answers/ a symlink to another directory", _answers_elsewhere, "pass, nothing written there")
_answers_attack("answers/ a regular file", _answers_a_file)
_answers_attack(
    "every entry a symlink to a file outside", _each_entry(_link_to_victim), "pass, that file unchanged", check=_victim_kept
)
_answers_attack("every entry a FIFO", _each_entry(lambda ctx, p: os.mkfifo(p)))
_answers_attack("every entry 2 MiB of spaces", _each_entry(lambda ctx, p: p.write_bytes(b" " * (2 << 20))))
_answers_attack("every entry unreadable (mode 000, binding)", _each_entry(_unreadable), modes=True)
_answers_attack("the store read-only (binding), emptied", _read_only_store, modes=True)
_answers_attack('a CPU name damaged in place ("gfx950" -> "gfx95o")', _damage_in_place('"gfx950"', '"gfx95o"'))
_answers_attack('the intrinsic answer damaged in place ("" -> "x")', _damage_in_place('": ""', '": "x"'))
_answers_attack(
    'the version text damaged in place ("22." -> "23.")',
    _damage_in_place("LLVM version 22.", "LLVM version 23."),
    "pass, LLVM 22 named",
    check=_version_named,
)


def _xdg_attack(name: str, value: Callable[[Ctx], str]):
    def body(ctx: Ctx) -> Outcome:
        res = ctx.harness(*TRY, "--llvm-bin", LLVM_BIN, env={"XDG_CACHE_HOME": value(ctx)})
        outcome = canary_outcome(ctx, _passes(res))
        made = sorted(p.name for p in ctx.work.iterdir())
        if made:
            outcome = worst(outcome, Outcome("wrong", f"written in the working directory: {made}"))
        return outcome

    attack("cache", f"[r3] XDG_CACHE_HOME {name}", "pass; nothing written in the working directory")(body)


def _fifo_at(ctx: Ctx) -> str:
    os.mkfifo(ctx.base / "fifo")
    return str(ctx.base / "fifo")


def _file_at(ctx: Ctx) -> str:
    (ctx.base / "file").write_text("x\n")
    return str(ctx.base / "file")


_xdg_attack("relative (cache)", lambda ctx: "cache")
_xdg_attack("a regular file", _file_at)
_xdg_attack("/dev/null", lambda ctx: "/dev/null")
_xdg_attack("a FIFO", _fifo_at)


@attack("cache", "[r3] answers: two concurrent try, 4 rounds, an empty store each", "all pass; no .tmp in the store")
def _answers_concurrent(ctx: Ctx) -> Outcome:
    for _ in range(4):
        shutil.rmtree(ctx.base / "cache", ignore_errors=True)
        began = time.monotonic()
        procs = [ctx.start([ctx.python, "-m", "harness", *TRY, "--llvm-bin", LLVM_BIN]) for _ in range(2)]
        for res in [ctx.finish(p, began) for p in procs]:
            outcome = _passes(res)
            if outcome.verdict != "clean":
                return outcome
        left = _tmp_in(_store(ctx))
        if left:
            return Outcome("loss", f"temporary files left: {left}")
    return Outcome("clean", "4 rounds")


@attack("cache", "[r3] answers: SIGINT to run at 0.2-1.0 s, 5 times, an empty store each", "exit 130 or 0; no .tmp in the store")
def _answers_interrupted(ctx: Ctx) -> Outcome:
    for delay in (0.2, 0.4, 0.6, 0.8, 1.0):
        shutil.rmtree(ctx.base / "cache", ignore_errors=True)
        began = time.monotonic()
        proc = ctx.start([ctx.python, "-m", "harness", "run", *RUN_SELECTION, "--llvm-bin", LLVM_BIN])
        time.sleep(delay)
        proc.send_signal(signal.SIGINT)
        res = ctx.finish(proc, began)
        if res.timed_out or has_traceback(res):
            return judge(res, (130, 0))
        left = _tmp_in(_store(ctx))
        if left:
            return Outcome("loss", f"temporary files left after SIGINT at {delay} s: {left}")
    return Outcome("clean", "5 interrupts")


@attack("cache", "[r3] answers: run --no-cache", "exit 0; no answers kept")
def _answers_no_cache(ctx: Ctx) -> Outcome:
    res = ctx.harness("run", *RUN_SELECTION, "--llvm-bin", LLVM_BIN, "--no-cache")
    outcome = accept(res)
    if (_store(ctx) / "answers").exists():
        return worst(outcome, Outcome("wrong", "answers kept with --no-cache"))
    return outcome


def _elf_llc(ctx: Ctx, damage: Callable[[bytearray], None]) -> Path:
    out = fake_build(ctx, "llc", None)
    data = bytearray((Path(LLVM_BIN) / "llc").read_bytes()[: 1 << 16])
    damage(data)
    (out / "llc").write_bytes(bytes(data))
    (out / "llc").chmod(0o755)
    return out


def _phoff_huge(data: bytearray) -> None:
    data[32:40] = (2**64 - 16).to_bytes(8, "little")


def _dynamic_huge(data: bytearray) -> None:
    phoff = int.from_bytes(data[32:40], "little")
    phentsize, phnum = int.from_bytes(data[54:56], "little"), int.from_bytes(data[56:58], "little")
    for i in range(phnum):
        at = phoff + i * phentsize
        if int.from_bytes(data[at : at + 4], "little") == 2:
            data[at + 32 : at + 40] = (2**62).to_bytes(8, "little")


def _elf_attack(name: str, damage: Callable[[bytearray], None]):
    def body(ctx: Ctx) -> Outcome:
        res = ctx.harness(*TRY, "--llvm-bin", _elf_llc(ctx, damage))
        return refuse(res, seconds=60)

    attack("cache", f"[r3] llc a damaged ELF: {name}", "exit 2, one line")(body)


_elf_attack("program headers at 2^64-16", _phoff_huge)
_elf_attack("a dynamic section of 2^62 bytes", _dynamic_huge)
_elf_attack("the first 4 KiB of llc", lambda data: data.__delitem__(slice(4096, None)))
_elf_attack("the ELF header alone", lambda data: data.__delitem__(slice(64, None)))


def _swap_llc_attack(command: str):
    """The same bin/llc path, another build between two runs: the second run's answers are that
    build's (llvm-14 knows no gfx950), never the first build's kept ones."""

    def body(ctx: Ctx) -> Outcome:
        old = Path(LLVM_BIN).parent.parent / "llvm-14" / "bin" / "llc"
        if not old.exists():
            raise NotApplicable("no llvm-14 llc")
        fake = fake_build(ctx, "llc", None)
        shutil.copy2(Path(LLVM_BIN) / "llc", fake / "llc")
        argv = (*BISECT, "--cases", ctx.cases(None)) if command == "bisect-run" else TRY
        if command == "bisect-run":
            ctx.need("bisect-run")
        first = ctx.harness(*argv, "--llvm-bin", fake)
        if first.rc != 0:
            raise RuntimeError(f"setup failed: {first.brief()}")
        (fake / "llc").unlink()
        shutil.copy2(old, fake / "llc")
        res = ctx.harness(*argv, "--llvm-bin", fake)
        if command == "bisect-run":
            return judge(res, (125,), seconds=60, one_line=False)
        outcome = judge(res, (0, 2), seconds=60)
        if res.rc == 0 and verdict_of(res.out) == "pass":
            return Outcome("wrong", "pass from the first build's kept answers; " + _tail_out(res))
        return outcome

    want = "skip (125)" if command == "bisect-run" else "not pass (unsupported, or exit 2)"
    attack("cache", f"[r3] {command}: bin/llc replaced by llvm-14's between two runs", want)(body)


_swap_llc_attack("try")
_swap_llc_attack("bisect-run")


@attack("cache", "[r3] llc a symlink to /usr/bin/true (an ELF that answers nothing)", "exit 2, one line")
def _llc_true(ctx: Ctx) -> Outcome:
    fake = fake_build(ctx, "llc", None)
    (fake / "llc").symlink_to("/usr/bin/true")
    return refuse(ctx.harness(*TRY, "--llvm-bin", fake))


# update-checks, round 3

QUOTED_HAND = "; CHECK-LABEL: my-func:\n; CHECK: v_add_f32\n"


def _hand_or_label(hand: str, label: str):
    def check(ctx, res, before, after) -> Outcome:
        if hand not in after and f"; CHECK-LABEL: {label}" not in after:
            return Outcome("loss", f"the hand-written lines gone and no {label} checks; " + res.brief())
        return judge(res, (0,))

    return check


def _label_written(label: str):
    def check(ctx, res, before, after) -> Outcome:
        if res.rc != 0 or f"; CHECK-LABEL: {label}\n" not in after:
            return Outcome("wrong", f"no CHECK-LABEL {label}; " + _tail_out(res))
        return judge(res, (0,))

    return check


_update_attack(
    '[r3] @"my-func" with hand-written CHECK lines, beside a plain function',
    test_file(f"{LLC950} < %s | FileCheck %s", fadd('"my-func"', QUOTED_HAND) + fadd("plain")),
    "its lines kept, or regenerated under the label llc prints",
    _hand_or_label(QUOTED_HAND, '"my-func":'),
)
_update_attack(
    '[r3] @"my-func" alone',
    test_file(f"{LLC950} < %s | FileCheck %s", fadd('"my-func"')),
    'exit 0, CHECK-LABEL: "my-func":',
    _label_written('"my-func":'),
)
_update_attack(
    '[r3] @"\\01weird" beside a plain function',
    test_file(f"{LLC950} < %s | FileCheck %s", fadd('"\\01weird"') + fadd("plain")),
    "exit 0, CHECK-LABEL: weird:",
    _label_written("weird:"),
)


def _crlf_kept(ctx, res, before, after) -> Outcome:
    data = (ctx.work / "t.ll").read_bytes()
    if data.count(b"\n") != data.count(b"\r\n"):
        return Outcome("wrong", "line endings changed from CRLF; " + res.brief())
    again = ctx.harness("update-checks", ctx.work / "t.ll", "--llvm-bin", LLVM_BIN)
    if "up to date" not in again.out or (ctx.work / "t.ll").read_bytes() != data:
        return Outcome("wrong", "a second run rewrote the file; " + _tail_out(again))
    return judge(res, (0,))


_update_attack(
    "[r3] a CRLF file, run twice",
    test_file(f"{LLC950} < %s | FileCheck %s", fadd()).replace("\n", "\r\n"),
    "CRLF kept; the second run: up to date, nothing written",
    _crlf_kept,
)


def _kept_line(line: str):
    def check(ctx, res, before, after) -> Outcome:
        if line not in after:
            return Outcome("loss", f"the line {line[:40]!r} changed or gone; " + res.brief())
        return judge(res, (0,), seconds=60)

    return check


_update_attack(
    "[r3] a NUL byte in a comment",
    test_file(f"{LLC950} < %s | FileCheck %s", "; a \0 byte\n" + fadd()),
    "exit 0, the line kept",
    _kept_line("; a \0 byte"),
)
_update_attack(
    "[r3] U+2028 and U+0085 inside a comment",
    test_file(f"{LLC950} < %s | FileCheck %s", "; sep \u2028 and \u0085 here\n" + fadd()),
    "exit 0, the line kept",
    _kept_line("; sep \u2028 and \u0085 here"),
)
_update_attack(
    "[r3] a 4 MB comment line",
    test_file(f"{LLC950} < %s | FileCheck %s", "; " + "x" * (4 << 20) + "\n" + fadd()),
    "exit 0 within 60 s, the line kept",
    _kept_line("; " + "x" * (4 << 20)),
    seconds=60,
)
_update_attack(
    "[r3] a UTF-8 byte-order mark",
    "\ufeff" + test_file(f"{LLC950} < %s | FileCheck %s", fadd()),
    "exit 2 (no RUN line read) with the file unchanged, or exit 0 with checks",
    lambda ctx, res, before, after: (
        unchanged_refused(ctx, res, before, after) if res.rc == 2 else labels("fadd")(ctx, res, before, after)
    ),
)
_update_attack(
    "[r3] an empty file",
    "",
    "exit 2, one line",
    unchanged_refused,
)


@attack("update", "[r3] update-checks t.ll ./t.ll (one file named twice)", "exit 0; one CHECK block")
def _update_twice_named(ctx: Ctx) -> Outcome:
    path = _write_test(ctx, test_file(f"{LLC950} < %s | FileCheck %s", fadd()))
    res = ctx.harness("update-checks", "t.ll", "./t.ll", "--llvm-bin", LLVM_BIN)
    outcome = judge(res, (0,))
    if path.read_text().count("; CHECK-LABEL: fadd:") != 1:
        return Outcome("wrong", "not one CHECK block; " + res.brief())
    return outcome


@attack("update", "[r3] update-checks: the test edited while llc runs", "the edit kept (exit 2, one line)")
def _update_edited_meanwhile(ctx: Ctx) -> Outcome:
    path = _write_test(ctx, test_file(f"{LLC950} < %s | FileCheck %s", fadd()))
    real = f'exec "{LLVM_BIN}/llc" "$@"\n'
    fake = fake_tools(ctx, {"llc": f"echo '; edited meanwhile' >> {path}\n{real}"})
    res = ctx.harness("update-checks", path, "--llvm-bin", fake)
    if "; edited meanwhile" not in path.read_text():
        return worst(judge(res, (0, 2)), Outcome("loss", "the edit made while llc ran is gone; " + res.brief()))
    return judge(res, (2,))


# audit, round 3

_audit_attack(
    '[r3] @"q\\22uote" with the over-wide MFMA',
    test_file(f"{LLC950} < %s", overwide('"q\\22uote"')),
    "exit 1, q\\22uote: mc-reject",
    mc_rejects("q\\22uote"),
)
_audit_attack(
    '[r3] @"\\01weird" with the over-wide MFMA',
    test_file(f"{LLC950} < %s", overwide('"\\01weird"')),
    "exit 1, \\01weird: mc-reject",
    mc_rejects("\\01weird"),
)
_audit_attack(
    '[r3] @"x\\0Ay" (a newline in the name) with the over-wide MFMA',
    test_file(f"{LLC950} < %s", overwide('"x\\0Ay"')),
    "exit 1, mc-reject",
    mc_rejects("x\\0Ay"),
)
_audit_attack(
    "[r3] a CRLF test with the over-wide MFMA",
    test_file(f"{LLC950} < %s", overwide()).replace("\n", "\r\n"),
    "exit 1, over: mc-reject",
    mc_rejects("over"),
)
_audit_attack(
    "[r3] a comment with U+2028 then RUN: touch FILE",
    lambda ctx: f"; note \u2028 RUN: touch {ctx.canary}/x\n" + test_file(f"{LLC950} < %s", overwide()),
    "no FILE; exit 1, over: mc-reject",
    mc_rejects("over"),
)


@attack("nvptx", "[r3] gpu build --out an earlier output holding the user's notes.txt", "notes.txt kept (exit 2, one line)")
def _tile_out_foreign(ctx: Ctx) -> Outcome:
    ctx.need("gpu")
    out = ctx.work / "o"
    argv = ("gpu", "build", "--kind", "tile", "--out", out, "--filter", "mma.m16n8k16.row.col.bf16", "--llvm-bin", LLVM_BIN)
    first = ctx.harness(*argv)
    if first.rc != 0:
        raise RuntimeError(f"setup gpu build failed: {first.brief()}")
    (out / "notes.txt").write_text("precious\n")
    res = ctx.harness(*argv)
    if not (out / "notes.txt").exists():
        return worst(judge(res, (0, 2)), Outcome("loss", "notes.txt deleted; " + res.brief()))
    return judge(res, (2,))


@attack(
    "flags",
    "[r3] SIGINT 0.05-0.5 s after start (harness modules loading, flags read), 10 times",
    "exit 130 (or killed by SIGINT); no traceback through the harness's own code",
)
def _interrupt_at_start(ctx: Ctx) -> Outcome:
    """The interpreter's own start (site, runpy finding `harness.__main__`) runs no harness code:
    an interrupt there prints the interpreter's traceback whatever the harness does, so only a
    traceback with a frame in a harness file counts."""
    for i in range(10):
        delay = 0.05 + 0.05 * i
        began = time.monotonic()
        proc = ctx.start([ctx.python, "-m", "harness", *TRY, "--llvm-bin", LLVM_BIN])
        time.sleep(delay)
        proc.send_signal(signal.SIGINT)
        res = ctx.finish(proc, began)
        if res.timed_out:
            return Outcome("hang", f"SIGINT at {delay:.2f} s: " + res.brief())
        if has_traceback(res) and re.search(r'File "[^"]*/harness/', res.err):
            return Outcome("traceback", f"SIGINT at {delay:.2f} s: " + res.err.strip().splitlines()[-2][:160])
        if not has_traceback(res) and res.rc not in (130, -signal.SIGINT, 0):
            return Outcome("wrong", f"SIGINT at {delay:.2f} s: " + res.brief())
    return Outcome("clean", "10 interrupts")


# --------------------------------------------------------------------------- running


WORKTREE = "WORKTREE"  # not a git revision: the working tree as it is (tracked and untracked, not ignored)


def export(revision: str, into: Path) -> tuple[str, Path]:
    if revision == WORKTREE:
        return WORKTREE, _export_worktree(into)
    parsed = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", revision], capture_output=True, text=True, check=True
    )
    sha = parsed.stdout.strip()
    root = into / f"rev-{sha}"
    root.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", revision], capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(root)], input=archive.stdout, check=True)
    return sha, root


def _export_worktree(into: Path) -> Path:
    """A copy of the working tree's files that git would see (uncommitted changes included)."""
    listed = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        capture_output=True,
        check=True,
    )
    root = into / "rev-worktree"
    for name in sorted(set(listed.stdout.decode().split("\0")) - {""}):
        source = ROOT / name
        if source.is_file() or source.is_symlink():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, root / name, follow_symlinks=False)
    return root


def helps(python: str, root: Path) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(root)}
    out = {}
    top = subprocess.run([python, "-m", "harness", "--help"], capture_output=True, text=True, env=env, cwd=root)
    m = re.search(r"\{([\w,-]+)\}", top.stdout)
    for command in m.group(1).split(",") if m else []:
        text = subprocess.run([python, "-m", "harness", command, "--help"], capture_output=True, text=True, env=env, cwd=root)
        out[command] = text.stdout
    return out


def run_one(index: int, root: str, helptexts: dict, python: str, limit: float, scratch: str) -> tuple[int, str, str, float]:
    a = ATTACKS[index]
    base = Path(tempfile.mkdtemp(prefix=f"a{index}-", dir=scratch))
    ctx = Ctx(Path(root), base, helptexts, python, limit)
    for d in (ctx.work, ctx.canary, base / "home", base / "cache"):
        d.mkdir()
    began = time.monotonic()
    try:
        o = a.body(ctx)
        verdict, note = o.verdict, o.note
    except NotApplicable as exc:
        verdict, note = "n/a", str(exc)
    except Exception as exc:  # the attack's own failure: say so, never count it as the harness's
        verdict, note = "error", f"attack failed: {exc!r} {traceback.format_exc(limit=2)[-300:]}"
    finally:
        _unlock(base)
        shutil.rmtree(base, ignore_errors=True)
    return index, verdict, note, time.monotonic() - began


def _unlock(base: Path) -> None:
    """Make read-only directories an attack left writable again, so they can be removed."""
    for p in base.rglob("*"):
        if p.is_dir() and not p.is_symlink():
            try:
                p.chmod(0o755)
            except OSError:
                pass


def table(results: dict[str, dict[int, tuple[str, str, float]]], chosen: list[int]) -> str:
    cats = [c for c in CATEGORIES if any(ATTACKS[i].category == c for i in chosen)]
    lines = []
    for rev, res in results.items():
        lines += [
            f"### {rev}",
            "",
            "| category | tried | clean | traceback | wrong | hang | loss | n/a |",
            "|---|---|---|---|---|---|---|---|",
        ]
        total: Counter[str] = Counter()
        for cat in cats:
            c = Counter(res[i][0] for i in chosen if ATTACKS[i].category == cat)
            tried = sum(v for k, v in c.items() if k not in ("n/a", "error"))
            total.update(c)
            total["tried"] += tried
            lines.append(f"| {cat} | {tried} | " + " | ".join(str(c[v]) for v in (*VERDICTS, "n/a")) + " |")
        lines.append(f"| **all** | {total['tried']} | " + " | ".join(str(total[v]) for v in (*VERDICTS, "n/a")) + " |")
        if total["error"]:
            lines.append(f"\n{total['error']} attack(s) failed to run (verdict `error`; see --verbose).")
        lines.append("")
    return "\n".join(lines)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")[:300]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="categories: " + ", ".join(CATEGORIES),
    )
    p.add_argument("revisions", nargs="*", default=list(DEFAULT_REVISIONS), help="git revisions (default: ed1c00d HEAD)")
    p.add_argument("--only", choices=CATEGORIES, action="append", help="only this category (repeatable)")
    p.add_argument("--verbose", action="store_true", help="one row per attack: expected, verdict, what happened")
    p.add_argument("-j", "--jobs", type=int, default=2, help="attacks run at once (default 2)")
    p.add_argument("--timeout", type=float, default=60, help="seconds before an attack's command counts as a hang (default 60)")
    p.add_argument("--python", default=str(ROOT / ".venv" / "bin" / "python"), help="the Python that runs `-m harness`")
    p.add_argument("--filter", metavar="SUBSTRING", help="only attacks whose name contains this")
    args = p.parse_args(argv)
    chosen = [i for i, a in enumerate(ATTACKS) if (not args.only or a.category in args.only)]
    if args.filter:
        chosen = [i for i in chosen if args.filter in ATTACKS[i].name]
    results: dict[str, dict[int, tuple[str, str, float]]] = {}
    with tempfile.TemporaryDirectory(prefix="attacks-") as tmp:
        for revision in args.revisions:
            began = time.monotonic()
            sha, root = export(revision, Path(tmp) / revision.replace("/", "_"))
            texts = helps(args.python, root)
            scratch = Path(tmp) / f"scratch-{sha}"
            scratch.mkdir()
            label = f"{revision} ({sha})" if sha != revision else revision
            out: dict[int, tuple[str, str, float]] = {}
            with ProcessPoolExecutor(max_workers=args.jobs) as pool:
                futures = [pool.submit(run_one, i, str(root), texts, args.python, args.timeout, str(scratch)) for i in chosen]
                for f in futures:
                    i, verdict, note, secs = f.result()
                    out[i] = (verdict, note, secs)
            results[label] = out
            print(f"# {label}: {len(chosen)} attacks in {time.monotonic() - began:.0f} s", file=sys.stderr)
    print(table(results, chosen))
    if args.verbose:
        for label, out in results.items():
            print(
                f"\n### {label}: per attack\n\n| category | attack | expected | verdict | what happened |\n|---|---|---|---|---|"
            )
            for i in chosen:
                a = ATTACKS[i]
                verdict, note, secs = out[i]
                name, expect, cell = (_cell(t) for t in (a.name, a.expect, note))
                print(f"| {a.category} | {name} | {expect} | {verdict} | {cell} ({secs:.1f} s) |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
