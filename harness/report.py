"""Summaries of outcomes: the verdict table and the JSON records."""

from __future__ import annotations

from harness import formats
from harness.runner import Outcome
from harness.verdicts import ALL


def case_record(outcome: Outcome, with_tools: bool = False) -> dict:
    c = outcome.case
    record = {
        "function": c.function,
        "intrinsic": c.intrinsic.name,
        "cpu": c.cpu,
        "fmt_a": formats.short(c.fmt_a),
        "fmt_b": formats.short(c.fmt_b),
        "width_a": c.width_a,
        "width_b": c.width_b,
        "required_a": c.required("a"),
        "required_b": c.required("b"),
        "opt": c.opt,
        "pipeline": c.pipeline,
        "selector": outcome.selector,
        "class": c.file_class,
        "verdict": outcome.verdict.verdict,
        "detail": outcome.verdict.detail,
    }
    if c.args:
        record["args"] = {str(i): v for i, v in c.args}
    if c.narrowing:
        record["narrowing"] = c.narrowing
    record.update(outcome.verdict.details)  # metrics, tuples, rewrite, ir, verifier
    if with_tools:
        record["tools"] = [t.summary() for t in outcome.verdict.tools]
    return record


def _row_key(o: Outcome, by: str) -> str:
    if by == "class":
        pipeline = "" if o.case.pipeline == "none" else f" ({o.case.pipeline})"
        return f"{o.case.file_class}{pipeline} -O{o.case.opt}"
    return o.case.intrinsic.name


def counts(outcomes: list[Outcome], by: str = "intrinsic") -> dict[tuple[str, str], dict[str, int]]:
    table: dict[tuple[str, str], dict[str, int]] = {}
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
    rows = [["function", "sel", f"verdict {names[0]}", f"verdict {names[1]}",
             *(f"{m} {names[0]}>{names[1]}" for m in METRICS)]]
    summary: dict[str, list] = {}
    for a, b in pairs:
        ma, mb = a.verdict.details.get("metrics") or {}, b.verdict.details.get("metrics") or {}
        cell = lambda m: f"{ma.get(m, '-')}>{mb.get(m, '-')}" if ma.get(m) != mb.get(m) else str(ma.get(m, "-"))
        rows.append([a.case.function, a.selector, a.verdict.verdict, b.verdict.verdict, *map(cell, METRICS)])
        s = summary.setdefault(a.case.intrinsic.name, [0, 0, 0, [], []])
        s[0] += 1
        s[1] += a.verdict.verdict == "pass"
        s[2] += b.verdict.verdict == "pass"
        if ma.get("vgpr") is not None and mb.get("vgpr") is not None:
            s[3].append(ma["vgpr"])
            s[4].append(mb["vgpr"])
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    lines.append("")
    for name, (n, pa, pb, va, vb) in sorted(summary.items()):
        mean = lambda v: f"{sum(v) / len(v):.1f}" if v else "-"
        lines.append(f"{name}: {n} case-selectors; pass {names[0]} {pa}, {names[1]} {pb}; "
                     f"mean VGPR {names[0]} {mean(va)}, {names[1]} {mean(vb)}")
    return "\n".join(lines)
