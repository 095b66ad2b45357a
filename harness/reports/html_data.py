"""The compact form of a matrix document that the HTML page embeds and its script reads.

Every string is interned once (`s`); what repeats across cells is a row of a table, and a cell is
five small integers, flattened into `c`: its intrinsic (`in`), processor (`cpu`), form (`f`),
outcome on every build (`o`) and extra facts (`x`, -1 for none).

    {"v": verdict names, "j": judgment names, "b": builds, "s": strings, "mk": metric names,
     "cpu": [[name, target]] in table order (target 0 AMDGPU, 1 NVPTX),
     "in": [[name, target, default CPU, NVPTX grid title, NVPTX grid row]],
     "f": [[fmt_a, fmt_b, width_a, width_b, required_a, required_b, opt, pipeline, class,
            selector, function, args (JSON of [index, value] pairs), variant label,
            narrowing]],                                     # sorted in display order
     "m": [[one value per metric name, null where absent]],
     "o": [[flags, verdict per build..., judgment per build..., message per build...,
            metrics per build..., command per build...]],
     "x": [[file, [file_cells per build], known_bug, expected]],
     "c": [intrinsic, cpu, form, outcome, extra, ...]}

Strings are indexes into `s`, -1 for none. A function name or file name that starts with its
intrinsic's spelling (`mfma_f32_32x32x8f16__a_half_v4...`) is stored as the rest, code 2k+1
(2k: the whole string `s[k]`). Outcome flags: 1 the verdicts differ, 2 the cell changes verdict
(`report.changed`, the page's one meaning of "changed"). A command is 0 where the page's script
rebuilds exactly `compare.try_command`'s line from the cell, 1 none, k+2 the string `s[k]`.
"""

from __future__ import annotations

import json

from harness.core.verdicts import ALL
from harness.reports import compare, report
from harness.specs.cases import CLASSES, SELECTORS
from harness.targets import catalog, formats, processors, sms

JUDGMENTS = ("expected", "known-bug", "unexpected", "not-judged")
AMDGPU, NVPTX = 0, 1


class _Table:
    """Interning: each distinct value gets the next index."""

    def __init__(self) -> None:
        self.index: dict = {}
        self.rows: list = []

    def __call__(self, value) -> int:
        at = self.index.get(value)
        if at is None:
            at = self.index[value] = len(self.rows)
            self.rows.append(value)
        return at


def target_of(cell: dict) -> int:
    return NVPTX if "grid" in cell else AMDGPU


def _tail(strings: _Table, text: str | None, prefix: str) -> int:
    if text is None:
        return -1
    if prefix and text.startswith(prefix) and len(text) > len(prefix):
        return 2 * strings(text[len(prefix) :]) + 1
    return 2 * strings(text)


def _opt_str(strings: _Table, text) -> int:
    return -1 if text is None else strings(str(text))


def _default_cpu(name: str) -> str | None:
    try:
        return catalog.lookup(name).default_cpu
    except KeyError:
        return None


def _variant(c: dict) -> str:
    """What tells a cell apart beyond formats and widths: immarg values, narrowing, element types, a check class."""
    parts = [f"arg{k}={v}" for k, v in (c.get("args") or {}).items()]
    parts += [c["narrowing"]] if c.get("narrowing") else []
    parts += [f"A {c['elem_a']}"] if c.get("elem_a") else []
    parts += [f"B {c['elem_b']}"] if c.get("elem_b") else []
    cls = str(c.get("class", ""))
    if cls in ("ir", "ir-malformed", "object") or cls.startswith("diagnostic"):
        parts.append(cls)
    return " ".join(parts)


def _cpu_order(names: set[str]) -> list[tuple[str, int]]:
    """The processors present, AMDGPU's table order then NVPTX's, any other by name after."""
    table = [(p.name, AMDGPU) for p in processors.AMDGPU_PROCESSORS] + [(s.name, NVPTX) for s in sms.NVPTX_SMS]
    known = [(n, t) for n, t in table if n in names]
    rest = sorted(names - {n for n, _ in known})
    return known + [(n, NVPTX if n.startswith("sm_") else AMDGPU) for n in rest]


def _form_key(row: tuple, strings: list) -> tuple:
    """Display order of forms: -O, pipeline, class, formats, widths, variant, function, selector."""
    rank = lambda seq, v: seq.index(v) if v in seq else len(seq)
    fa, fb, wa, wb, _, _, opt, pipe, cls, sel, fn, _, var, _ = row
    name = lambda i: "" if i < 0 else strings[i]
    return (
        rank(CLASSES, name(cls)),
        rank(formats.SHORT, name(fa)),
        name(fa),
        rank(formats.SHORT, name(fb)),
        name(fb),
        wa,
        wb,
        name(var),
        opt,
        name(pipe),
        fn,
        rank(SELECTORS, name(sel)),
    )


