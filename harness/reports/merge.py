"""`harness report FILE.json...`: merge the --json outputs of sharded `harness run` and `harness
matrix` commands into one table, one document or one HTML page.

Inputs are refused (one line, exit status 2) when they are not such outputs (a verdict this
harness does not know included, and a run record whose expected verdict or judgment contradicts
its own class and verdict), mix the two kinds, come from different builds (LLVM version and bin
directory; for matrices the same columns), select different cases, give one shard twice, or share
a cell. The merged cells are in the canonical order (`report.cell_order`) and each file
known-bugs.yaml lists is judged whole again over them (`_judge_whole_files`), so merging every
shard gives what the unsharded command gives.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import cast

from harness.core import files
from harness.core.commands import Selector
from harness.core.errors import InputError
from harness.core.verdicts import Verdict, VerdictCode
from harness.reports import compare, expectations, html_report, report
from harness.reports.expectations import Judgment
from harness.specs import selection
from harness.specs.cases import Case, FileClass
from harness.specs.matrix import MAX_WIDTH
from harness.specs.spec import shorten

METRIC_LIMIT = 1e12  # no register count or instruction count comes near this
_SHARD = re.compile(r"([0-9]{1,9})/([0-9]{1,9})")

DESCRIPTION = """\
Merge the --json outputs of `harness run --shard K/N` (or of `harness matrix --shard K/N`) into
one table, one JSON document (--json, the format of the inputs) or, for matrix documents, one
HTML page (--html FILE). Inputs must come from the same builds and must not share a cell.

examples:
  for k in 1 2 3 4; do harness run --shard $k/4 --json > run$k.json; done; harness report run*.json
  harness report m1.json m2.json --html matrix.html
