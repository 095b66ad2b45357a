"""One self-contained HTML page for a matrix document (`harness matrix --html`, `harness report --html`).

No network: inline CSS and JavaScript only, and a Content-Security-Policy that forbids loading
anything else. The document is embedded as JSON (with `<`, `>`, `&` escaped, so no text can end
the script element) and the script builds the page with `textContent` and attributes only, never
HTML from data; the parts rendered here in Python go through `html.escape`.

The page: per AMDGPU grid (intrinsic, CPU, -O, case pipeline) a table of A format x B format;
each format cell holds one row per width pair (A x B, in i32) with one square per selector. Per
NVPTX grid (instruction family and shape, -O, pipeline) a table of variant (layouts and types as
the ISA spells them) x SM; each cell one row per case class with one square per selector. A view
switch shows one build's verdicts or the diff (changed cells striped with each build's colour,
unchanged ones faded). Two filters keep only the cells whose verdict changes between the builds
that judge them, or only the cells some build gives an unexpected verdict (in the one-build view,
that build); an index links each intrinsic to its first grid. A click (or Enter) on a square
shows its details: every build's verdict and judgment, the tool's first message, register cost
and the `harness try` line that reproduces it.
"""

from __future__ import annotations

import html

from harness.core import files
from harness.core import verdicts as V
from harness.reports import report

# verdict -> (letter on the square, colour, what it means)
STYLE = {
    V.PASS: ("P", "#2e9d4a", "llc's text reassembles with llvm-mc"),
    V.MISCOMPILE: ("X", "#67000d", "the row's instruction, but an operand's value is not the IR's (text or object)"),
    V.MC_REJECT: ("M", "#d62728", "llc succeeded, llvm-mc rejects its text (the over-wide tuple bug)"),
    V.WRONG_SHAPE: ("W", "#e377c2", "llvm-mc accepts the text, but it is not the row's instruction or register widths"),
    V.NO_CODE: ("N", "#17becf", "llc exited 0 but printed no code for the function"),
    V.CANNOT_SELECT: ("S", "#ff7f0e", "llc's selector gave up"),
    V.LLC_REJECT: ("R", "#7f7f7f", "llc rejected the call with a clean diagnostic"),
    V.VERIFIER_REJECT: ("V", "#5b7fa6", "the IR verifier rejects the call"),
    V.CRASH: ("C", "#8e44ad", "a tool died for another reason"),
    V.TIMEOUT: ("T", "#b5a300", "a tool ran past --timeout"),
    V.UNSUPPORTED: ("U", "#c8c8c8", "the build lacks the target, CPU or intrinsic"),
}
OTHER = ("?", "#444444", "a verdict this page does not know")


