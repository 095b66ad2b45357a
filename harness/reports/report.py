"""Summaries of outcomes: the verdict table and the JSON records."""

from __future__ import annotations

from harness.core.verdicts import ALL, VerdictCode
from harness.specs.cases import CLASSES, SELECTORS, Case, FileClass
from harness.targets import catalog, formats
from harness.targets.catalog import Side
from harness.tools.runner import Outcome


def case_fields(c: Case) -> dict:
    """What every record of a case says of it: names, CPU, formats and widths, -O and pipeline,
    file class, and the immarg values and narrowing where it has them."""
    fields: dict = {
        "function": c.function,
        "intrinsic": c.intrinsic.name,
        "cpu": c.cpu,
        "fmt_a": c.intrinsic.a.name(c.fmt_a),
        "fmt_b": c.intrinsic.b.name(c.fmt_b),
        "width_a": c.width_a,
        "width_b": c.width_b,
        "required_a": c.required(Side.A),
        "required_b": c.required(Side.B),
        "opt": c.opt,
        "pipeline": c.pipeline,
        "class": c.file_class,
    }
    if c.args:
        fields["args"] = {str(i): v for i, v in c.args}
    if c.narrowing:
        fields["narrowing"] = c.narrowing
    return fields


def case_record(outcome: Outcome, with_tools: bool = False) -> dict:
    record = case_fields(outcome.case)
    record |= {"selector": outcome.selector, "verdict": outcome.verdict.verdict, "detail": outcome.verdict.detail}
    record.update(outcome.verdict.details)  # metrics, tuples, rewrite, ir, verifier
    if with_tools:
        record["tools"] = [t.summary() for t in outcome.verdict.tools]
    return record


def _row_key(o: Outcome, by: str) -> str:
    if by == "class":
        pipeline = "" if o.case.pipeline == "none" else f" ({o.case.pipeline})"
        return f"{o.case.file_class}{pipeline} -O{o.case.opt}"
    return o.case.intrinsic.name


def counts(outcomes: list[Outcome], by: str = "intrinsic") -> dict[tuple[str, str], dict[VerdictCode, int]]:
    table: dict[tuple[str, str], dict[VerdictCode, int]] = {}
    for o in outcomes:
        row = table.setdefault((_row_key(o, by), o.selector), dict.fromkeys(ALL, 0))
        row[o.verdict.verdict] += 1
    return table


def table(outcomes: list[Outcome], by: str = "intrinsic") -> str:
    """Rows of intrinsic (or file class) x selector, one column per verdict that occurred."""
    rows = counts(outcomes, by)
    used = [v for v in ALL if any(r[v] for r in rows.values())]
    totals = {v: sum(r[v] for r in rows.values()) for v in used}
    header = [by, "selector", *used, "total"]
    body = [[name, sel, *(str(r[v]) for v in used), str(sum(r.values()))] for (name, sel), r in sorted(rows.items())]
    body.append(["all", "", *(str(totals[v]) for v in used), str(sum(totals.values()))])
    widths = [max(len(row[i]) for row in [header, *body]) for i in range(len(header))]
    fmt = lambda row: "  ".join(cell.ljust(w) if i < 2 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths)))
    rule = "  ".join("-" * w for w in widths)
    return "\n".join([fmt(header), rule, *map(fmt, body[:-1]), rule, fmt(body[-1])])


METRICS = ("vgpr", "agpr", "sgpr", "scratch_loads", "scratch_stores", "instructions")


