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
        "selector": outcome.selector,
        "verdict": outcome.verdict.verdict,
        "detail": outcome.verdict.detail,
    }
    if with_tools:
        record["tools"] = [t.summary() for t in outcome.verdict.tools]
    return record


def counts(outcomes: list[Outcome]) -> dict[tuple[str, str], dict[str, int]]:
    table: dict[tuple[str, str], dict[str, int]] = {}
    for o in outcomes:
        row = table.setdefault((o.case.intrinsic.name, o.selector), dict.fromkeys(ALL, 0))
        row[o.verdict.verdict] += 1
    return table


def table(outcomes: list[Outcome]) -> str:
    """Intrinsic x selector rows, one column per verdict that occurred, and a total row."""
    rows = counts(outcomes)
    used = [v for v in ALL if any(r[v] for r in rows.values())]
    totals = {v: sum(r[v] for r in rows.values()) for v in used}
    header = ["intrinsic", "selector", *used, "total"]
    body = [[name, sel, *(str(r[v]) for v in used), str(sum(r.values()))] for (name, sel), r in sorted(rows.items())]
    body.append(["all", "", *(str(totals[v]) for v in used), str(sum(totals.values()))])
    widths = [max(len(row[i]) for row in [header, *body]) for i in range(len(header))]
    fmt = lambda row: "  ".join(cell.ljust(w) if i < 2 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths)))
    rule = "  ".join("-" * w for w in widths)
    return "\n".join([fmt(header), rule, *map(fmt, body[:-1]), rule, fmt(body[-1])])