"""

_RUN_KEYS = (
    "function",
    "intrinsic",
    "cpu",
    "opt",
    "pipeline",
    "class",
    "fmt_a",
    "fmt_b",
    "width_a",
    "width_b",
    "selector",
    "verdict",
)


MAX_DOCUMENT_BYTES = 1 << 30  # the whole suite's --json is a few MB
_INTS = {"opt": (0, 3), "width_a": (1, MAX_WIDTH), "width_b": (1, MAX_WIDTH)}
_OPTIONAL_TEXT = ("detail", "narrowing", "elem_a", "elem_b", "file", "known_bug", "unexpected_pass", "listed")
_OPTIONAL_INTS = ("required_a", "required_b")
MAX_FILE_CELLS = 1 << 24  # (the largest lit file holds a few hundred cells)
_JUDGMENTS = tuple(str(j) for j in expectations.JUDGMENTS)


def load_document(path) -> tuple[str, dict]:
    """("run" | "matrix", the document) from a --json output; anything else is bad input: every
    field a report reads is of its type and range, or one located error says which is not."""
    doc = files.read_json(Path(path), MAX_DOCUMENT_BYTES, "--json document")  # (standard JSON: no NaN)
    field = _not_text(doc)
    if field:
        raise InputError(
            f"{shorten(field)}: a lone surrogate (\\ud800-\\udfff) is not text; no page or table can hold it", str(path)
        )
    kind, records, width = _kind(doc, path)
    _check_shard(doc.get("shard"), path)
    if not isinstance(doc.get("selection", {}), dict):
        raise InputError("selection: an object wanted", str(path))
    need = (*_RUN_KEYS[:-1], "verdicts") if width else _RUN_KEYS
    for i, r in enumerate(records):
        missing = [k for k in need if not isinstance(r, dict) or k not in r]
        if missing:
            raise InputError(f"record {i + 1} lacks {', '.join(missing)}", str(path))
        bad = _bad_fields(r, need, width)
        if bad:
            raise InputError(f"record {i + 1} ({str(r.get('function'))[:80]}): bad {', '.join(bad)}", str(path))
        if width is None:
            r["verdict"] = _verdict(r["verdict"], i, r, path)
            why = _judgment_problem(r)
            if why:
                raise InputError(f"record {i + 1} ({str(r.get('function'))[:80]}): {why}", str(path))
        else:
            r["verdicts"] = [_verdict(v, i, r, path) for v in r["verdicts"]]
    return kind, doc


def _not_text(doc) -> str:
    """Where the first string of `doc` (a key or a value) is not Unicode text, e.g.
    `cells[3].details[1]` ("" when every one is): JSON's \\udcff escapes decode to a lone
    surrogate, which no page, table or document can be written with."""
    todo: list[tuple[object, str]] = [(doc, "")]
    while todo:
        value, where = todo.pop()
        if isinstance(value, dict):
            for key, item in value.items():
                name = f"{where}.{key}" if where else str(key)
                if not _is_text(key):
                    return (where + "." if where else "") + "(a key)"
                todo.append((item, name))
        elif isinstance(value, list):
            todo.extend((item, f"{where}[{i}]") for i, item in enumerate(value))
        elif isinstance(value, str) and not _is_text(value):
            return where or "the document"
    return ""


def _is_text(text: str) -> bool:
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _kind(doc, path) -> tuple[str, list, int | None]:
    """(kind, its records, the number of builds of a matrix or None) of a document."""
    if isinstance(doc, dict) and doc.get("kind") == compare.KIND and isinstance(doc.get("cells"), list):
        if doc.get("format") != compare.FORMAT:
            raise InputError(
                f"a matrix document of format {str(doc.get('format'))[:40]!r}; this harness reads format {compare.FORMAT}",
                str(path),
            )
        builds, fields = doc.get("builds"), ("id", "version", "bin", "pipeline")
        if not isinstance(builds, list) or not builds or any(not _texts(b, fields) for b in builds):
            raise InputError(f"builds: each needs {', '.join(fields)} (text)", str(path))
        return "matrix", doc["cells"], len(builds)
    if isinstance(doc, dict) and isinstance(doc.get("cases"), list) and "llvm" in doc:
        if not isinstance(doc["llvm"], str):
            raise InputError(f"llvm: the build's version as text wanted, got {json.dumps(doc['llvm'])[:40]}", str(path))
        if doc.get("llvm_bin") is not None and not isinstance(doc["llvm_bin"], str):
            raise InputError(f"llvm_bin: a directory as text wanted, got {json.dumps(doc['llvm_bin'])[:40]}", str(path))
        return "run", doc["cases"], None
    raise InputError("not the --json output of `harness run` or `harness matrix`", str(path))


def _texts(value, fields) -> bool:
    return isinstance(value, dict) and all(isinstance(value.get(f), str) for f in fields)


def _bad_fields(r: dict, need, width: int | None) -> list[str]:
    """The fields of one record that are not of their type and range (see load_document)."""
    bad = [f"{k} ({json.dumps(r[k])[:20]})" for k, (lo, hi) in _INTS.items() if not _int_in(r[k], lo, hi)]
    bad += [k for k in need if k not in (*_INTS, "verdicts") and not isinstance(r[k], str)]
    bad += [k for k in _OPTIONAL_TEXT if k in r and not isinstance(r[k], str)]
    bad += [k for k in _OPTIONAL_INTS if k in r and not _int_in(r[k], 0, MAX_WIDTH)]
    if "args" in r and not _args_ok(r["args"]):
        bad.append("args (an object of operand -> integer or text wanted)")
    if "selector" not in bad and r["selector"] not in tuple(Selector):
        bad.append(f"selector {r['selector']!r} (known: {', '.join(Selector)})")
    if "judgment" in r and r["judgment"] not in _JUDGMENTS:
        bad.append(f"judgment {json.dumps(r['judgment'])[:20]} (known: {', '.join(_JUDGMENTS)})")
    if "expected" in r and r["expected"] not in tuple(VerdictCode):
        bad.append(f"expected {json.dumps(r['expected'])[:20]}")
    if width is None:
        if not _metrics_ok(r.get("metrics")):
            bad.append("metrics (finite numbers up to 1e12 wanted)")
        if "file_cells" in r and not _int_in(r["file_cells"], 1, MAX_FILE_CELLS):
            bad.append(f"file_cells ({json.dumps(r['file_cells'])[:20]}; a count of cells from 1 wanted)")
        return bad
    if not isinstance(r["verdicts"], list) or len(r["verdicts"]) != width or not all(isinstance(v, str) for v in r["verdicts"]):
        bad.append("verdicts")
    for key, ok in (
        ("details", lambda v: isinstance(v, str)),
        ("metrics", _metrics_ok),
        ("commands", lambda v: v is None or isinstance(v, str)),
    ):
        value = r.setdefault(key, [None if key != "details" else ""] * width)
        if not isinstance(value, list) or len(value) != width or not all(map(ok, value)):
            bad.append(key)
    judged = r.get("judgments")
    if judged is not None and (not isinstance(judged, list) or len(judged) != width or not all(j in _JUDGMENTS for j in judged)):
        bad.append(f"judgments (a list of {width} of {', '.join(_JUDGMENTS)} wanted)")
    cells = r.get("file_cells")
    if cells is not None and not (
        isinstance(cells, list) and len(cells) == width and all(_int_in(n, 0, MAX_FILE_CELLS) for n in cells)
    ):
        bad.append(f"file_cells (a list of {width} counts of cells wanted)")
    elif cells is not None and (judged is None or not isinstance(r.get("file"), str)):
        bad.append("file_cells (a listed file's cells, given with its file and judgments)")
    r["differs"] = len(set(r["verdicts"])) > 1 if "verdicts" not in bad else False
    return bad


def _int_in(value, lo: int, hi: int) -> bool:
    return type(value) is int and lo <= value <= hi


def _args_ok(args) -> bool:
    """A record's operand overrides, as `harness try --arg` takes them back."""
    return isinstance(args, dict) and all(
        isinstance(k, str) and (type(v) is int and abs(v) <= 1 << 64 or isinstance(v, str)) for k, v in args.items()
    )