def metrics_table(pairs: list[tuple[Outcome, Outcome]], names: list[str]) -> str:
    """Per case and selector: verdict and register cost under two pipelines, side by side,
    then per intrinsic how many cases each pipeline passes and their mean VGPR count."""
    rows = [["function", "sel", f"verdict {names[0]}", f"verdict {names[1]}", *METRICS]]
    summary: dict[str, list] = {}
    for a, b in pairs:
        ma, mb = a.verdict.details.get("metrics") or {}, b.verdict.details.get("metrics") or {}
        cell = lambda m, ma=ma, mb=mb: (
            f"{ma.get(m, 'n/a')}>{mb.get(m, 'n/a')}" if ma.get(m) != mb.get(m) else str(ma.get(m, "n/a"))
        )
        rows.append([a.case.function, a.selector, a.verdict.verdict, b.verdict.verdict, *map(cell, METRICS)])
        s = summary.setdefault(a.case.intrinsic.name, [0, 0, 0, [], []])
        s[0] += 1
        s[1] += a.verdict.verdict == VerdictCode.PASS
        s[2] += b.verdict.verdict == VerdictCode.PASS
        if ma.get("vgpr") is not None and mb.get("vgpr") is not None:
            s[3].append(ma["vgpr"])
            s[4].append(mb["vgpr"])
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    lines += ["", f"register cost: one number where {names[0]} and {names[1]} agree, else {names[0]}'s>{names[1]}'s; "
              "n/a where that pipeline's code has none (llc failed)"]  # fmt: skip
    for name, (n, pa, pb, va, vb) in sorted(summary.items()):
        mean = lambda v: f"{sum(v) / len(v):.1f}" if v else "-"
        lines.append(
            f"{name}: {n} case-selectors; pass {names[0]} {pa}, {names[1]} {pb}; "
            f"mean VGPR {names[0]} {mean(va)}, {names[1]} {mean(vb)}"
        )
    return "\n".join(lines)


# ---- JSON records and matrix documents: order, tables, text and markdown -------------------------


def cell_order(r: dict) -> tuple:
    """The canonical order of case records and matrix cells: intrinsic, CPU, -O, pipeline, file
    class, formats, widths, function, selector (the same however the cases were sharded)."""
    rank = lambda seq, v: seq.index(v) if v in seq else len(seq)
    return (
        r["intrinsic"],
        r["cpu"],
        r["opt"],
        r["pipeline"],
        rank(CLASSES, r["class"]),
        rank(formats.SHORT, r["fmt_a"]),
        rank(formats.SHORT, r["fmt_b"]),
        r["width_a"],
        r["width_b"],
        r["function"],
        rank(SELECTORS, r["selector"]),
        r["selector"],
    )


def cell_key(r: dict) -> tuple:
    """What makes a record one cell: its case (function, CPU, -O, pipeline, class) and selector."""
    return r["function"], r["cpu"], r["opt"], r["pipeline"], r["class"], r["selector"]


def records_table(records: list[dict], by: str = "intrinsic") -> str:
    """`table`, from JSON case records (what `harness run --json` printed) instead of outcomes."""
    rows: dict[tuple[str, str], dict[VerdictCode, int]] = {}
    for r in records:
        name = r["intrinsic"]
        if by == "class":
            pipeline = "" if r["pipeline"] == "none" else f" ({r['pipeline']})"
            name = f"{r['class']}{pipeline} -O{r['opt']}"
        row = rows.setdefault((name, r["selector"]), dict.fromkeys(ALL, 0))
        row[VerdictCode(r["verdict"])] += 1  # known: harness.reports.merge refuses any other verdict
    used = [v for v in dict.fromkeys(k for r in rows.values() for k in r) if any(r.get(v) for r in rows.values())]
    totals = {v: sum(r.get(v, 0) for r in rows.values()) for v in used}
    header = [by, "selector", *used, "total"]
    body = [[name, sel, *(str(r.get(v, 0)) for v in used), str(sum(r.values()))] for (name, sel), r in sorted(rows.items())]
    body.append(["all", "", *(str(totals[v]) for v in used), str(sum(totals.values()))])
    widths = [max(len(row[i]) for row in [header, *body]) for i in range(len(header))]
    fmt = lambda row: "  ".join(cell.ljust(w) if i < 2 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths)))
    rule = "  ".join("-" * w for w in widths)
    return "\n".join([fmt(header), rule, *map(fmt, body[:-1]), rule, fmt(body[-1])])


