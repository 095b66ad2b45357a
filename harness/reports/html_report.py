"""One self-contained HTML page for a matrix document (`harness matrix --html`, `harness report --html`).

No network: inline CSS and JavaScript only, and a Content-Security-Policy that forbids loading
anything else. The document is embedded in the compact form of `html_data` (strings interned,
each cell a few small integers) as JSON with `<`, `>`, `&` escaped, so no text can end the script
element; the script (`html_script`) builds the page with `textContent` and attributes only,
never HTML from data; the parts rendered here in Python go through `html.escape`.

The page answers what changed, what is new and what is known. Its headline counts the cells that
change verdict (`report.changed`: the builds that judge a cell give it different verdicts; a
build that cannot judge it, `unsupported` or `timeout`, changes nothing, and register cost is no
verdict); the verdict counts and judgments per build follow. Per target, one table: AMDGPU
intrinsic x processor, NVPTX variant (under its instruction family and shape) x SM; each table
cell sums the cells under it (colour and letter: the most common verdict; shape: the worst
judgment; a corner mark: some verdict changes). A row opens into form x processor, one square
per cell and selector, whose colour and letter say its verdict and whose shape its judgment
(expected, known bug, unexpected, not judged). A view switch shows one build or the diff; filters
keep changed cells, or cells of one judgment, or rows whose name holds a text, drop whatever
holds none of them, and say so when nothing is left. A click on a square shows every build's
verdict, judgment, message, register cost and the `harness try` line that reproduces it.
"""

from __future__ import annotations

import html

from harness.core import files
from harness.core import verdicts as V
from harness.reports import html_data, html_script, report

# verdict -> (letter on the square, colour)
STYLE = {
    V.PASS: ("P", "#2e9d4a"),
    V.MISCOMPILE: ("X", "#67000d"),
    V.MC_REJECT: ("M", "#d62728"),
    V.WRONG_SHAPE: ("W", "#e377c2"),
    V.NO_CODE: ("N", "#17becf"),
    V.CANNOT_SELECT: ("S", "#ff7f0e"),
    V.LLC_REJECT: ("R", "#7f7f7f"),
    V.VERIFIER_REJECT: ("V", "#5b7fa6"),
    V.CRASH: ("C", "#8e44ad"),
    V.TIMEOUT: ("T", "#b5a300"),
    V.UNSUPPORTED: ("U", "#c8c8c8"),
}
OTHER = ("?", "#444444")

# What each verdict means on each target: AMDGPU's text is closed by llvm-mc, NVPTX's PTX by ptxas.
_COMMON = {
    V.NO_CODE: "llc exited 0 but printed no code for the function",
    V.CANNOT_SELECT: "llc's selector gave up",
    V.LLC_REJECT: "llc rejected the call with a clean diagnostic",
    V.VERIFIER_REJECT: "the IR verifier rejects the call",
    V.CRASH: "a tool died for another reason",
    V.TIMEOUT: "a tool ran past --timeout",
}
MEANING = {
    html_data.AMDGPU: {
        V.PASS: "llc's text reassembles with llvm-mc and holds the row's instruction",
        V.MISCOMPILE: "the row's instruction, but an operand's value is not the IR's (text or object)",
        V.MC_REJECT: "llc succeeded, llvm-mc rejects its text (the over-wide tuple bug)",
        V.WRONG_SHAPE: "llvm-mc accepts the text, but it is not the row's instruction or register widths",
        **_COMMON,
        V.UNSUPPORTED: "the build lacks the target, processor or intrinsic",
    },
    html_data.NVPTX: {
        V.PASS: "ptxas accepts llc's PTX and it holds the row's instruction",
        V.MISCOMPILE: "the row's instruction, but an operand's value is not the IR's",
        V.MC_REJECT: "llc succeeded, ptxas rejects its PTX",
        V.WRONG_SHAPE: "ptxas accepts the PTX, but it is not the row's instruction or register widths",
        **_COMMON,
        V.UNSUPPORTED: "the build lacks the target, SM or intrinsic",
    },
}
JUDGMENT_MEANING = (
    ("expected", "expected: the verdict the ISA's expectation asks for (a rounded square)"),
    ("known-bug", "known bug: known-bugs.yaml lists it for this build (a circle)"),
    ("unexpected", "unexpected: neither expected nor a listed bug (a square ringed in yellow and black)"),
    ("not-judged", "not judged: the build cannot judge the cell, unsupported or timeout (hatched, dashed edge)"),
)
TARGET_TITLE = {html_data.AMDGPU: ("amdgpu", "AMDGPU: intrinsic × processor"), html_data.NVPTX: ("nvptx", "NVPTX: variant × SM")}