def _check_shard(shard, path) -> None:
    """A document's shard: null, or "K/N" with 1 <= K <= N."""
    m = _SHARD.fullmatch(shard) if isinstance(shard, str) else None
    if shard is not None and not (m and 1 <= int(m[1]) <= int(m[2])):
        raise InputError(f"shard {json.dumps(shard)[:40]}: want null or K/N with 1 <= K <= N", str(path))


def _metrics_ok(metrics) -> bool:
    """None, or a dict of finite numbers (int, or float neither NaN nor infinite) within METRIC_LIMIT
    or null (a register class the target does not have: NVPTX has no VGPRs)."""
    if metrics is None:
        return True
    if not isinstance(metrics, dict):
        return False
    for v in metrics.values():
        if v is None:
            continue
        if type(v) is int:
            if abs(v) > METRIC_LIMIT:
                return False
        elif type(v) is not float or not math.isfinite(v) or abs(v) > METRIC_LIMIT:
            return False
    return True


def _verdict(text: str, i: int, record: dict, path) -> VerdictCode:
    """A record's verdict as the enum; a verdict this harness does not know is bad input."""
    try:
        return VerdictCode(text)
    except ValueError:
        known = ", ".join(VerdictCode)
        raise InputError(
            f"record {i + 1} ({record.get('function')}): unknown verdict {text!r} (known: {known})", str(path)
        ) from None


def _judgment_problem(r: dict) -> str:
    """Why a run record's `expected` and `judgment` contradict its own verdict and class ("" when
    they agree, or when it has neither: documents from before judgments). `expected` is its
    class's expected verdict; the judgment is not-judged exactly for a verdict no build is judged
    by (unsupported, timeout), expected only for a verdict that meets the expectation (as
    `expectations.meets` holds it), unexpected only for one that does not or for an unexpected
    pass (`unexpected_pass`: its listed file shows the bug nowhere), and known-bug exactly when the
    record carries the listing's reason (`known_bug`), for a verdict that meets the expectation
    only in a class whose lit file checks more than the verdict. Whether known-bugs.yaml lists
    the cell is not in the record: that much of a known-bug or unexpected-pass judgment is taken
    as given."""
    if "judgment" not in r and "expected" not in r:
        return next((f"{k} without a judgment (a judged record has one)" for k in _LISTING if k in r), "")
    for have, lack in (("judgment", "expected"), ("expected", "judgment")):
        if lack not in r:
            return f"{have} {r[have]} without {lack} (a judged record has both)"
    verdict, expected, judgment = VerdictCode(r["verdict"]), VerdictCode(r["expected"]), Judgment(r["judgment"])
    if r["class"] in tuple(FileClass):
        want = expectations.expected_verdict(_as_case(r))
        if expected != want:
            return f"expected {expected}, but a cell of class {r['class']} is expected to give {want}"
    if judgment == Judgment.NOT_JUDGED and verdict not in expectations.NOT_JUDGED_VERDICTS:
        return f"judgment not-judged, but verdict {verdict} is judged (only unsupported and timeout are not)"
    if judgment != Judgment.NOT_JUDGED and verdict in expectations.NOT_JUDGED_VERDICTS:
        return f"judgment {judgment}, but verdict {verdict} is not judged"
    meets = _meets(r, verdict, expected)
    if judgment == Judgment.EXPECTED and not meets:
        return f"judgment expected, but verdict {verdict} does not meet the expected {expected}"
    passed = "unexpected_pass" in r  # (a cell of a listed file that shows the bug in none: lit's XPASS)
    if judgment == Judgment.UNEXPECTED and meets and not passed:
        return f"judgment unexpected, but verdict {verdict} meets the expected {expected}"
    if passed and not (judgment == Judgment.UNEXPECTED and meets):
        return f"unexpected_pass given, but judgment {judgment} of verdict {verdict} (expected {expected})"
    if judgment == Judgment.KNOWN_BUG and meets and r["class"] not in expectations.BEYOND_THE_VERDICT:
        return f"judgment known-bug, but verdict {verdict} meets the expected {expected} (and class {r['class']} checks no more)"
    if judgment == Judgment.KNOWN_BUG and "known_bug" not in r:
        return "judgment known-bug without the bug's reason (known_bug)"
    if judgment != Judgment.KNOWN_BUG and "known_bug" in r:
        return f"judgment {judgment}, but the record names a known bug (known_bug)"
    return _listing_problem(r, judgment)