def matrix_counts(cells: list[dict], n: int) -> list[dict[VerdictCode, int]]:
    """Verdict -> number of cells, per build (every known verdict, zeros included)."""
    out = [dict.fromkeys(ALL, 0) for _ in range(n)]
    for c in cells:
        for i, v in enumerate(c["verdicts"]):
            out[i][VerdictCode(v)] += 1  # known: harness.reports.merge refuses any other verdict
    return out


def unsupported_reasons(doc: dict) -> list[str]:
    """Why cells are `unsupported`, once per build and reason (not once per cell)."""
    lines = []
    for i, build in enumerate(doc["builds"]):
        reasons: dict[str, int] = {}
        for c in doc["cells"]:
            if (c.get("verdicts") or [None] * (i + 1))[i] == VerdictCode.UNSUPPORTED:
                why = (c.get("details") or [""] * (i + 1))[i] or "no reason given"
                reasons[why] = reasons.get(why, 0) + 1
        lines += [f"unsupported on {build['id']}: {n} cell(s): {why}" for why, n in sorted(reasons.items())]
    return ["", *lines] if lines else []


def label(c: dict) -> str:
    """A cell's case: its function, and what the name does not say (a CPU other than the
    intrinsic's first, -O, pipeline, check)."""
    extra = [c["cpu"]] if c.get("cpu") and c["cpu"] != _first_cpu(c.get("intrinsic", "")) else []
    extra += [f"-O{c['opt']}"] if c.get("opt") else []
    if c.get("pipeline", "none") != "none":
        extra.append(c["pipeline"])
    if c.get("class") in (FileClass.IR, FileClass.IR_MALFORMED, FileClass.OBJECT) or str(c.get("class", "")).startswith(
        "diagnostic"
    ):
        extra.append(c["class"])
    return c["function"] + (f" [{' '.join(extra)}]" if extra else "")


def _first_cpu(name: str) -> str:
    try:
        return catalog.lookup(name).default_cpu
    except KeyError:  # (a cell of a target without a catalog entry: NVPTX)
        return ""


def cost_changes(c: dict, arrow: str = ">") -> list[str]:
    """`vgpr 66>74 (+8)` for each metric that differs among the builds that report metrics."""
    have = [m for m in c["metrics"] if m]
    if len(have) < 2:
        return []
    out = []
    for name in METRICS:
        values = [m.get(name) if m else None for m in c["metrics"]]
        known = [v for v in values if isinstance(v, int)]
        if len(set(known)) > 1:
            out.append(f"{name} {arrow.join('-' if v is None else str(v) for v in values)} ({known[-1] - known[0]:+d})")
    return out


def _table(rows: list[list[str]], right: int = 99) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    fmt = lambda r: "  ".join(x.rjust(w) if i >= right else x.ljust(w) for i, (x, w) in enumerate(zip(r, widths))).rstrip()
    return [fmt(rows[0]), "  ".join("-" * w for w in widths), *map(fmt, rows[1:])]


JUDGMENT_WORDS = (
    ("expected", "expected"),
    ("known-bug", "known bug"),
    ("unexpected", "unexpected"),
    ("not-judged", "not judged"),
)


def judgment_counts(cells: list[dict], builds: int) -> list[dict[str, int]]:
    """Per build: judgment -> cells (cells without judgments, from older documents, count none)."""
    out: list[dict[str, int]] = [dict.fromkeys((k for k, _ in JUDGMENT_WORDS), 0) for _ in range(builds)]
    for c in cells:
        for i, j in enumerate(c.get("judgments") or []):
            if i < builds and j in out[i]:
                out[i][j] += 1
    return out


def judgment_lines(doc: dict) -> list[str]:
    """`<build>: N expected, N known bug, N unexpected, N not judged`, one line per build, then the
    unexpected cells (up to 50), when the document's cells carry judgments."""
    cells, builds = doc["cells"], doc["builds"]
    if not any("judgments" in c for c in cells):
        return []
    lines = [""]
    for b, counts in zip(builds, judgment_counts(cells, len(builds))):
        lines.append(f"{b['id']}: " + ", ".join(f"{counts[k]} {w}" for k, w in JUDGMENT_WORDS))
    bad = [(c, i) for c in cells for i, j in enumerate(c.get("judgments") or []) if j == "unexpected"]
    lines += [f"UNEXPECTED on {builds[i]['id']}: {label(c)} [{c['selector']}]: {c['verdicts'][i]}" for c, i in bad[:50]]
    return lines