class Encoder:
    """Builds the compact document of one matrix document (`encode`)."""

    def __init__(self, doc: dict) -> None:
        self.builds = doc["builds"]
        self.strings = _Table()
        self.intrinsics, self.forms, self.metrics = _Table(), _Table(), _Table()
        self.outcomes, self.extras = _Table(), _Table()
        self.verdicts = list(ALL) + sorted({v for c in doc["cells"] for v in c["verdicts"]} - set(ALL))
        self.metric_names = list(report.METRICS) + sorted(
            {k for c in doc["cells"] for m in c.get("metrics") or [] if m for k in m} - set(report.METRICS)
        )
        self.defaults: dict[str, str | None] = {}

    def intrinsic(self, c: dict) -> int:
        name = c["intrinsic"]
        if name not in self.defaults:
            self.defaults[name] = _default_cpu(name)
        grid = c.get("grid") or {}
        s = self.strings
        row = (
            s(name),
            target_of(c),
            _opt_str(s, self.defaults[name]),
            _opt_str(s, grid.get("title")),
            _opt_str(s, grid.get("row")),
        )
        return self.intrinsics(row)

    def form(self, c: dict) -> int:
        s = self.strings
        args = c.get("args")
        return self.forms(
            (
                s(str(c["fmt_a"])),
                s(str(c["fmt_b"])),
                c["width_a"],
                c["width_b"],
                c.get("required_a", c["width_a"]),
                c.get("required_b", c["width_b"]),
                c["opt"],
                s(c["pipeline"]),
                s(str(c["class"])),
                s(c["selector"]),
                _tail(s, c["function"], c["intrinsic"].replace(".", "_")),
                -1 if not args else s(json.dumps([[k, v] for k, v in args.items()], separators=(",", ":"))),
                s(_variant(c)),
                _opt_str(s, c.get("narrowing")),
            )
        )

    def metric(self, m) -> int:
        if not m:
            return -1
        return self.metrics(tuple(m.get(k) for k in self.metric_names))

    def command(self, c: dict, i: int) -> int:
        given = (c.get("commands") or [None] * len(self.builds))[i]
        if given is None:
            return 1
        if "elem_a" not in c and "elem_b" not in c and given == compare.try_command(c, self.builds[i]):
            return 0
        return self.strings(given) + 2

    def outcome(self, c: dict) -> int:
        n, s = len(self.builds), self.strings
        flags = (len(set(c["verdicts"])) > 1) | (report.changed(c) << 1)
        judged = c.get("judgments") or [None] * n
        details = c.get("details") or [""] * n
        metrics = c.get("metrics") or [None] * n
        return self.outcomes(
            (
                flags,
                *(self.verdicts.index(v) for v in c["verdicts"]),
                *(JUDGMENTS.index(j) if j in JUDGMENTS else -1 for j in judged),
                *(s(d or "") for d in details),
                *(self.metric(m) for m in metrics),
                *(self.command(c, i) for i in range(n)),
            )
        )

    def extra(self, c: dict) -> int:
        if not any(k in c for k in ("file", "known_bug", "expected")):
            return -1
        s = self.strings
        whole = c.get("file_cells")
        return self.extras(
            (
                _tail(s, c.get("file"), c["intrinsic"] + "."),
                tuple(whole) if isinstance(whole, list) else () if whole is None else (whole,),
                _opt_str(s, c.get("known_bug")),
                _opt_str(s, c.get("expected")),
            )
        )

    def encode(self, cells: list[dict]) -> dict:
        cpus = _cpu_order({c["cpu"] for c in cells})
        cpu_at = {name: i for i, (name, _) in enumerate(cpus)}
        flat: list[int] = []
        for c in cells:
            flat += (self.intrinsic(c), cpu_at[c["cpu"]], self.form(c), self.outcome(c), self.extra(c))
        order = sorted(range(len(self.forms.rows)), key=lambda i: _form_key(self.forms.rows[i], self.strings.rows))
        place = {old: new for new, old in enumerate(order)}
        for k in range(2, len(flat), 5):
            flat[k] = place[flat[k]]
        return {
            "v": self.verdicts,
            "j": list(JUDGMENTS),
            "b": self.builds,
            "mk": self.metric_names,
            "cpu": [[self.strings(n), t] for n, t in cpus],
            "in": self.intrinsics.rows,
            "f": [self.forms.rows[i] for i in order],
            "m": self.metrics.rows,
            "o": self.outcomes.rows,
            "x": self.extras.rows,
            "c": flat,
            "s": self.strings.rows,
        }


def encode(doc: dict) -> dict:
    return Encoder(doc).encode(doc["cells"])
