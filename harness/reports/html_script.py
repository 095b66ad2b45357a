"""The HTML page's stylesheet and script (`html_report` puts them inline).

The script reads the compact document `html_data` embeds and draws, per target, the table of
row (AMDGPU: intrinsic; NVPTX: variant, under its instruction family and shape) x processor,
each table cell summing the cells under it; a row opens on demand into form x processor with
one square per cell and selector. It builds everything with `textContent` and attributes only,
never HTML from data.
"""

CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:0 1.5em 2em;color:#222;background:#fafafa}
h1{font-size:1.3em;margin:.8em 0 .3em}h2{font-size:1.1em;margin:1.2em 0 .4em}
#headline{font-size:1.1em;margin:.3em 0}#headline b{font-size:1.15em}.judged{margin:.1em 0;color:#333}
#views button,#expand-all{font:inherit;margin:0 .3em .3em 0;padding:.2em .7em;border:1px solid #888;border-radius:4px;background:#fff;cursor:pointer}
#views button[aria-pressed=true]{background:#222;color:#fff}
#controls{position:sticky;top:0;background:#fafafa;padding:.4em 0;border-bottom:1px solid #ddd;z-index:2}
#controls label{margin-right:1em}#controls select,#controls input{font:inherit}
#views{display:inline-block;margin-right:1em}#shown{margin:.3em 0;color:#333}#nothing{font-weight:600;color:#a00}
#counts{border-collapse:collapse;margin:.5em 0}#counts td,#counts th{border:1px solid #ccc;padding:.2em .6em;text-align:right}
#counts th[scope=row],#counts thead th:first-child{text-align:left}#counts small{display:block;color:#666;font-weight:normal}
.legend{list-style:none;padding:0;margin:.3em 0;display:flex;flex-wrap:wrap;gap:.25em 1.2em;font-size:.88em}
.legend b{margin:0 .3em}.note{color:#555;font-size:.88em;margin:.2em 0}
.sw{display:inline-block;min-width:14px;height:14px;line-height:14px;text-align:center;color:#fff;font:bold 10px monospace;
  vertical-align:middle;margin-right:.2em}
table.sum,table.forms{border-collapse:collapse}table.sum{table-layout:fixed}.chunk{content-visibility:auto}
table.sum tbody th{overflow:hidden;text-overflow:ellipsis}tr.open>td>div{overflow-x:auto}
table.sum th,table.sum td,table.forms th,table.forms td{border:1px solid #e2e2e2;padding:1px 2px;text-align:center}
table.sum thead th.cpu,table.forms thead th.cpu{writing-mode:vertical-rl;transform:rotate(180deg);font:11px monospace;
  font-weight:normal;padding:3px 1px;white-space:nowrap}
table.sum tbody th,table.forms tbody th{text-align:left;font:12px monospace;white-space:nowrap;font-weight:normal}
table.sum tr.group th{background:#eee;font:600 12px system-ui,sans-serif;text-align:left}
.row{border:0;background:none;font:12px monospace;cursor:pointer;padding:0;text-align:left}
.row::before{content:"\\25B8 ";color:#777}.row[aria-expanded=true]::before{content:"\\25BE "}
td.n{font:11px monospace;color:#555;white-space:nowrap;text-align:right}td.n b{color:#000}
tr.open>td{background:#fff;text-align:left;padding:.4em .6em 1em}
.sc,.sq{display:inline-block;width:16px;height:16px;padding:0;border:0;margin:1px;font:bold 10px/16px monospace;
  color:#fff;cursor:pointer;vertical-align:middle;text-align:center;text-shadow:0 0 2px #000;position:relative;box-sizing:border-box}
.sq{font-size:9px}.sc:focus{outline:2px solid #000;outline-offset:1px}.sc.sel{outline:3px solid #000;outline-offset:1px}
.j-expected{border-radius:2px}
.j-known-bug{border-radius:50%}
.j-unexpected{border-radius:0;box-shadow:0 0 0 2px #ffe100,0 0 0 3px #000}
.j-not-judged{border-radius:2px;border:1px dashed #333;
  background-image:repeating-linear-gradient(45deg,rgba(255,255,255,.6) 0 2px,transparent 2px 5px)}
.same{opacity:.25}.udiff{opacity:.55}
.has-chg::after{content:"";position:absolute;right:-1px;top:-1px;border-style:solid;border-width:0 7px 7px 0;
  border-color:transparent #000 transparent transparent}
#details{position:fixed;right:0;top:0;bottom:0;width:min(46em,92vw);overflow:auto;background:#fff;border-left:2px solid #444;
  padding:1em 1.2em;box-shadow:-4px 0 12px rgba(0,0,0,.15);z-index:3}
#details pre{white-space:pre-wrap;word-break:break-word;background:#f3f3f3;padding:.4em;margin:.2em 0}
#details code{word-break:break-all;background:#eef;padding:.1em .3em;display:block}
#details table{border-collapse:collapse;width:100%}#details td,#details th{border-top:1px solid #ddd;padding:.3em;vertical-align:top;text-align:left}
#close{float:right;font-size:1.4em;border:0;background:none;cursor:pointer}
details.why{font-size:.88em;color:#444}
"""

SCRIPT = r"""
(function () {
  "use strict";
  var D = JSON.parse(document.getElementById("matrix-data").textContent);
  var STYLE = JSON.parse(document.getElementById("verdict-style").textContent);
  var S = D.s, B = D.b, NB = B.length, C = D.c, N = C.length / 5, NV = D.v.length;
  var JRANK = {"not-judged": 0, "expected": 1, "known-bug": 2, "unexpected": 3};
  var JBY = [], SELS = ["sdag", "gisel"];
  Object.keys(JRANK).forEach(function (k) { JBY[JRANK[k]] = k; });
  var view = NB > 1 ? -1 : 0, expanded = {}, selected = -1;
  function str(k) { return k < 0 ? null : S[k]; }
  function untail(code, prefix) { return code < 0 ? null : (code & 1 ? prefix : "") + S[code >> 1]; }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function vname(k) { return D.v[k]; }
  function vstyle(k) { return STYLE[D.v[k]] || ["?", "#444444"]; }
  function vclass(k) { return STYLE[D.v[k]] ? "v-" + D.v[k] : "v-other"; }
  // outcome fields: flags, verdicts, judgments, messages, metrics, commands (one per build each)
  function oVerdict(o, b) { return D.o[o][1 + b]; }
  function oJudg(o, b) { var j = D.o[o][1 + NB + b]; return j < 0 ? null : D.j[j]; }
  function changed(o) { return (D.o[o][0] & 2) !== 0; }
  function differs(o) { return (D.o[o][0] & 1) !== 0; }
  function worstJudgment(o, b) {
    var w = -1;
    for (var k = 0; k < NB; k++) {
      if (b >= 0 && k !== b) continue;
      var j = oJudg(o, k);
      if (j !== null && JRANK[j] > w) w = JRANK[j];
    }
    return w;
  }

  // ---- rows: AMDGPU one per intrinsic, NVPTX one per variant of a family and shape
  var targets = [{rows: [], byKey: {}}, {rows: [], byKey: {}}];
  var intrRow = D["in"].map(function (e) {
    var name = S[e[0]], t = targets[e[1]], nv = e[1] === 1 && e[3] >= 0;
    var key = nv ? S[e[3]] + "\u0000" + S[e[4]] : name;
    if (!(key in t.byKey)) {
      t.byKey[key] = t.rows.length;
      t.rows.push({key: key, group: nv ? S[e[3]] : name.split(".")[0], label: nv ? S[e[4]] : name, names: {}});
    }
    t.rows[t.byKey[key]].names[name] = 1;
    return t.byKey[key];
  });
  var cellRow = new Int32Array(N);
  for (var i = 0; i < N; i++) cellRow[i] = intrRow[C[5 * i]];
  function cellTarget(i) { return D["in"][C[5 * i]][1]; }

  // ---- one cell, decoded
  function cell(i) {
    var e = D["in"][C[5 * i]], f = D.f[C[5 * i + 2]], o = C[5 * i + 3], x = C[5 * i + 4], name = S[e[0]];
    var c = {index: i, intrinsic: name, target: e[1], defaultCpu: str(e[2]), cpu: S[D.cpu[C[5 * i + 1]][0]],
      fmt_a: S[f[0]], fmt_b: S[f[1]], width_a: f[2], width_b: f[3], required_a: f[4], required_b: f[5], opt: f[6],
      pipeline: S[f[7]], cls: S[f[8]], selector: S[f[9]], fn: untail(f[10], name.replace(/\./g, "_")),
      args: f[11] < 0 ? [] : JSON.parse(S[f[11]]), variant: S[f[12]], narrowing: str(f[13]), outcome: o,
      verdicts: [], judgments: [], details: [], metrics: [], commands: []};
    var row = D.o[o];
    for (var b = 0; b < NB; b++) {
      c.verdicts.push(vname(row[1 + b]));
      c.judgments.push(oJudg(o, b));
      c.details.push(S[row[1 + 2 * NB + b]]);
      c.metrics.push(row[1 + 3 * NB + b] < 0 ? null : D.m[row[1 + 3 * NB + b]]);
      var k = row[1 + 4 * NB + b];
      c.commands.push(k === 1 ? null : k === 0 ? tryCommand(c, B[b]) : S[k - 2]);
    }
    if (x >= 0) {
      var xe = D.x[x];
      c.file = untail(xe[0], name + ".");
      c.fileCells = xe[1];
      c.knownBug = str(xe[2]);
      c.expected = str(xe[3]);
    }
    return c;
  }
  function quote(s) {
    if (s === "") return "''";
    return /^[A-Za-z0-9_@%+=:,.\/-]+$/.test(s) ? s : "'" + s.replace(/'/g, "'\"'\"'") + "'";
  }
  function tryCommand(c, build) {  // compare.try_command, word for word (html_data checks each one)
    var w = ["harness", "try", "--intrinsic", c.intrinsic, "--fmt-a", c.fmt_a, "--fmt-b", c.fmt_b, "--width-a",
      String(c.width_a), "--width-b", String(c.width_b), "--selector", c.selector];
    if (c.opt) w.push("-O", String(c.opt));
    if (c.cpu && c.cpu !== c.defaultCpu) w.push("--cpu", c.cpu);
    var p = c.pipeline, extra = build.pipeline || "none";
    if (extra !== "none") p = p === "none" ? extra : p + "," + extra;
    if (p !== "none") w.push("--pipeline", p);
    c.args.forEach(function (kv) { w.push("--arg", kv[0] + "=" + kv[1]); });
    if (c.narrowing) w.push("--narrowing", c.narrowing);
    if (build.bin && build.bin !== "PATH") w.push("--llvm-bin", build.bin);
    return w.map(quote).join(" ");
  }

  // ---- filters
  var changeFilter = document.getElementById("change-filter"), judgmentFilter = document.getElementById("judgment-filter");
  var nameFilter = document.getElementById("name-filter");
  function keptOutcome(o) {
    var want = changeFilter ? changeFilter.value : "all";
    if (want === "changed" && !changed(o)) return false;
    if (want === "cannot-judge" && !(differs(o) && !changed(o))) return false;
    if (want === "same" && differs(o)) return false;
    var j = judgmentFilter.value;
    if (j === "any") return true;
    for (var b = 0; b < NB; b++) if ((view < 0 || b === view) && oJudg(o, b) === j) return true;
    return false;
  }
  function rowMatches(row) {
    var q = nameFilter.value.trim().toLowerCase();
    if (!q) return true;
    if (row.label.toLowerCase().indexOf(q) >= 0 || row.group.toLowerCase().indexOf(q) >= 0) return true;
    return Object.keys(row.names).some(function (n) { return n.toLowerCase().indexOf(q) >= 0; });
  }

  // ---- sums: per target, row and processor, over the cells the filters keep
  var ACC = 4 + NV + NB * NV;  // n, changed, differ-unjudged, worst judgment, verdicts in view, changed verdicts per build
  function tally() {
    var keep = D.o.map(function (_, o) { return keptOutcome(o); });
    var rowOk = targets.map(function (t) { return t.rows.map(rowMatches); });
    var sums = [new Map(), new Map()], kept = [];
    var NC = D.cpu.length;
    for (var i = 0; i < N; i++) {
      var o = C[5 * i + 3], t = cellTarget(i), r = cellRow[i];
      if (!keep[o] || !rowOk[t][r]) continue;
      kept.push(i);
      var key = r * NC + C[5 * i + 1], a = sums[t].get(key);
      if (!a) { a = new Int32Array(ACC); a[3] = -1; sums[t].set(key, a); }
      var row = D.o[o];
      a[0]++;
      if (row[0] & 2) {
        a[1]++;
        for (var b = 0; b < NB; b++) a[4 + NV + b * NV + row[1 + b]]++;
      } else if (row[0] & 1) a[2]++;
      var w = worstJudgment(o, view);
      if (w > a[3]) a[3] = w;
      a[4 + row[1 + (view < 0 ? NB - 1 : view)]]++;
    }
    return {sums: sums, kept: kept};
  }
  function most(a, from) {
    var best = -1;
    for (var v = 0; v < NV; v++) if (a[from + v] > 0 && (best < 0 || a[from + v] > a[from + best])) best = v;
    return best;
  }
  function stripes(verdicts) {
    var n = verdicts.length, stops = [];
    verdicts.forEach(function (v, k) {
      var c = vstyle(v)[1];
      stops.push(c + " " + (100 * k / n) + "%", c + " " + (100 * (k + 1) / n) + "%");
    });
    return "linear-gradient(90deg," + stops.join(",") + ")";
  }
  function sumSquare(a) {
    var s = el("span", "sq"), v = most(a, 4);
    s.className = "sq j-" + (a[3] >= 0 ? JBY[a[3]] : "not-judged") + (a[1] ? " has-chg" : "");
    if (view < 0 && a[1]) {
      var per = [];
      for (var b = 0; b < NB; b++) per.push(most(a, 4 + NV + b * NV));
      s.style.background = stripes(per);
      s.textContent = a[1] > 99 ? "99+" : String(a[1]);
    } else {
      s.classList.add(vclass(v));
      if (view < 0) s.classList.add(a[2] ? "udiff" : "same");
      s.textContent = vstyle(v)[0];
    }
    return s;
  }
"""

SCRIPT += r"""
  // ---- the summary table of one target
  function sumTitle(row, cpu, a) {
    var lines = [row.label + " on " + cpu + ": " + a[0] + " cell(s), " + a[1] + " change verdict"];
    if (a[2]) lines.push(a[2] + " differ only because a build cannot judge them");
    var vs = [];
    for (var v = 0; v < NV; v++) if (a[4 + v]) vs.push(D.v[v] + " " + a[4 + v]);
    lines.push((view < 0 ? B[NB - 1].id : B[view].id) + ": " + vs.join(", "));
    lines.push("worst judgment: " + (a[3] >= 0 ? JBY[a[3]] : "none"));
    return lines.join("\n");
  }
  function colgroup(cols) {
    var g = el("colgroup"), first = el("col"), second = el("col");
    first.style.width = "300px";
    second.style.width = "80px";
    g.appendChild(first);
    g.appendChild(second);
    cols.forEach(function () { var c = el("col"); c.style.width = "22px"; g.appendChild(c); });
    return g;
  }
  function chunkTable(cols, rowsShown) {  // rows laid out only near the viewport (content-visibility)
    var box = el("div", "chunk"), table = el("table", "sum"), body = el("tbody");
    box.style.containIntrinsicSize = "auto " + (rowsShown * 22 + 24) + "px";
    table.appendChild(colgroup(cols));
    table.style.width = (380 + 22 * cols.length) + "px";
    table.appendChild(body);
    box.appendChild(table);
    return {box: box, body: body};
  }
  function drawTarget(t, sums) {
    var box = document.querySelector('section.target[data-target="' + t + '"]');
    if (!box) return 0;
    var holder = box.querySelector(".tablebox"), NC = D.cpu.length, rows = [], cols = [], colSeen = {};
    targets[t].rows.forEach(function (row, r) {
      var any = false;
      for (var c = 0; c < NC; c++) if (sums.has(r * NC + c)) { any = true; colSeen[c] = 1; }
      if (any) rows.push(r);
    });
    for (var c = 0; c < NC; c++) if (colSeen[c]) cols.push(c);
    holder.textContent = "";
    box.hidden = rows.length === 0;
    if (!rows.length) return 0;
    var top = el("table", "sum head"), head = el("tr"), group = null, chunk = null, inChunk = 0;
    top.appendChild(colgroup(cols));
    top.style.width = (380 + 22 * cols.length) + "px";
    head.appendChild(el("th", "", t === 1 ? "variant \\ SM" : "intrinsic \\ processor"));
    head.appendChild(el("th", "", "cells · changed"));
    cols.forEach(function (c) { head.appendChild(el("th", "cpu", S[D.cpu[c][0]])); });
    top.appendChild(el("thead")).appendChild(head);
    holder.appendChild(top);
    rows.forEach(function (r, k) {
      var row = targets[t].rows[r];
      if (row.group !== group || inChunk >= 24) {
        var left = 0;
        while (k + left < rows.length && left < 24 && targets[t].rows[rows[k + left]].group === row.group) left++;
        chunk = chunkTable(cols, left + 1);
        holder.appendChild(chunk.box);
        inChunk = 0;
        if (row.group !== group) {
          group = row.group;
          var g = el("tr", "group"), th = el("th", "", group);
          th.colSpan = cols.length + 2;
          g.appendChild(th);
          chunk.body.appendChild(g);
        }
      }
      inChunk++;
      drawRow(t, r, row, cols, sums, chunk.body);
    });
    return rows.length;
  }
  function drawRow(t, r, row, cols, sums, body) {
    var tr = el("tr"), n = 0, chg = 0, NC = D.cpu.length;
    var th0 = el("th"), button = el("button", "row", row.label), id = t + ":" + r;
    button.type = "button";
    button.title = Object.keys(row.names).join("\n");
    button.setAttribute("aria-expanded", String(!!expanded[id]));
    button.addEventListener("click", function () { toggle(id); });
    th0.appendChild(button);
    tr.setAttribute("data-row", row.label);
    tr.setAttribute("data-r", String(r));
    tr.appendChild(th0);
    var count = el("td", "n");
    tr.appendChild(count);
    cols.forEach(function (c) {
      var a = sums.get(r * NC + c), td = el("td");
      if (a) {
        n += a[0];
        chg += a[1];
        td.setAttribute("data-cpu", S[D.cpu[c][0]]);
        td.setAttribute("data-n", String(a[0]));
        td.setAttribute("data-changed", String(a[1]));
        td.setAttribute("data-judgment", a[3] >= 0 ? JBY[a[3]] : "none");
        td.appendChild(sumSquare(a));
      }
      tr.appendChild(td);
    });
    count.appendChild(document.createTextNode(n + " · "));
    count.appendChild(el("b", "", chg));
    body.appendChild(tr);
    if (expanded[id]) body.appendChild(drawForms(t, r, cols.length + 2));
  }
  // a table cell's summary, on hover (made then, not for every cell up front)
  document.addEventListener("mouseover", function (e) {
    var sq = e.target.closest ? e.target.closest("span.sq") : null;
    if (!sq || sq.title) return;
    var td = sq.parentNode, tr = td.parentNode, t = Number(tr.closest("section.target").getAttribute("data-target"));
    var r = Number(tr.getAttribute("data-r")), cpu = td.getAttribute("data-cpu");
    var c = D.cpu.findIndex(function (e) { return S[e[0]] === cpu; });
    var a = current.sums[t].get(r * D.cpu.length + c);
    if (a) sq.title = sumTitle(targets[t].rows[r], cpu, a);
  });
  document.addEventListener("click", function (e) {
    var sq = e.target.closest ? e.target.closest("span.sq") : null;
    if (!sq) return;
    var tr = sq.parentNode.parentNode, button = tr.querySelector("button.row");
    if (button.getAttribute("aria-expanded") !== "true") button.click();
  });
"""

SCRIPT += r"""
  // ---- one row opened: form x processor, one square per cell and selector
  var current = null;
  function formLabel(f) {
    var parts = [S[f[8]], S[f[0]] + "×" + S[f[1]], "v" + f[2] + "×v" + f[3]];
    if (S[f[12]]) parts.push(S[f[12]]);
    parts.push("-O" + f[6]);
    if (S[f[7]] !== "none") parts.push(S[f[7]]);
    return parts.join(" ");
  }
  function drawForms(t, r, span) {
    var tr = el("tr", "open"), td = el("td"), cells = [], cols = [], colSeen = {}, forms = [], byForm = {};
    td.colSpan = span;
    current.kept.forEach(function (i) { if (cellTarget(i) === t && cellRow[i] === r) cells.push(i); });
    cells.forEach(function (i) {
      var f = D.f[C[5 * i + 2]], key = f.slice(0, 9).concat(f.slice(11)).join("|");
      if (!(key in byForm)) { byForm[key] = {f: f, at: {}, first: C[5 * i + 2]}; forms.push(byForm[key]); }
      var col = C[5 * i + 1];
      if (!colSeen[col]) { colSeen[col] = 1; cols.push(col); }
      (byForm[key].at[col] = byForm[key].at[col] || []).push(i);
    });
    cols.sort(function (x, y) { return x - y; });
    forms.sort(function (x, y) { return x.first - y.first; });
    var table = el("table", "forms"), head = el("tr"), body = el("tbody");
    head.appendChild(el("th", "", "form \\ " + (t === 1 ? "SM" : "processor")));
    cols.forEach(function (c) { head.appendChild(el("th", "cpu", S[D.cpu[c][0]])); });
    table.appendChild(el("thead")).appendChild(head);
    forms.forEach(function (form) {
      var row = el("tr"), th = el("th", "", formLabel(form.f));
      th.title = "A " + S[form.f[0]] + " v" + form.f[2] + " (reads " + form.f[4] + "), B " + S[form.f[1]] + " v" +
        form.f[3] + " (reads " + form.f[5] + ")";
      row.appendChild(th);
      cols.forEach(function (c) {
        var cellTd = el("td");
        (form.at[c] || []).sort(function (x, y) {
          return SELS.indexOf(S[D.f[C[5 * x + 2]][9]]) - SELS.indexOf(S[D.f[C[5 * y + 2]][9]]);
        }).forEach(function (i) { cellTd.appendChild(square(i)); });
        row.appendChild(cellTd);
      });
      body.appendChild(row);
    });
    table.appendChild(body);
    td.appendChild(el("p", "note", cells.length + " cell(s); one square per selector (sdag, then gisel)"));
    var scroll = el("div");
    scroll.appendChild(table);
    td.appendChild(scroll);
    tr.appendChild(td);
    return tr;
  }
  function square(i) {
    var o = C[5 * i + 3], b = el("button", "sc"), f = D.f[C[5 * i + 2]], row = D.o[o];
    var name = S[D["in"][C[5 * i]][0]];
    b.type = "button";
    b.setAttribute("data-cell", String(i));
    b.setAttribute("data-function", untail(f[10], name.replace(/\./g, "_")));
    b.setAttribute("data-selector", S[f[9]]);
    b.setAttribute("data-cpu", S[D.cpu[C[5 * i + 1]][0]]);
    var w = worstJudgment(o, view);
    b.className = "sc j-" + (w >= 0 ? JBY[w] : "not-judged");
    if (view < 0 && differs(o)) {
      var vs = [];
      for (var k = 0; k < NB; k++) vs.push(row[1 + k]);
      b.style.background = stripes(vs);
      b.classList.add(changed(o) ? "chg" : "udiff");
    } else {
      var v = row[1 + (view < 0 ? 0 : view)];
      b.classList.add(vclass(v));
      if (view < 0) b.classList.add("same");
      b.textContent = vstyle(v)[0];
    }
    if (i === selected) b.classList.add("sel");
    b.title = hover(i);
    return b;
  }
  function hover(i) {
    var c = cell(i), lines = [c.fn + " [" + c.selector + "] on " + c.cpu + " -O" + c.opt];
    for (var b = 0; b < NB; b++) {
      var d = String(c.details[b] || "").split("\n")[0];
      lines.push(B[b].id + ": " + c.verdicts[b] + " (" + (c.judgments[b] || "no judgment") + ")" + (d ? " — " + d : ""));
    }
    return lines.join("\n");
  }
  function toggle(id) {
    if (expanded[id]) delete expanded[id]; else expanded[id] = 1;
    paint();
  }
"""

SCRIPT += r"""
  // ---- view switch, controls, paint
  var views = document.getElementById("views"), buttons = [];
  function addView(index, text) {
    var b = el("button", "", text);
    b.type = "button";
    b.setAttribute("data-view", String(index));
    b.addEventListener("click", function () { view = index; paint(); });
    views.appendChild(b);
    buttons.push(b);
  }
  if (NB > 1) addView(-1, "diff");
  B.forEach(function (b, k) { addView(k, b.id); });
  [changeFilter, judgmentFilter].forEach(function (s) { if (s) s.addEventListener("change", function () { paint(); }); });
  nameFilter.addEventListener("input", function () { paint(); });
  nameFilter.addEventListener("change", function () { paint(); });
  var expandAll = document.getElementById("expand-all"), LIMIT = 3000;
  expandAll.addEventListener("click", function () {
    var open = Object.keys(expanded).length > 0;
    expanded = {};
    if (!open && current.kept.length <= LIMIT) current.kept.forEach(function (i) { expanded[cellTarget(i) + ":" + cellRow[i]] = 1; });
    paint();
  });
  function paint() {
    current = tally();
    var kept = current.kept, chg = 0, udiff = 0, rows = 0;
    kept.forEach(function (i) {
      var o = C[5 * i + 3];
      if (changed(o)) chg++; else if (differs(o)) udiff++;
    });
    [0, 1].forEach(function (t) { rows += drawTarget(t, current.sums[t]); });
    buttons.forEach(function (b) { b.setAttribute("aria-pressed", String(Number(b.getAttribute("data-view")) === view)); });
    var shown = document.getElementById("shown");
    shown.textContent = "Showing " + (view >= 0 ? B[view].id : "the diff") + ": " + kept.length + " of " + N + " cells in " +
      rows + " row(s)" + (NB > 1 ? "; " + chg + " change verdict, " + udiff + " differ only because a build cannot judge them, " +
      (kept.length - chg - udiff) + " the same" : "") + ".";
    shown.setAttribute("data-kept", String(kept.length));
    shown.setAttribute("data-changed", String(chg));
    document.getElementById("nothing").hidden = kept.length > 0;
    expandAll.textContent = Object.keys(expanded).length ? "close all rows" : "open all rows";
    expandAll.disabled = !Object.keys(expanded).length && kept.length > LIMIT;
    expandAll.title = expandAll.disabled ? "more than " + LIMIT + " cells shown: filter first, or open one row" : "";
  }
"""

SCRIPT += r"""
  // ---- details of one square
  var panel = document.getElementById("details"), detailBody = document.getElementById("detail-body");
  function facts(c) {
    var out = [c.intrinsic + " on " + c.cpu, "A " + c.fmt_a + " v" + c.width_a + " (reads " + c.required_a + ")",
      "B " + c.fmt_b + " v" + c.width_b + " (reads " + c.required_b + ")", c.selector, "-O" + c.opt, c.cls];
    if (c.variant) out.push(c.variant);
    if (c.pipeline !== "none") out.push("pipeline " + c.pipeline);
    return out.join(" · ");
  }
  function show(i) {
    var c = cell(i);
    selected = i;
    document.querySelectorAll(".sc.sel").forEach(function (b) { b.classList.remove("sel"); });
    var mine = document.querySelector('.sc[data-cell="' + i + '"]');
    if (mine) mine.classList.add("sel");
    detailBody.textContent = "";
    detailBody.appendChild(el("h2", "", c.fn));
    detailBody.appendChild(el("p", "", facts(c)));
    if (c.file) detailBody.appendChild(el("p", "file", "lit file " + c.file + (c.fileCells && c.fileCells.length ? " (cells per build: " + c.fileCells.join(", ") + ")" : "")));
    if (c.expected) detailBody.appendChild(el("p", "", "expected verdict: " + c.expected));
    if (c.knownBug) detailBody.appendChild(el("p", "known-bug", "known bug: " + c.knownBug));
    var table = el("table"), tb = el("tbody");
    B.forEach(function (b, k) {
      var tr = el("tr"), td = el("td"), v = D.o[c.outcome][1 + k];
      tr.setAttribute("data-build", String(k));
      td.appendChild(el("span", "sw " + vclass(v) + " j-" + (c.judgments[k] || "not-judged"), vstyle(v)[0]));
      td.appendChild(el("b", "verdict", c.verdicts[k]));
      if (c.judgments[k]) td.appendChild(el("span", "judgment", " (" + c.judgments[k] + ")"));
      if (c.details[k]) td.appendChild(el("pre", "message", c.details[k]));
      var m = c.metrics[k];
      if (m) td.appendChild(el("div", "metrics", D.mk.map(function (name, n) { return m[n] === null ? null : name + " " + m[n]; })
        .filter(function (x) { return x; }).join(", ")));
      if (c.commands[k]) td.appendChild(el("code", "command", c.commands[k]));
      tr.appendChild(el("th", "", b.id));
      tr.appendChild(td);
      tb.appendChild(tr);
    });
    table.appendChild(tb);
    detailBody.appendChild(table);
    panel.hidden = false;
  }
  document.addEventListener("click", function (e) {
    var b = e.target.closest ? e.target.closest("button.sc") : null;
    if (b) show(Number(b.getAttribute("data-cell")));
  });
  document.getElementById("close").addEventListener("click", function () { panel.hidden = true; });
  document.addEventListener("keydown", function (e) { if (e.key === "Escape") panel.hidden = true; });
  paint();
  document.body.setAttribute("data-ready-ms", String(Math.round(performance.now())));
  document.body.setAttribute("data-ready", "1");
})();
"""