def changed(cell: dict) -> bool:
    """Whether the builds that judge a matrix cell give it different verdicts (a build that
    cannot judge it, `unsupported` or `timeout`, changes nothing)."""
    return len({v for v in cell["verdicts"] if v not in (VerdictCode.UNSUPPORTED, VerdictCode.TIMEOUT)}) > 1


def changes_line(cells: list[dict]) -> str:
    """How many cells change verdict between the builds that judge them, and how many differ
    only because a build cannot judge them."""
    moved = sum(changed(c) for c in cells)
    unjudged = sum(1 for c in cells if c["differs"] and not changed(c))
    return (
        f"{moved} of {len(cells)} cells change verdict between the builds that judge them; "
        f"{unjudged} differ only because a build cannot judge them (unsupported or timeout)"
    )


def _by_formats(cells: list[dict]) -> dict[tuple, dict[str, int]]:
    """(intrinsic, fmt_a, fmt_b) -> transition ('a>b') -> count, over cells whose verdict changes."""
    out: dict[tuple, dict[str, int]] = {}
    for c in cells:
        if changed(c):
            moves = out.setdefault((c["intrinsic"], c["fmt_a"], c["fmt_b"]), {})
            step = ">".join(c["verdicts"])
            moves[step] = moves.get(step, 0) + 1
    return out


def _fmt_key(key: tuple) -> tuple:
    rank = lambda f: formats.SHORT.index(f) if f in formats.SHORT else 99
    return key[0], rank(key[1]), rank(key[2])


def _unexpected(cell: dict) -> bool:
    return "unexpected" in (cell.get("judgments") or [])


def matrix_text(doc: dict, show_all: bool = False, show_cost: bool = False) -> str:
    """A matrix document as text: the cells a build judges unexpected, then those whose verdict
    changes (with `show_cost` also those whose register cost alone changes; `show_all` every
    one), verdict counts, changes per format pair."""
    builds, cells = doc["builds"], doc["cells"]
    ids = [b["id"] for b in builds]
    lines = [
        f"# {b['id']}: LLVM {b['version']} from {b['bin']}"
        + ("" if b["pipeline"] == "none" else f", opt -passes={b['pipeline']} before llc")
        for b in builds
    ]
    shown = [c for c in cells if show_all or changed(c) or _unexpected(c) or (show_cost and cost_changes(c))]
    shown.sort(key=lambda c: not _unexpected(c))  # (stable: the cells' own order within each part)
    if shown:
        rows = [["case", "sel", *ids, "register cost"]]
        rows += [[label(c), c["selector"], *c["verdicts"], ", ".join(cost_changes(c))] for c in shown]
        lines += ["", *_table(rows)]
    tally = doc.get("counts") or matrix_counts(cells, len(builds))
    used = [v for v in dict.fromkeys(k for t in tally for k in t) if any(t.get(v) for t in tally)]
    rows = [["build", *used, "total"]] + [
        [i, *(str(t.get(v, 0)) for v in used), str(sum(t.values()))] for i, t in zip(ids, tally)
    ]
    lines += ["", "verdict counts per build", *_table(rows, right=1), *judgment_lines(doc), *unsupported_reasons(doc)]
    cost_only = sum(1 for c in cells if not c["differs"] and cost_changes(c))
    if len(builds) > 1:
        listed = "" if show_all or show_cost else " (--cost lists them)"
        lines += ["", changes_line(cells) + (f", {cost_only} more in register cost only{listed}" if cost_only else "")]
    grouped = _by_formats(cells)
    if grouped:
        rows = [["intrinsic", "fmt_a", "fmt_b", "cells", "verdicts (" + " > ".join(ids) + ")"]]
        for key in sorted(grouped, key=_fmt_key):
            moves = grouped[key]
            rows.append([*key, str(sum(moves.values())), ", ".join(f"{m} {n}" for m, n in sorted(moves.items()))])
        lines += _table(rows)
    lines += _cost_summary(cells, ids)
    return "\n".join(lines)