_LISTING = ("file_cells", "listed")


def _listing_problem(r: dict, judgment: Judgment) -> str:
    """Why a record of a cell of a listed file (`file_cells`: how many cells the file has)
    contradicts itself: it carries the listing's reason once, as `known_bug` (a known bug),
    `unexpected_pass` (lit's XPASS) or `listed` (another judgment: expected, not judged)."""
    reasons = [k for k in ("known_bug", "unexpected_pass", "listed") if k in r]
    if "file_cells" in r and len(reasons) != 1:
        return f"file_cells wants exactly one of known_bug, unexpected_pass, listed; the record has {len(reasons)}"
    if "listed" in r and "file_cells" not in r:
        return "listed without file_cells (a cell of a listed file carries both)"
    if "listed" in r and judgment not in (Judgment.EXPECTED, Judgment.NOT_JUDGED):
        return f"listed given, but judgment {judgment} (a known bug carries known_bug, an unexpected pass unexpected_pass)"
    return ""


def _as_case(r: dict) -> Case:
    """What `expectations` reads of a record's case, which is its file class alone."""
    return cast(Case, SimpleNamespace(file_class=FileClass(r["class"])))


def _meets(r: dict, verdict: VerdictCode, expected: VerdictCode) -> bool:
    """Whether a run record's verdict meets its cell's expectation, as `expectations.meets` holds
    it from the record's class, detail and verifier facts. A class this harness does not know (a
    hand-made record) is held to the rule of most classes: the expected verdict meets it."""
    if r["class"] not in tuple(FileClass):
        return verdict == expected
    verifier = r.get("verifier")
    facts = {"verifier": verifier} if isinstance(verifier, dict) else {}
    return expectations.meets(_as_case(r), Verdict(verdict, r.get("detail", ""), details=facts))


def merge(inputs: list[tuple[str, str, dict]]) -> tuple[str, dict]:
    """Merge (path, kind, document) inputs into one document of their kind.

    Refused (InputError): mixed kinds, different builds (LLVM version, bin directory, matrix
    columns), different selections, a cell in two inputs. Shards that are missing from a
    complete K/N set are named on stderr (the merged result covers part of the selection).
    """
    (path0, kind, doc0), rest = inputs[0], inputs[1:]
    for path, k, _doc in rest:
        if k != kind:
            raise InputError(f"{path} is a `harness {k}` output and {path0} a `harness {kind}` output; merge one kind")
    build = (lambda d: d["builds"]) if kind == "matrix" else (lambda d: {"llvm": d["llvm"], "llvm_bin": d.get("llvm_bin")})
    describe = (
        (lambda d: ", ".join(f"{b.get('id')} ({b.get('bin')})" for b in d["builds"]))
        if kind == "matrix"
        else (lambda d: f"LLVM {d['llvm']} ({d.get('llvm_bin')})")
    )
    for path, _, doc in rest:
        if build(doc) != build(doc0):
            raise InputError(f"{path} comes from other builds than {path0}: {describe(doc)} vs {describe(doc0)}")
        if doc.get("selection") != doc0.get("selection"):
            raise InputError(f"{path} selects other cases than {path0}: {doc.get('selection')} vs {doc0.get('selection')}")
    _each_shard_once(inputs)
    owner: dict[tuple, str] = {}
    records = []
    for path, _, doc in inputs:
        for r in doc["cells" if kind == "matrix" else "cases"]:
            key = report.cell_key(r)
            if key in owner:
                where = "twice in " + path if owner[key] == path else f"in both {owner[key]} and {path}"
                raise InputError(f"cell {r['function']} [{r['selector']}] is {where}: overlapping inputs")
            owner[key] = path
            records.append(r)
    records.sort(key=report.cell_order)
    _judge_whole_files(kind, records)
    _note_missing_shards(inputs)
    if kind == "matrix":
        return kind, compare.document(doc0["builds"], records, doc0.get("selection", {}), None)
    merged = {**{k: v for k, v in doc0.items() if k != "cases"}, "cases": records}
    if "shard" in merged:
        merged["shard"] = None
    if "judgments" in merged:  # the merged cells' own counts, not the first input's
        merged["judgments"] = expectations.count_record(_judged(records))
    return kind, merged


