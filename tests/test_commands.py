"""harness.core.commands: RUN-line text <-> argument lists, checked against lit's own parser and lit itself.

The round trip is a property over hostile words (seeded random: hypothesis is not a dependency);
the real-lit test runs a generated RUN line and compares the argv the tool received.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from harness.core import commands as C
from harness.core.errors import InputError

HOSTILE = [
    "a b",
    " ",
    "",
    ">",
    ">>",
    "<",
    ";",
    "|",
    "||",
    "&",
    "&&",
    "2>&1",
    "'",
    '"',
    "\\",
    "a\\",
    "\\\\",
    "$HOME",
    "$(id)",
    "`id`",
    "\\$x",
    "\\$x'",
    "*",
    "?",
    "[",
    "[a]",
    "*.ll",
    "~",
    "#c",
    "!",
    "instcombine<max-iterations=1>",
    "function(instcombine),dce",
    "'\"'",
    '"\'"',
    "it's",
    'say "hi"',
    "a\tb",
    "-o=-",
    "é—ü",
    "'a b'",
    '"a b"',
    "a'b\"c\\d$e",
]
# Lowercase only: lit scans RUN-line files for its (uppercase) keywords anywhere. No `%` here: lit
# substitutes it before its shell reads the line; that is tested with substitute().
LINE_ALPHABET = "ab01-_=,.:/@+ \t><;|&'\"\\$*?[](){}#!~`^é"
ALPHABET = LINE_ALPHABET + "%\n"


def word(rng: random.Random, alphabet: str = ALPHABET) -> str:
    return "".join(rng.choice(alphabet) for _ in range(rng.choice((0, 1, 1, 2, 3, 5, 8, 13))))


def pipeline(rng: random.Random, alphabet: str = ALPHABET) -> C.Pipeline:
    def command():
        first = word(rng, alphabet)
        argv = (
            first if first not in ("", "!") else "t",
            *(rng.choice((word(rng, alphabet), rng.choice(HOSTILE))) for _ in range(rng.randrange(6))),
        )
        target = lambda: (word(rng, alphabet) or "f") if rng.random() < 0.3 else None
        return C.Command(argv, target(), target(), rng.random() < 0.3)

    return C.Pipeline(tuple(command() for _ in range(rng.randint(1, 3))))


@pytest.mark.parametrize("w", HOSTILE)
def test_quote_reads_back_as_one_word(w):
    assert C.parse(f"tool {C.quote(w)} end").commands[0].argv == ("tool", w, "end")


def test_round_trip_property_random_pipelines():
    rng = random.Random(20250101)
    for _ in range(4000):
        p = pipeline(rng)
        assert C.parse(p.text()) == p, p.text()


def test_round_trip_through_run_lines_property():
    rng = random.Random(7)
    for _ in range(1500):
        p = pipeline(rng, LINE_ALPHABET)
        [run] = C.run_lines(f"; RUN: {p.text()}\n")
        assert run.line == 1 and C.parse(run.text) == p, p.text()


def test_builders_round_trip_and_say_what_they_run():
    llc = C.llc("amdgcn", "gfx950", 0, "gisel", obj=True)
    assert llc.argv == (
        "llc",
        "-O0",
        "-mtriple=amdgcn",
        "-mcpu=gfx950",
        "-global-isel=1",
        "-global-isel-abort=1",
        "-filetype=obj",
    )
    assert C.llc("amdgcn", "gfx1250", 2, "sdag").argv[-1] == "-global-isel=0"
    assert C.llvm_mc("amdgcn", "gfx950").argv == ("llvm-mc", "-triple=amdgcn", "-mcpu=gfx950", "-filetype=obj", "-o", "/dev/null")
    o = C.opt("amdgcn", "gfx950", "function(instcombine<max-iterations=1>),dce", disable_verify=True)
    assert o.args == ("-mtriple=amdgcn", "-mcpu=gfx950", "-disable-verify", "-passes=function(instcombine<max-iterations=1>),dce")
    p = C.Pipeline((C.with_args(o, "-S", stdin="%s"), C.with_args(llc, "-o", "-"), C.Command(("FileCheck", "%s"))))
    assert "'-passes=function(instcombine<max-iterations=1>),dce'" in p.text()
    assert C.parse(p.text()) == p and [c.tool for c in p.commands] == ["opt", "llc", "FileCheck"]
    w = C.with_args(C.with_args(llc, stdout="%t"), "-x")
    assert w.argv[-1] == "-x" and w.stdout == "%t" and w.stdin is None


def test_redirections_parse_and_print():
    p = C.parse("llc -O0 < %s > %t 2>&1 | FileCheck %s --check-prefix=A")
    first, second = p.commands
    assert (first.argv, first.stdin, first.stdout, first.stderr_to_stdout) == (("llc", "-O0"), "%s", "%t", True)
    assert (second.argv, second.stdin, second.stdout, second.stderr_to_stdout) == (
        ("FileCheck", "%s", "--check-prefix=A"),
        None,
        None,
        False,
    )
    assert p.text() == "llc -O0 < %s > %t 2>&1 | FileCheck %s --check-prefix=A"
    sub = p.substitute({"%s": "/x/in put.ll", "%t": "/o/t", "%t.s": "/o/t.s"})
    assert sub.commands[0].stdin == "/x/in put.ll" and sub.commands[0].stdout == "/o/t"
    assert sub.commands[1].argv[1] == "/x/in put.ll"
    assert C.Command(("a", "%t.s", "--input-file=%s")).substitute({"%t": "T", "%t.s": "TS", "%s": "S"}).argv == (
        "a",
        "TS",
        "--input-file=S",
    )


@pytest.mark.parametrize(
    "text",
    [
        "llc a; FileCheck b",
        "llc a && FileCheck b",
        "llc a || true",
        "llc a & b",
        "llc a 2>> err",
        "llc a >> out",
        "llc a &> out",
        "llc a 1>&2",
        "llc a <& 0",
        "llc a |",
        "| llc a",
        "llc a >",
        "",
    ],
)
def test_refused_syntax_is_a_command_syntax_error_naming_the_text(text):
    with pytest.raises(C.CommandSyntaxError) as exc:
        C.parse(text)
    assert isinstance(exc.value, InputError) and repr(text) in str(exc.value)


@pytest.mark.parametrize(
    "text",
    [
        "! llc a",
        "llc 'unterminated",
        'llc "unterminated',
        "llc a\\",
        "echo a'*'*",
    ],
)
def test_more_refused_syntax(text):
    with pytest.raises(C.CommandSyntaxError):
        C.parse(text)


def test_stderr_to_a_file_is_read_and_written_back():
    p = C.parse("llc a 2>/dev/null < %s | FileCheck %s")
    assert p.commands[0].stderr == "/dev/null" and C.parse(p.text()) == p


def test_unquoted_glob_words_are_refused_not_passed_on_as_lit_objects():
    # lit would expand the glob at run time; the harness neither guesses nor crashes.
    with pytest.raises(C.CommandSyntaxError, match="glob"):
        C.parse("FileCheck *.ll")
    assert C.parse("FileCheck '*.ll'").commands[0].argv == ("FileCheck", "*.ll")


@pytest.mark.parametrize(
    "argv, tool, args, negated",
    [
        (("llc", "-O0"), "llc", ("-O0",), False),
        (("not", "llc", "-O0"), "llc", ("-O0",), True),
        (("not", "--crash", "llc", "-O0"), "llc", ("-O0",), True),
        (("env", "A=B", "C=D", "llc", "-O0"), "llc", ("-O0",), False),
        (("env", "A=B", "not", "--crash", "llc"), "llc", (), True),
        (("/usr/lib/llvm-22/bin/llc", "x"), "llc", ("x",), False),
        (("not", "FileCheck", "--crash"), "FileCheck", ("--crash",), True),
        (("not", "env", "A=B", "llc", "-O0"), "llc", ("-O0",), True),
    ],
)
def test_tool_and_args_past_wrappers(argv, tool, args, negated):
    c = C.Command(argv)
    assert (c.tool, c.args, c.negated) == (tool, args, negated)


@pytest.mark.parametrize(
    "text, prefixes",
    [
        ("FileCheck %s", ["CHECK"]),
        ("FileCheck %s --check-prefix=A", ["A"]),
        ("FileCheck --check-prefixes=A,B %s", ["A", "B"]),
        ("FileCheck -check-prefix A %s", ["A"]),
        ("FileCheck --check-prefixes A,B %s", ["A", "B"]),
        ("FileCheck -check-prefixes=GFX9,GFX950 --check-prefix=X %s", ["GFX9", "GFX950", "X"]),
        ("not FileCheck --check-prefix=ERR %s", ["ERR"]),
        ("FileCheck --implicit-check-not=A --input-file=%t %s", ["CHECK"]),
    ],
)
def test_check_prefixes(text, prefixes):
    assert C.check_prefixes(C.parse(text).commands[-1]) == prefixes


def test_run_lines_join_continuations_and_keep_the_first_line_number():
    text = (
        "; comment\n"
        "; RUN: llc -O0 \\\n"
        ";   RUN:   -mtriple=amdgcn < %s \\\n"
        "; CHECK: not a run line\n"
        "; RUN: | FileCheck %s\n"
        "define void @f() { ret void }\n"
        "// RUN: second\n"
        "# RUN: third\r\n"
    )
    runs = C.run_lines(text)
    assert [r.line for r in runs] == [2, 7, 8] and [r.text for r in runs[1:]] == ["second", "third"]
    joined = C.parse(runs[0].text)
    assert [c.tool for c in joined.commands] == ["llc", "FileCheck"] and joined.commands[0].argv == (
        "llc",
        "-O0",
        "-mtriple=amdgcn",
    )


def test_run_lines_continuation_with_trailing_whitespace():
    assert [r.text for r in C.run_lines("; RUN: llc \\  \n; RUN: -O0\n")] == ["llc -O0"]


def test_run_lines_split_on_newline_only():
    assert [r.text for r in C.run_lines("; RUN: echo 'a\x0cb'\n")] == ["echo 'a\x0cb'"]


# ---- real lit: the exact argv reaches the tool, and nothing runs or is written elsewhere ---------

ARGV_SCRIPT = """import json, sys
data = sys.stdin.read()
sys.stdout.write(data)
with open(sys.argv[1], "w", encoding="utf-8") as f:
    json.dump(sys.argv[2:], f)