def _cost_summary(cells: list[dict], ids: list[str]) -> list[str]:
    """Mean register cost per build over the cells every build compiled."""
    both = [c for c in cells if len(ids) > 1 and all(c["metrics"])]
    if not both:
        return []
    rows = [["mean over " + str(len(both)) + " cells all builds compiled", *ids]]
    for name in METRICS:
        means = []
        for i in range(len(ids)):
            values = [c["metrics"][i].get(name) for c in both if isinstance(c["metrics"][i].get(name), (int, float))]
            means.append(f"{sum(values) / len(values):.1f}" if values else "-")
        rows.append([name, *means])
    return ["", *_table(rows, right=1)]


def _md(value) -> str:
    """Text for a markdown table cell: no HTML, no column breaks, one line."""
    s = str(value).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("|", "\\|")
    return " ".join(s.split())


def _code(value) -> str:
    """A code span for a markdown table cell (entities are not decoded inside one)."""
    return "`" + " ".join(str(value).replace("`", "'").replace("|", "\\|").split()) + "`"


MARKDOWN_ROWS = 100


def matrix_markdown(doc: dict, kind: str = "matrix") -> str:
    """A matrix document as markdown for a review: counts per build, changes per format pair, differing cells.

    `kind` names the command whose output it is (`harness report` shows run documents this way)."""
    builds, cells = doc["builds"], doc["cells"]
    ids = [_md(b["id"]) for b in builds]
    out = [
        f"**harness {_md(kind)}**: "
        + ", ".join(
            f"{_md(b['id'])} = LLVM {_md(b['version'])} from {_md(b['bin'])}"
            + ("" if b["pipeline"] == "none" else f" + {_md(b['pipeline'])}")
            for b in builds
        ),
        "",
    ]
    tally = doc.get("counts") or matrix_counts(cells, len(builds))
    used = [v for v in dict.fromkeys(k for t in tally for k in t) if any(t.get(v) for t in tally)]
    out += ["| verdict | " + " | ".join(ids) + " |", "|---|" + "---:|" * len(ids)]
    out += [f"| {_md(v)} | " + " | ".join(str(t.get(v, 0)) for t in tally) + " |" for v in used]
    out += ["| **total** | " + " | ".join(str(sum(t.values())) for t in tally) + " |", ""]
    differing = [c for c in cells if changed(c)]
    if len(builds) > 1:
        out.append(f"**{changes_line(cells)}.**")
    grouped = _by_formats(cells)
    if grouped:
        out += ["", "| intrinsic | A | B | cells | " + " → ".join(ids) + " |", "|---|---|---|---:|---|"]
        for key in sorted(grouped, key=_fmt_key):
            moves = grouped[key]
            steps = ", ".join(f"{_md(m.replace('>', ' → '))} ({n})" for m, n in sorted(moves.items()))
            out.append(f"| {_code(key[0])} | {_md(key[1])} | {_md(key[2])} | {sum(moves.values())} | {steps} |")
        shown = differing[:MARKDOWN_ROWS]
        more = f" (first {len(shown)})" if len(shown) < len(differing) else ""
        out += [
            "",
            f"<details><summary>Differing cells{more}</summary>",
            "",
            "| case | sel | " + " | ".join(ids) + " | register cost |",
            "|---|---|" + "---|" * (len(ids) + 1),
        ]
        out += [
            f"| {_code(label(c))} | {_md(c['selector'])} | "
            + " | ".join(_md(v) for v in c["verdicts"])
            + f" | {_md(', '.join(cost_changes(c, ' → ')))} |"
            for c in shown
        ]
        out += ["", "</details>"]
    return "\n".join(out) + "\n"