def _judge_whole_files(kind: str, records: list[dict]) -> None:
    """Judge each listed file whole over the merged records (per build of a matrix), by the rule
    of the run that judges all of them at once (`expectations.unexpected_pass`): every cell of
    the file judged (its shards' records together) and none a known bug, each is an unexpected
    pass (lit's XPASS); otherwise none is. One unsharded run's records come out as they went in.
    Records of one file that disagree on its cells or reason, or outnumber its cells, come from
    runs of other specs or known bugs: bad input."""
    files: dict[tuple[str, int], list[tuple[dict, int]]] = {}  # (listed file, build) -> (record, its cells)
    for r in records:
        if "file_cells" not in r:
            continue
        for build, size in enumerate([r["file_cells"]] if kind == "run" else r["file_cells"]):
            if size:
                files.setdefault((str(r.get("file")), build), []).append((r, size))
    for (name, build), listed in files.items():
        sizes = {size for _, size in listed}
        reasons = {next((r[k] for k in _REASONS if k in r), "") for r, _ in listed}
        if len(sizes) > 1 or len(reasons) > 1 or len(listed) > min(sizes):
            what = f"{len(listed)} records, file_cells {sorted(sizes)}, {len(reasons)} reasons"
            raise InputError(f"the records of {shorten(name)} disagree on the file ({what}): runs of other specs or known bugs")
        judged = [(r, j) for r, _ in listed if (j := _judgment_of(kind, r, build)) != Judgment.NOT_JUDGED]
        shown = [_shows(kind, r, build, j) for r, j in judged]
        gone = expectations.unexpected_pass(sizes.pop(), len(judged), any(shown))
        now = str(Judgment.UNEXPECTED if gone else Judgment.EXPECTED)
        for (r, _), shows in zip(judged, shown):
            if shows:
                continue
            if kind == "matrix":
                r["judgments"][build] = now
                continue
            reason = next(r.pop(k) for k in _REASONS if k in r)
            r["judgment"], r["unexpected_pass" if gone else "listed"] = now, reason


_REASONS = ("known_bug", "unexpected_pass", "listed")


def _judgment_of(kind: str, r: dict, build: int) -> str:
    return r["judgments"][build] if kind == "matrix" else r["judgment"]


def _shows(kind: str, r: dict, build: int, judgment: str) -> bool:
    """Whether a judged record (a matrix cell on one build) of a listed file shows the bug: it is
    a known bug, or its verdict does not meet its expectation (`expectations.shows`); a class
    this harness does not know is taken to (its cells are never turned into passes)."""
    if judgment == Judgment.KNOWN_BUG or r["class"] not in tuple(FileClass):
        return True
    if kind == "run":
        fine = _meets(r, VerdictCode(r["verdict"]), VerdictCode(r["expected"]))
    else:
        fine = expectations.meets(_as_case(r), Verdict(VerdictCode(r["verdicts"][build]), r["details"][build]))
    return expectations.shows(_as_case(r), fine)


def _shard_of(doc: dict) -> tuple[int, int] | None:
    """A document's shard as (K, N) (None: not a shard); `load_document` checked its form."""
    shard = doc.get("shard")
    return (int(shard.split("/")[0]), int(shard.split("/")[1])) if isinstance(shard, str) else None


def _each_shard_once(inputs: list[tuple[str, str, dict]]) -> None:
    """Refuse two inputs that are the same shard K/N: one of them is not the shard it says (or
    one file is named twice), and the shard it stands in for may be missing."""
    seen: dict[tuple[int, int], str] = {}
    for path, _, doc in inputs:
        shard = _shard_of(doc)
        if shard is None:
            continue
        if shard in seen:
            label = f"{shard[0]}/{shard[1]}"
            twice = f"{path} is named twice" if seen[shard] == path else f"both {seen[shard]} and {path} say so"
            raise InputError(f"shard {label} is given twice ({twice}); each shard of a run goes in once")
        seen[shard] = path


