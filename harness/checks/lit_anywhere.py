"""`harness lit FILE...`: lit on test files anywhere, with this project's configuration.

lit finds a file's configuration by walking up from it to a `lit.cfg.py`; a test written
outside `cases/` has none ("unable to find test suite"). This command gives the files one: a
temporary suite under `build/lit-anywhere/` whose configuration is this project's `lit.cfg.py`
(the same build discovery, tools, features, ptxas and known bugs), each file linked into it,
and lit run on them. lit's output names each file as the user gave it; its exit status is
lit's (0 passed, 1 a test failed, 2 a configuration error).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from harness.core.errors import InputError
from harness.specs import selection

ROOT = Path(__file__).resolve().parents[2]
SUITE = "matrix-lowering-anywhere"

DESCRIPTION = """\
Run lit on test files that live anywhere (your own .ll files, a copy of LLVM's tests), with
this project's lit configuration: the LLVM build (--llvm-bin, else $LLVM_BIN, else the newest
/usr/lib/llvm-N), FileCheck, ptxas and lit features exactly as `lit cases/` has them.

examples:
  harness lit /tmp/mine.ll
  harness lit --llvm-bin /usr/lib/llvm-19/bin -v ~/tests/*.ll
"""
EPILOG = "exit status: lit's (0 every test passed or is XFAIL/UNSUPPORTED, 1 a test failed, 2 bad input)"

_CONFIG = """\
# A suite for test files outside cases/ (harness lit): this project's configuration.
import os

config.test_source_root = os.path.dirname(os.path.abspath(__file__))
config.test_exec_root = os.path.join(config.test_source_root, "out")
lit_config.load_config(config, {project!r})
config.name = {name!r}
"""


def add_parser(sub, formatter_class):
    p = selection.command(
        sub, "lit", "lit on test files anywhere, with this project's configuration", DESCRIPTION, EPILOG, formatter_class
    )
    p.add_argument("files", nargs="+", type=Path, metavar="FILE", help="lit test files (.ll), anywhere")
    p.add_argument("--llvm-bin", metavar="DIR", help="the LLVM build's bin directory (lit's --param llvm_bin)")
    p.add_argument("--param", action="append", default=[], metavar="K=V", help="a lit --param (repeatable)")
    p.add_argument("-v", "--verbose", action="store_true", help="lit -v: the output of failing tests")
    p.add_argument("-a", "--show-all", action="store_true", help="lit -a: the output of every test")
    return p


def cmd_lit(args) -> int:
    for path in args.files:
        if path.is_dir():
            raise InputError("a directory, not a test file (name the .ll files in it)", str(path))
        if not path.is_file():
            raise InputError("no such test file", str(path))
        if path.suffix != ".ll":
            raise InputError("not a lit test file of this suite (a .ll file)", str(path))
    work = ROOT / "build" / "lit-anywhere"
    try:
        work.mkdir(parents=True, exist_ok=True)
        _sweep(work)
        suite = Path(tempfile.mkdtemp(prefix=f"suite.{os.getpid()}.", dir=work))
    except OSError as exc:
        raise InputError(f"cannot make a lit suite under {work}: {exc.strerror}") from None
    try:
        (suite / "lit.cfg.py").write_text(_CONFIG.format(project=str(ROOT / "lit.cfg.py"), name=SUITE))
        (suite / "out").mkdir()
        linked = {}  # the file's path in the suite -> as the user gave it
        for i, path in enumerate(args.files):
            # (a name lit's shell would split or misread is linked under a plain one)
            plain = f"{i}/{re.sub(r'[^A-Za-z0-9_.+-]', '_', path.name)}"
            (suite / str(i)).mkdir()
            (suite / plain).symlink_to(path.resolve())
            linked[plain] = str(path)
        return _run_lit(args, suite, linked)
    finally:
        shutil.rmtree(suite, ignore_errors=True)


def _sweep(work: Path) -> None:
    """Remove the suites of `harness lit` runs that are gone (killed before they could)."""
    for old in work.glob("suite.*"):
        pid = old.name.split(".")[1]
        if pid.isdigit() and not Path(f"/proc/{pid}").exists():
            shutil.rmtree(old, ignore_errors=True)


def _run_lit(args, suite: Path, linked: dict[str, str]) -> int:
    argv = [sys.executable, "-c", "import sys, lit.main; sys.argv[0] = 'lit'; lit.main.main()"]
    argv += [f"--param={p}" for p in args.param] + ([f"--param=llvm_bin={args.llvm_bin}"] if args.llvm_bin else [])
    argv += ["-v"] * args.verbose + ["-a"] * args.show_all
    argv += [str(suite / plain) for plain in linked]
    proc = subprocess.run(argv, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    # Each file as the user gave it wherever lit names it (its test name, its path in the suite,
    # the suite-relative path RUN lines show), in one pass: a given path may hold a linked name.
    given = {}
    for plain, path in linked.items():
        given.update({f"{SUITE} :: {plain}": path, str(suite / plain): path, plain: path})
    names = sorted(given, key=len, reverse=True)
    pattern = re.compile(r"(?<![\w/.-])(?:" + "|".join(map(re.escape, names)) + ")")
    for text, stream in ((proc.stdout, sys.stdout), (proc.stderr, sys.stderr)):
        stream.write(pattern.sub(lambda m: given[m.group(0)], text).replace(str(suite) + os.sep, ""))
    return proc.returncode


COMMANDS = {"lit": cmd_lit}