def _script_json(value) -> str:
    """JSON that is safe inside a <script> element: nothing in it can close or comment the element."""
    text = files.json_text(value, indent=None, ensure_ascii=False, separators=(",", ":"))
    for raw, esc in (("&", "\\u0026"), ("<", "\\u003c"), (">", "\\u003e"), ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(raw, esc)
    return text


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
    foot = (
        f'<p id="differ-count">{e(report.changes_line(doc["cells"]))}.</p>'
        if len(builds) > 1
        else f'<p id="differ-count">{len(doc["cells"])} cells.</p>'
    )
    judged = [line for line in report.judgment_lines(doc) if line and not line.startswith("UNEXPECTED")]
    foot += "".join(f'<p class="judgments">{e(line)}</p>' for line in judged)
    reasons = "".join(f"<li>{e(line)}</li>" for line in report.unsupported_reasons(doc) if line)
    why = f'<ul id="unsupported-reasons">{reasons}</ul>' if reasons else ""
    return (
        f'<table id="counts"><thead><tr><th scope="col">build</th>{head}<th scope="col">total</th></tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>{foot}{why}"
    )


def _cls(verdict: str) -> str:
    return "v-" + verdict if verdict in STYLE else "v-other"


def _legend(builds: int) -> str:
    items = "".join(
        f'<li><span class="sw v-{v}">{l}</span><b>{html.escape(v)}</b> {html.escape(d)}</li>' for v, (l, _, d) in STYLE.items()
    )
    if builds > 1:
        stripes = f"linear-gradient(90deg,{STYLE[V.MC_REJECT][1]} 50%,{STYLE[V.PASS][1]} 50%)"
        items += (
            f'<li><span class="sw same v-pass">P</span><span class="sw changed" style="background:{stripes}">'
            "</span><b>diff view</b> faded: the same verdict on every build; striped: the builds disagree "
            "(one stripe per build, in column order)</li>"
        )
    return (
        f'<ul id="legend">{items}</ul><p class="note">AMDGPU grids, A format × B format: each cell one row per '
        "width pair (A×B source width in i32, the required width underlined). NVPTX grids, variant × SM: each "
        "cell one row per case class. One square per selector (sdag, then gisel). Hover for a summary, click "
        "for details.</p>"
    )


CSP = (
    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
    "script-src 'unsafe-inline'; img-src data:\">"
)


def render(doc: dict) -> str:
    builds = doc["builds"]
    title = "harness matrix: " + " vs ".join(b["id"] for b in builds)
    css_verdicts = "".join(f".v-{v}{{background:{c};}}" for v, (_, c, _) in STYLE.items()) + f".v-other{{background:{OTHER[1]};}}"
    style = {v: [l, c] for v, (l, c, _) in STYLE.items()}
    shard = f" (shard {html.escape(str(doc['shard']))})" if doc.get("shard") else ""
    return "".join(
        [
            '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">',
            CSP,
            '<meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="data:,">',
            f"<title>{html.escape(title)}</title><style>{CSS}{css_verdicts}</style></head><body>",
            f"<header><h1>{html.escape(title)}{shard}</h1>",
            '<div id="views" role="group" aria-label="view"></div>',
            '<div id="filters"><label><input type="checkbox" id="only-changed"> only cells whose verdict changes</label>'
            '<label><input type="checkbox" id="only-unexpected"> only unexpected cells</label></div>',
            '<nav id="index" aria-label="intrinsics"></nav></header>',
            f'<section id="summary">{_counts_table(doc)}<p id="shown"></p>{_legend(len(builds))}</section>',
            "<noscript><p>The grids need JavaScript; the counts above do not.</p></noscript>",
            '<main id="grids"></main>',
            '<aside id="details" hidden><button type="button" id="close" aria-label="close">×</button><div id="detail-body"></div></aside>',
            f'<script type="application/json" id="matrix-data">{_script_json(doc)}</script>',
            f'<script type="application/json" id="verdict-style">{_script_json(style)}</script>',
            f"<script>{SCRIPT}</script></body></html>\n",
        ]
    )


CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:0 1.5em 2em;color:#222;background:#fafafa}
h1{font-size:1.3em;margin:.8em 0 .4em}#grids{display:flex;flex-wrap:wrap;gap:0 2.5em;align-items:flex-start}h2{font-size:1.05em;margin:1.4em 0 .4em}
#views button{font:inherit;margin:0 .3em .3em 0;padding:.25em .8em;border:1px solid #888;border-radius:4px;background:#fff;cursor:pointer}
#views button[aria-pressed=true]{background:#222;color:#fff}
#counts{border-collapse:collapse;margin:.5em 0}#counts td,#counts th{border:1px solid #ccc;padding:.2em .6em;text-align:right}
#counts th[scope=row],#counts thead th:first-child{text-align:left}#counts small{display:block;color:#666;font-weight:normal}
#legend{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:.3em 1.2em;font-size:.9em}
#legend b{margin:0 .3em}.note{color:#555;font-size:.9em}
.sw{display:inline-block;min-width:1.1em;height:1.1em;line-height:1.1em;text-align:center;color:#fff;font-size:.8em;
  border-radius:2px;vertical-align:middle;margin-right:.3em}
table.grid{border-collapse:collapse}table.grid th{padding:.2em .5em;font-weight:600}
table.grid td{border:1px solid #ccc;padding:3px;vertical-align:top;background:#fff}
.mini{display:grid;gap:1px;align-items:center}.wl{font:11px monospace;color:#444;padding-right:3px;white-space:nowrap}
.wl u{text-decoration-thickness:2px}
.sc{width:16px;height:16px;padding:0;border:0;border-radius:2px;font:bold 10px monospace;color:#fff;cursor:pointer}
.sc:focus{outline:2px solid #000;outline-offset:1px}.sc.sel{outline:3px solid #000}
.same{opacity:.22}.changed{box-shadow:0 0 0 1px #000}
#details{position:fixed;right:0;top:0;bottom:0;width:min(46em,92vw);overflow:auto;background:#fff;border-left:2px solid #444;
  padding:1em 1.2em;box-shadow:-4px 0 12px rgba(0,0,0,.15)}
#details pre{white-space:pre-wrap;word-break:break-word;background:#f3f3f3;padding:.4em;margin:.2em 0}
#details code{word-break:break-all;background:#eef;padding:.1em .3em;display:block}
#details table{border-collapse:collapse;width:100%}#details td,#details th{border-top:1px solid #ddd;padding:.3em;vertical-align:top;text-align:left}
#close{float:right;font-size:1.4em;border:0;background:none;cursor:pointer}
#filters label{margin-right:1.2em}#index{font-size:.85em;margin:.4em 0;max-height:8em;overflow:auto}
#index a{margin-right:.8em;white-space:nowrap}.gridbox[hidden]{display:none}.sc.off{visibility:hidden}
"""

SCRIPT = r"""
(function () {
  "use strict";
  var doc = JSON.parse(document.getElementById("matrix-data").textContent);
  var style = JSON.parse(document.getElementById("verdict-style").textContent);
  var builds = doc.builds, squares = [], view = builds.length > 1 ? -1 : 0, selected = null;
  var FMT = ["fp8", "bf8", "fp6", "bf6", "fp4"], SEL = ["sdag", "gisel"];
  var ORDER = Object.keys(style).concat(["changed", "same"]);
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function known(v) { return Object.prototype.hasOwnProperty.call(style, v); }
  function vclass(v) { return known(v) ? "v-" + v : "v-other"; }
  function colour(v) { return known(v) ? style[v][1] : "#444444"; }
  function letter(v) { return known(v) ? style[v][0] : "?"; }
  function rank(list, v) { var i = list.indexOf(v); return i < 0 ? list.length : i; }
  function firstLine(s) { return String(s || "").split("\n")[0]; }
  function variant(c) {
    var parts = [];
    if (c.args) Object.keys(c.args).forEach(function (k) { parts.push("arg" + k + "=" + c.args[k]); });
    if (c.narrowing) parts.push(c.narrowing);
    if (c.elem_a) parts.push("A " + c.elem_a);
    if (c.elem_b) parts.push("B " + c.elem_b);
    if (["ir", "ir-malformed", "object"].indexOf(c["class"]) >= 0 || String(c["class"]).indexOf("diagnostic") === 0) parts.push(c["class"]);
    return parts.join(" ");
  }

  // ---- view switch
  var views = document.getElementById("views"), buttons = [];
  function addView(index, text) {
    var b = el("button", "", text);
    b.type = "button";
    b.setAttribute("data-view", String(index));
    b.addEventListener("click", function () { view = index; paint(); });
    views.appendChild(b);
    buttons.push(b);
  }
  if (builds.length > 1) addView(-1, "diff");
  builds.forEach(function (b, i) { addView(i, b.id); });

  // ---- grids. AMDGPU: one per intrinsic, CPU, -O level and case pipeline, A format x B format,
  // a line per width pair. NVPTX (cells with `grid`): one per instruction family and shape, -O
  // level and pipeline, a row per variant (layouts and types, as the ISA spells them) x SM.
  function nvptxPlace(c) {
    return {grid: c.grid.title + " · -O" + c.opt + (c.pipeline !== "none" ? " · " + c.pipeline : ""),
            corner: "variant \\ SM", row: c.grid.row, col: c.cpu, line: [c["class"], variant(c)].join(" ").trim()};
  }
  function amdgpuPlace(c) {
    return {grid: c.intrinsic + " · " + c.cpu + " · -O" + c.opt + (c.pipeline !== "none" ? " · " + c.pipeline : ""),
            corner: "A \\ B", row: c.fmt_a, col: c.fmt_b, line: [c.width_a, c.width_b, variant(c)].join("|")};
  }
  function place(c) { return c.grid ? nvptxPlace(c) : amdgpuPlace(c); }
  function smRank(cpu) { var m = /^sm_(\d+)(\w*)$/.exec(cpu); return m ? Number(m[1]) * 10 + (m[2] ? 1 : 0) : 1e9; }
  function order(values, nvptx, columns) {
    if (!nvptx) return values.sort(function (x, y) { return rank(FMT, x) - rank(FMT, y); });
    return columns ? values.sort(function (x, y) { return smRank(x) - smRank(y); }) : values;
  }
  function lineLabel(c, nvptx) {
    var wl = el("span", "wl");
    if (nvptx) {
      wl.textContent = [c["class"], variant(c)].join(" ").trim();
      wl.title = c.intrinsic + " on " + c.cpu;
      return wl;
    }
    [[c.width_a, c.required_a], [c.width_b, c.required_b]].forEach(function (w, i) {
      if (i) wl.appendChild(document.createTextNode("×"));
      wl.appendChild(w[0] === w[1] ? el("u", "", w[0]) : document.createTextNode(String(w[0])));
    });
    var v = variant(c);
    if (v) wl.appendChild(document.createTextNode(" " + v));
    wl.title = "A " + c.fmt_a + " v" + c.width_a + " (reads " + c.required_a + "), B " + c.fmt_b + " v" + c.width_b + " (reads " + c.required_b + ")";
    return wl;
  }
  function lineOrder(x, y, nvptx) {
    if (nvptx) return x.key < y.key ? -1 : x.key > y.key ? 1 : 0;
    return (x.c.width_a - y.c.width_a) || (x.c.width_b - y.c.width_b) || (variant(x.c) < variant(y.c) ? -1 : 1);
  }
  var grids = new Map(), sections = [];
  doc.cells.forEach(function (c) {
    var at = place(c);
    if (!grids.has(at.grid)) grids.set(at.grid, {nvptx: !!c.grid, corner: at.corner, cells: []});
    grids.get(at.grid).cells.push([at, c]);
  });
  var main = document.getElementById("grids");
  grids.forEach(function (g, key) {
    var section = el("section", "gridbox");
    section.id = "grid-" + sections.length;
    sections.push([section, g.cells.map(function (pair) { return pair[1]; })]);
    section.appendChild(el("h2", "", key));
    var rows = [], cols = [], sels = [];
    g.cells.forEach(function (pair) {
      var at = pair[0], c = pair[1];
      if (rows.indexOf(at.row) < 0) rows.push(at.row);
      if (cols.indexOf(at.col) < 0) cols.push(at.col);
      if (sels.indexOf(c.selector) < 0) sels.push(c.selector);
    });
    order(rows, g.nvptx, false);
    order(cols, g.nvptx, true);
    sels.sort(function (x, y) { return rank(SEL, x) - rank(SEL, y); });
    var table = el("table", "grid"), head = el("tr");
    head.appendChild(el("th", "", g.corner));
    cols.forEach(function (f) { head.appendChild(el("th", "", f)); });
    table.appendChild(el("thead")).appendChild(head);
    var body = el("tbody");
    rows.forEach(function (r) {
      var tr = el("tr");
      tr.appendChild(el("th", "", r));
      cols.forEach(function (col) {
        var td = el("td"), mini = el("div", "mini"), lines = new Map();
        td.setAttribute(g.nvptx ? "data-variant" : "data-fmt", r + "," + col);
        mini.style.gridTemplateColumns = "auto repeat(" + sels.length + ", 16px)";
        g.cells.forEach(function (pair) {
          var at = pair[0], c = pair[1];
          if (at.row !== r || at.col !== col) return;
          if (!lines.has(at.line)) lines.set(at.line, {key: at.line, c: c, by: {}});
          lines.get(at.line).by[c.selector] = c;
        });
        Array.from(lines.values()).sort(function (x, y) { return lineOrder(x, y, g.nvptx); }).forEach(function (line) {
          mini.appendChild(lineLabel(line.c, g.nvptx));
          sels.forEach(function (s) {
            var cc = line.by[s];
            if (!cc) { mini.appendChild(el("span")); return; }
            var b = el("button", "sc");
            b.type = "button";
            b.setAttribute("data-function", cc["function"]);
            b.setAttribute("data-selector", s);
            b.addEventListener("click", function () { show(cc, b); });
            mini.appendChild(b);
            squares.push([b, cc]);
          });
        });
        td.appendChild(mini);
        tr.appendChild(td);
      });
      body.appendChild(tr);
    });
    table.appendChild(body);
    section.appendChild(table);
    main.appendChild(section);
  });

  function summary(c) {
    var lines = [c["function"] + " [" + c.selector + "]"];
    builds.forEach(function (b, i) {
      var d = firstLine(c.details && c.details[i]);
      lines.push(b.id + ": " + c.verdicts[i] + (d ? " — " + d : ""));
    });
    return lines.join("\n");
  }

  // ---- the index: each intrinsic, linked to its first grid
  var index = document.getElementById("index"), firstGrid = new Map();
  sections.forEach(function (s) {
    s[1].forEach(function (c) { if (!firstGrid.has(c.intrinsic)) firstGrid.set(c.intrinsic, s[0].id); });
  });
  Array.from(firstGrid.keys()).sort().forEach(function (name) {
    var a = el("a", "", name);
    a.href = "#" + firstGrid.get(name);
    index.appendChild(a);
  });

  // ---- filters: cells whose verdict changes between the builds that judge them; unexpected cells
  var onlyChanged = document.getElementById("only-changed"), onlyUnexpected = document.getElementById("only-unexpected");
  function judgedChange(c) {
    var seen = {};
    c.verdicts.forEach(function (v) { if (v !== "unsupported" && v !== "timeout") seen[v] = 1; });
    return Object.keys(seen).length > 1;
  }
  function unexpected(c) {
    var js = c.judgments || [];
    return view >= 0 ? js[view] === "unexpected" : js.indexOf("unexpected") >= 0;
  }
  function kept(c) { return (!onlyChanged.checked || judgedChange(c)) && (!onlyUnexpected.checked || unexpected(c)); }
  onlyChanged.addEventListener("change", function () { paint(); });
  onlyUnexpected.addEventListener("change", function () { paint(); });

  // ---- paint the chosen view
  function paint() {
    var tally = {};
    squares.forEach(function (pair) {
      var b = pair[0], c = pair[1], v;
      b.style.background = "";
      if (view >= 0) {
        v = c.verdicts[view];
        b.className = "sc " + vclass(v);
        b.textContent = letter(v);
        tally[v] = (tally[v] || 0) + 1;
      } else if (c.differs) {
        var n = c.verdicts.length, stops = [];
        c.verdicts.forEach(function (v, i) {
          stops.push(colour(v) + " " + (100 * i / n) + "%", colour(v) + " " + (100 * (i + 1) / n) + "%");
        });
        b.className = "sc changed";
        b.style.background = "linear-gradient(90deg," + stops.join(",") + ")";
        b.textContent = "";
        tally.changed = (tally.changed || 0) + 1;
      } else {
        v = c.verdicts[0];
        b.className = "sc same " + vclass(v);
        b.textContent = letter(v);
        tally.same = (tally.same || 0) + 1;
      }
      if (pair === selected) b.classList.add("sel");
      if (!kept(c)) b.classList.add("off");
      b.title = summary(c);
    });
    sections.forEach(function (s) { s[0].hidden = !s[1].some(kept); });
    buttons.forEach(function (b) { b.setAttribute("aria-pressed", String(Number(b.getAttribute("data-view")) === view)); });
    var shown = document.getElementById("shown");
    shown.textContent = (view >= 0 ? "Showing " + builds[view].id + ": " : "Showing the diff: ") +
      Object.keys(tally).sort(function (x, y) { return rank(ORDER, x) - rank(ORDER, y); })
        .map(function (k) { return k + " " + tally[k]; }).join(", ");
  }

  // ---- details of one square
  var panel = document.getElementById("details"), detailBody = document.getElementById("detail-body");
  function show(c, button) {
    squares.forEach(function (pair) { pair[0].classList.remove("sel"); if (pair[0] === button) selected = pair; });
    button.classList.add("sel");
    detailBody.textContent = "";
    detailBody.appendChild(el("h2", "", c["function"]));
    var facts = c.intrinsic + " · A " + c.fmt_a + " v" + c.width_a + " (reads " + c.required_a + ") · B " + c.fmt_b + " v" +
      c.width_b + " (reads " + c.required_b + ") · " + c.selector + " · -O" + c.opt + " · " + c["class"] +
      (c.pipeline !== "none" ? " · pipeline " + c.pipeline : "");
    detailBody.appendChild(el("p", "", facts));
    var table = el("table"), tb = el("tbody");
    builds.forEach(function (b, i) {
      var tr = el("tr"), th = el("th", "", b.id), td = el("td");
      tr.setAttribute("data-build", String(i));
      var badge = el("span", "sw " + vclass(c.verdicts[i]), letter(c.verdicts[i]));
      td.appendChild(badge);
      td.appendChild(el("b", "verdict", c.verdicts[i]));
      if (c.judgments) td.appendChild(el("span", "judgment", " (" + c.judgments[i] + ")"));
      var d = c.details ? c.details[i] : "";
      if (d) td.appendChild(el("pre", "message", d));
      var m = c.metrics ? c.metrics[i] : null;
      if (m) td.appendChild(el("div", "metrics", Object.keys(m).map(function (k) { return k + " " + m[k]; }).join(", ")));
      var cmd = c.commands ? c.commands[i] : null;
      if (cmd) td.appendChild(el("code", "command", cmd));
      tr.appendChild(th);
      tr.appendChild(td);
      tb.appendChild(tr);
    });
    table.appendChild(tb);
    detailBody.appendChild(table);
    panel.hidden = false;
  }
  document.getElementById("close").addEventListener("click", function () { panel.hidden = true; });
  document.addEventListener("keydown", function (e) { if (e.key === "Escape") panel.hidden = true; });
  paint();
  document.body.setAttribute("data-ready", "1");
})();
"""