"""


def test_real_lit_passes_the_exact_argv(tmp_path, lit_exe):
    suite, out = tmp_path / "suite", tmp_path / "out"
    suite.mkdir(), out.mkdir()
    (suite / "lit.cfg.py").write_text(
        "import lit.formats\nconfig.name = 'argv'\nconfig.suffixes = ['.test']\n"
        "config.test_format = lit.formats.ShTest(execute_external=False)\n"
    )
    script = tmp_path / "argv.py"
    script.write_text(ARGV_SCRIPT)
    tag = uuid.uuid4().hex
    canaries = [Path(f"/tmp/harness-canary-{tag}-{i}") for i in range(8)]
    traps = [
        f"x>{canaries[0]}",
        f";touch {canaries[1]}",
        f"$(touch {canaries[2]})",
        f"`touch {canaries[3]}`",
        f"a|tee {canaries[4]}",
        f"&& touch {canaries[5]}",
        f"2>{canaries[6]}",
        f"'>{canaries[7]}'",
        "y>local-file",
        "<&0",
        "&>local2",
    ]
    rng = random.Random(99)
    words = HOSTILE + traps + [word(rng, LINE_ALPHABET) for _ in range(600)]
    chunks = [words[i : i + 40] for i in range(0, len(words), 40)]
    lines = []
    for i, chunk in enumerate(chunks):
        cmd = C.Command((sys.executable, str(script), str(out / f"{i}.json"), *chunk))
        lines.append(f"# RUN: {C.Pipeline((cmd,)).text()}")
    # Redirections to and from names with shell syntax in them, and a pipe between two commands.
    odd_in, odd_out = tmp_path / "in put;'$x>.txt", tmp_path / 'o u"t|&.txt'
    odd_in.write_text("payload 'x' \"y\"\n")
    first = C.Command((sys.executable, str(script), str(out / "p1.json"), "|"), stdin=str(odd_in))
    second = C.Command((sys.executable, str(script), str(out / "p2.json"), ">"), stdout=str(odd_out), stderr_to_stdout=True)
    lines.append(f"# RUN: {C.Pipeline((first, second)).text()}")
    (suite / "argv.test").write_text("\n".join(lines) + "\n", encoding="utf-8")
    try:
        proc = subprocess.run([lit_exe, "-a", str(suite)], cwd=tmp_path, capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, (proc.stdout + proc.stderr)[-4000:]
        for i, chunk in enumerate(chunks):
            assert json.loads((out / f"{i}.json").read_text(encoding="utf-8")) == chunk
        assert json.loads((out / "p1.json").read_text()) == ["|"] and json.loads((out / "p2.json").read_text()) == [">"]
        assert odd_out.read_text() == odd_in.read_text()
        assert [c for c in canaries if c.exists()] == []
        made = {p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file()}
        expected = {
            "argv.py",
            "suite/lit.cfg.py",
            "suite/argv.test",
            odd_in.name,
            odd_out.name,
            *(f"out/{i}.json" for i in range(len(chunks))),
            "out/p1.json",
            "out/p2.json",
        }
        assert {
            m for m in made - expected if not m.startswith("suite/Output/") and not m.endswith(".lit_test_times.txt")
        } == set()
    finally:
        for c in canaries:
            c.unlink(missing_ok=True)


RUN_TEXT = (
    "; RUN: llc -O0 < %s | FileCheck %s\n"
    "; no RUN here\n"
    "; RUN: llc -O1 \\\n"
    ";   RUN:   -mcpu=gfx950 \\\n"
    "; RUN: < %s | FileCheck %s --check-prefix=B\n"
    "; RUN: llc -O2 < %s\n"
)


def test_continued_run_lines_join_onto_their_own_first_line():
    # Three RUN lines, the second continued over three physical lines (lit's joining: the
    # backslash and the whitespace around it become one space).
    assert [(r.line, r.text) for r in C.run_lines(RUN_TEXT)] == [
        (1, "llc -O0 < %s | FileCheck %s"),
        (3, "llc -O1 -mcpu=gfx950 < %s | FileCheck %s --check-prefix=B"),
        (6, "llc -O2 < %s"),
    ]


def test_continued_run_lines_join_as_the_update_scripts_join_them():
    # LLVM's update_*_test_checks.py keep the whitespace before each backslash and add a space
    # (the whitespace after `RUN:` goes, as their RUN_LINE_RE reads it).
    assert [(r.line, r.text) for r in C.updater_run_lines(RUN_TEXT.splitlines())] == [
        (1, "llc -O0 < %s | FileCheck %s"),
        (3, "llc -O1  -mcpu=gfx950  < %s | FileCheck %s --check-prefix=B"),
        (6, "llc -O2 < %s"),
    ]