def _script_json(value) -> str:
    """JSON that is safe inside a <script> element: nothing in it can close or comment the element."""
    text = files.json_text(value, indent=None, ensure_ascii=False, separators=(",", ":"))
    for raw, esc in (("&", "\\u0026"), ("<", "\\u003c"), (">", "\\u003e"), ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(raw, esc)
    return text


def _cls(verdict: str) -> str:
    return "v-" + verdict if verdict in STYLE else "v-other"


def _counts_table(doc: dict) -> str:
    builds = doc["builds"]
    tally = doc.get("counts") or report.matrix_counts(doc["cells"], len(builds))
    used = [v for v in dict.fromkeys(k for t in tally for k in t) if any(t.get(v) for t in tally)]
    e = html.escape
    head = "".join(f'<th scope="col"><span class="sw {_cls(v)}"></span>{e(v)}</th>' for v in used)
    rows = []
    for i, (b, t) in enumerate(zip(builds, tally)):
        cells = "".join(f'<td data-build="{i}" data-verdict="{e(v)}">{t.get(v, 0)}</td>' for v in used)
        pipe = "" if b["pipeline"] == "none" else f" + opt {e(b['pipeline'])}"
        rows.append(
            f'<tr><th scope="row">{e(b["id"])}<small>LLVM {e(b["version"])} from {e(b["bin"])}{pipe}</small></th>'
            f'{cells}<td data-build="{i}" data-verdict="total">{sum(t.values())}</td></tr>'
        )
    reasons = "".join(f"<li>{e(line)}</li>" for line in report.unsupported_reasons(doc) if line)
    why = (
        f'<details class="why"><summary>why cells are unsupported</summary><ul id="unsupported-reasons">{reasons}</ul></details>'
        if reasons
        else ""
    )
    return (
        f'<table id="counts"><thead><tr><th scope="col">build</th>{head}<th scope="col">total</th></tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>{why}"
    )


def _headline(doc: dict) -> str:
    """What changed (the one count every part of the page agrees with), then what each build judges."""
    cells, e = doc["cells"], html.escape
    if len(doc["builds"]) > 1:
        moved = sum(report.changed(c) for c in cells)
        line = report.changes_line(cells)
        rest = line.split(" ", 1)[1]
        text = f'<p id="headline" data-changed="{moved}"><b>{moved}</b> {e(rest)}.</p>'
    else:
        text = f'<p id="headline" data-changed="0"><b>{len(cells)}</b> cells on one build.</p>'
    judged = [line for line in report.judgment_lines(doc) if line and not line.startswith("UNEXPECTED")]
    return text + "".join(f'<p class="judgments judged">{e(line)}</p>' for line in judged)


def _legend(doc: dict, target: int) -> str:
    """The legend of one target's table: the verdicts its cells have, as that target means them."""
    present = {v for c in doc["cells"] if html_data.target_of(c) == target for v in c["verdicts"]}
    meaning = MEANING[target]
    e = html.escape
    items = "".join(
        f'<li><span class="sw j-expected {_cls(v)}">{e(STYLE.get(v, OTHER)[0])}</span><b>{e(v)}</b> '
        f"{e(meaning.get(v, 'a verdict this page does not know'))}</li>"
        for v in [*STYLE, *sorted(present - set(STYLE))]
        if v in present
    )
    shapes = "".join(
        f'<li><span class="sw j-{j} v-{V.PASS if j != "not-judged" else V.UNSUPPORTED}"></span>{e(text)}</li>'
        for j, text in JUDGMENT_MEANING
    )
    diff = ""
    if len(doc["builds"]) > 1:
        stripes = f"linear-gradient(90deg,{STYLE[V.MC_REJECT][1]} 50%,{STYLE[V.PASS][1]} 50%)"
        diff = (
            f'<li><span class="sw j-expected" style="background:{stripes}"></span>diff view: the verdict changes '
            "(one stripe per build, in column order)</li>"
            f'<li><span class="sw j-expected udiff" style="background:{stripes}"></span>differs only because a build '
            'cannot judge it</li><li><span class="sw j-expected same v-pass">P</span>the same verdict on every build</li>'
        )
    place = "processor" if target == html_data.AMDGPU else "SM"
    return (
        f'<ul class="legend verdicts">{items}</ul><ul class="legend judgments-legend">{shapes}{diff}</ul>'
        f'<p class="note">Each table cell sums the cells of its row on that {place}: colour and letter the most common '
        "verdict (diff view: the changed cells' most common verdict per build, as stripes, and their number), shape "
        "the worst judgment, a black corner where some verdict changes. A click on a row opens it: form × "
        f"{place}, one square per cell and selector; hover for a summary, click for details.</p>"
    )


def _target_sections(doc: dict) -> str:
    present = sorted({html_data.target_of(c) for c in doc["cells"]})
    out = []
    for t in present:
        slug, title = TARGET_TITLE[t]
        out.append(
            f'<section class="target" id="target-{slug}" data-target="{t}"><h2>{html.escape(title)}</h2>'
            f'{_legend(doc, t)}<div class="tablebox"></div></section>'
        )
    return "".join(out)


CONTROLS = (
    '<div id="controls"><div id="views" role="group" aria-label="view"></div>'
    '<label>cells: <select id="change-filter"><option value="all">all</option>'
    '<option value="changed">verdict changes</option>'
    '<option value="cannot-judge">differ only as unsupported/timeout</option>'
    '<option value="same">the same on every build</option></select></label>'
    '<label>judgment: <select id="judgment-filter"><option value="any">any</option>'
    '<option value="unexpected">unexpected</option><option value="known-bug">known bug</option>'
    '<option value="expected">expected</option><option value="not-judged">not judged</option></select></label>'
    '<label>row: <input type="search" id="name-filter" placeholder="name contains"></label>'
    '<button type="button" id="expand-all">open all rows</button>'
    '<p id="shown"></p><p id="nothing" hidden>Nothing matches these filters.</p></div>'
)
CONTROLS_ONE_BUILD = CONTROLS.replace('<label>cells: <select id="change-filter">', '<label hidden><select id="change-filter">')

CSP = (
    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
    "script-src 'unsafe-inline'; img-src data:\">"
)


def render(doc: dict) -> str:
    builds = doc["builds"]
    title = "harness matrix: " + " vs ".join(b["id"] for b in builds)
    css_verdicts = "".join(f".v-{v}{{background-color:{c};}}" for v, (_, c) in STYLE.items())
    css_verdicts += f".v-other{{background-color:{OTHER[1]};}}"
    style = {v: [letter, colour] for v, (letter, colour) in STYLE.items()}
    shard = f" (shard {html.escape(str(doc['shard']))})" if doc.get("shard") else ""
    return "".join(
        [
            '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">',
            CSP,
            '<meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="data:,">',
            f"<title>{html.escape(title)}</title><style>{html_script.CSS}{css_verdicts}</style></head><body>",
            f"<header><h1>{html.escape(title)}{shard}</h1>{_headline(doc)}</header>",
            f'<section id="summary">{_counts_table(doc)}</section>',
            CONTROLS if len(builds) > 1 else CONTROLS_ONE_BUILD,
            "<noscript><p>The tables need JavaScript; the counts above do not.</p></noscript>",
            f"<main>{_target_sections(doc)}</main>",
            '<aside id="details" hidden><button type="button" id="close" aria-label="close">×</button><div id="detail-body"></div></aside>',
            f'<script type="application/json" id="matrix-data">{_script_json(html_data.encode(doc))}</script>',
            f'<script type="application/json" id="verdict-style">{_script_json(style)}</script>',
            f"<script>{html_script.SCRIPT}</script></body></html>\n",
        ]
    )