def _note_missing_shards(inputs: list[tuple[str, str, dict]]) -> None:
    """When every input is a shard of one count N, name on stderr the shards of 1..N none is."""
    shards = [_shard_of(d) for _, _, d in inputs]
    if any(s is None for s in shards):
        return
    named = {s for s in shards if s is not None}
    totals = {n for _, n in named}
    if len(totals) != 1 or next(iter(totals)) > 100_000:  # (a shard count nobody runs: no listing)
        return
    n = next(iter(totals))
    missing = [f"{k}/{n}" for k in range(1, n + 1) if (k, n) not in named]
    if missing:
        print(f"harness: note: shard(s) {', '.join(missing)} not among the inputs", file=sys.stderr)


def _judged(records: list[dict]):
    """Judgment counts of run records; a record from before judgments counts as not judged."""
    return expectations.counts([r if "judgment" in r else {"judgment": "not-judged"} for r in records])


def run_as_matrix(doc: dict) -> dict:
    """A `harness run --json` document as a one-build matrix document (for --markdown, --html)."""
    build = {"id": doc["llvm"], "version": doc["llvm"], "bin": doc.get("llvm_bin") or "PATH", "pipeline": "none"}
    cells = []
    for r in doc["cases"]:
        c = {k: v for k, v in r.items() if k not in ("verdict", "detail", "metrics")}
        c.update(verdicts=[r["verdict"]], details=[r.get("detail", "")], metrics=[r.get("metrics")], differs=False)
        if "file_cells" in r:  # (a matrix cell's are per build)
            c["file_cells"] = [r["file_cells"]]
        if "judgment" in r:  # (likewise)
            c["judgments"] = [r["judgment"]]
        c["commands"] = [compare.try_command(c, build)]
        cells.append(c)
    return compare.document([build], cells, doc.get("selection", {}), None)


def add_parser(sub, formatter_class=None):
    """`harness report FILE.json...` (register with the other commands; `main` runs it)."""
    p = selection.command(
        sub,
        "report",
        "merge --json outputs of sharded run/matrix commands into one report",
        DESCRIPTION,
        "exit status: 0 merged, 2 bad input (unreadable, other builds, overlapping cells).",
        formatter_class or argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("files", nargs="+", type=Path, metavar="FILE.json", help="--json outputs of one kind (run or matrix)")
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="print the merged document (the inputs' format)")
    fmt.add_argument("--markdown", action="store_true", help="print a markdown summary")
    p.add_argument("--html", type=Path, metavar="FILE", help="also write the HTML page of the merged cells")
    p.add_argument("--all", action="store_true", help="matrix text: list every case, not only those that differ")
    p.add_argument("--cost", action="store_true", help="matrix text: also list the cases whose register cost alone differs")
    p.add_argument(
        "--by",
        choices=("intrinsic", "class"),
        default="intrinsic",
        help="run text: rows of intrinsic x selector (default) or file class x selector",
    )
    return p


def main(args) -> int:
    compare.check_output_path(args.html)
    kind, doc = merge([(str(path), *load_document(path)) for path in args.files])
    # Everything is computed before anything is written: a failure leaves no page behind.
    as_matrix = doc if kind == "matrix" else run_as_matrix(doc)
    page = html_report.render(as_matrix) if args.html else None
    if args.json:
        text = files.json_text(doc) + "\n"
    elif args.markdown:
        text = report.matrix_markdown(as_matrix, kind)
    elif kind == "matrix":
        text = report.matrix_text(doc, args.all, args.cost) + "\n"
    else:
        lines = [*expectations.unexpected_lines(doc["cases"]), report.records_table(doc["cases"], args.by)]
        if any("judgment" in r for r in doc["cases"]):  # (documents from before judgments have none)
            lines.append(expectations.summary(_judged(doc["cases"])))
        text = "\n".join(lines) + "\n"
    if page is not None:
        files.write_output(Path(args.html), page, "--html")
        print(f"# wrote {args.html}", file=sys.stderr)
    print(text, end="")
    if kind == "matrix":
        return 1 if any("unexpected" in (c.get("judgments") or []) for c in doc["cells"]) else 0
    return expectations.exit_status(_judged(doc["cases"]))


COMMANDS = {"report": main}
