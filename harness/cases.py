"""Cases: one intrinsic call with fixed formats and source widths, and their expansion from specs.

Width policies are resolved against the catalog: `exact` is the register count the format
reads, `overwide`/`underwide` are every legal width above/below it, `max` the widest legal one.
Cases are grouped so that every case in a group is expected to behave alike (the file class).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from pathlib import Path

from harness import catalog, formats
from harness.catalog import Intrinsic
from harness.errors import InputError
from harness.spec import Block, Value, load_spec

SELECTORS = ("sdag", "gisel")
OPT_LEVELS = (0, 1, 2, 3)
POLICIES = ("exact", "max", "overwide", "underwide")
# File classes, in the order a case is tested against them.
CLASSES = ("illegal", "underwide", "overwide", "exact")
VERIFIER_CLASSES = ("illegal", "underwide")


@dataclass(frozen=True)
class Case:
    intrinsic: Intrinsic
    cpu: str
    fmt_a: int
    fmt_b: int
    width_a: int
    width_b: int
    opt: int = 0

    def fmt(self, side: str) -> int:
        return self.fmt_a if side == "a" else self.fmt_b

    def width(self, side: str) -> int:
        return self.width_a if side == "a" else self.width_b

    def required(self, side: str) -> int:
        return self.intrinsic.source(side).regs[self.fmt(side)]

    def side_class(self, side: str) -> str:
        width, need = self.width(side), self.required(side)
        if width not in self.intrinsic.source(side).widths:
            return "illegal"
        return "exact" if width == need else ("overwide" if width > need else "underwide")

    @property
    def file_class(self) -> str:
        sides = {self.side_class("a"), self.side_class("b")}
        return next(c for c in CLASSES if c in sides)

    @property
    def function(self) -> str:
        """IR function name: intrinsic, then each source's format and width."""
        base = self.intrinsic.name.replace(".", "_")
        a = f"a_{formats.short(self.fmt_a)}_v{self.width_a}"
        b = f"b_{formats.short(self.fmt_b)}_v{self.width_b}"
        return f"{base}__{a}__{b}"

    def sort_key(self) -> tuple:
        return (self.intrinsic.name, self.cpu, self.opt, self.fmt_a, self.fmt_b, self.width_a, self.width_b)


@dataclass(frozen=True)
class Planned:
    """A case with the selectors it runs under and the specs that asked for it."""

    case: Case
    selectors: tuple[str, ...]
    origins: tuple[str, ...]


def widths_for(policy: object, source: catalog.Source, fmt: int) -> list[int]:
    """Concrete widths a policy names for one source in one format (may be empty)."""
    need = source.regs[fmt]
    if isinstance(policy, int):
        return [policy]
    if policy == "exact":
        return [need]
    if policy == "max":
        return [source.widths[-1]]
    if policy == "overwide":
        return [w for w in source.widths if w > need]
    if policy == "underwide":
        return [w for w in source.widths if w < need]
    raise ValueError(policy)


def _check_width(v: Value) -> object:
    if isinstance(v.value, bool) or not (isinstance(v.value, int) or v.value in POLICIES):
        raise v.error(f"width must be a positive integer or one of {', '.join(POLICIES)}; got {v.value!r}")
    if isinstance(v.value, int) and v.value <= 0:
        raise v.error(f"width must be positive; got {v.value}")
    return v.value


def _formats(values: list[Value] | None, source: catalog.Source, side: str, name: str) -> list[int]:
    if values is None or (len(values) == 1 and values[0].value == "all"):
        return list(source.formats)
    out = []
    for v in values:
        try:
            fmt = formats.parse(v.value)
        except ValueError as exc:
            raise v.error(str(exc)) from None
        if fmt not in source.regs:
            allowed = " ".join(formats.short(f) for f in source.formats)
            raise v.error(f"{name} takes only {allowed} for source {side.upper()}")
        out.append(fmt)
    return out


def _matches(rule: dict[str, list[Value]], case: Case, selector: str) -> bool:
    """True when every dimension named by an exclude rule matches the case."""
    for key, values in rule.items():
        if not any(_dim_matches(key, v.value, case, selector) for v in values):
            return False
    return True


def _dim_matches(key: str, value: object, case: Case, selector: str) -> bool:
    if key == "intrinsic":
        return catalog.lookup(str(value)) is case.intrinsic
    if key in ("fmt_a", "fmt_b"):
        return value == "all" or formats.parse(value) == case.fmt(key[-1])
    if key in ("width_a", "width_b"):
        side = key[-1]
        if isinstance(value, int):
            return case.width(side) == value
        return case.width(side) in widths_for(value, case.intrinsic.source(side), case.fmt(side))
    if key == "selector":
        return value == selector
    if key == "opt":
        return value == case.opt
    return value == case.cpu


def _validate_rule(rule: dict[str, list[Value]]) -> None:
    for key, values in rule.items():
        for v in values:
            try:
                if key == "intrinsic":
                    catalog.lookup(str(v.value))
                elif key in ("fmt_a", "fmt_b") and v.value != "all":
                    formats.parse(v.value)
                elif key in ("width_a", "width_b"):
                    _check_width(v)
                elif key == "selector" and v.value not in SELECTORS:
                    raise ValueError(f"selector must be one of {', '.join(SELECTORS)}")
            except (KeyError, ValueError) as exc:
                raise v.error(str(exc).strip('"')) from None


def expand_block(block: Block) -> list[tuple[Case, str]]:
    """Every (case, selector) a block asks for, after excludes."""
    dims = block.dims
    for rule in block.excludes:
        _validate_rule(rule)
    selectors = []
    for v in dims.get("selector", [Value(s, block.path, block.line, block.col) for s in SELECTORS]):
        if v.value not in SELECTORS:
            raise v.error(f"selector must be one of {', '.join(SELECTORS)}; got {v.value!r}")
        selectors.append(v.value)
    opts = []
    for v in dims.get("opt", [Value(0, block.path, block.line, block.col)]):
        if v.value not in OPT_LEVELS or isinstance(v.value, bool):
            raise v.error(f"opt must be one of {', '.join(map(str, OPT_LEVELS))}; got {v.value!r}")
        opts.append(v.value)
    policies_a = [_check_width(v) for v in dims.get("width_a", [])] or ["exact"]
    policies_b = [_check_width(v) for v in dims.get("width_b", [])] or ["exact"]

    out: list[tuple[Case, str]] = []
    for iv in dims["intrinsic"]:
        try:
            intrinsic = catalog.lookup(str(iv.value))
        except KeyError as exc:
            raise iv.error(str(exc).strip('"')) from None
        cpus = []
        for v in dims.get("cpu", [Value(intrinsic.cpus[0], iv.path, iv.line, iv.col)]):
            if v.value not in intrinsic.cpus:
                raise v.error(f"{intrinsic.name} runs on {', '.join(intrinsic.cpus)}, not {v.value!r}")
            cpus.append(v.value)
        fmts_a = _formats(dims.get("fmt_a"), intrinsic.a, "a", intrinsic.name)
        fmts_b = _formats(dims.get("fmt_b"), intrinsic.b, "b", intrinsic.name)
        for cpu, opt, fa, fb in itertools.product(cpus, opts, fmts_a, fmts_b):
            wa = _unique(w for p in policies_a for w in widths_for(p, intrinsic.a, fa))
            wb = _unique(w for p in policies_b for w in widths_for(p, intrinsic.b, fb))
            for width_a, width_b, selector in itertools.product(wa, wb, selectors):
                case = Case(intrinsic, cpu, fa, fb, width_a, width_b, opt)
                if not any(_matches(rule, case, selector) for rule in block.excludes):
                    out.append((case, selector))
    if not out:
        raise block.error("this matrix block expands to no cases")
    return out


def _unique(items) -> list:
    return list(dict.fromkeys(items))


def plan(spec_paths: list[Path]) -> list[Planned]:
    """Expand every spec; a case asked for twice runs once under the union of its selectors."""
    selectors: dict[Case, dict[str, None]] = {}
    origins: dict[Case, dict[str, None]] = {}
    for path in spec_paths:
        for block in load_spec(path):
            for case, selector in expand_block(block):
                selectors.setdefault(case, {})[selector] = None
                origins.setdefault(case, {})[path.name] = None
    planned = [
        Planned(case, tuple(s for s in SELECTORS if s in selectors[case]), tuple(origins[case]))
        for case in selectors
    ]
    return sorted(planned, key=lambda p: p.case.sort_key())


def spec_files(cases_dir: Path) -> list[Path]:
    if not cases_dir.is_dir():
        raise InputError(f"no cases directory at {cases_dir}")
    paths = sorted(p for p in cases_dir.glob("*.yaml") if p.name != "known-bugs.yaml")
    if not paths:
        raise InputError(f"no spec files (*.yaml) in {cases_dir}")
    return paths


@dataclass(frozen=True)
class Group:
    """Cases that share one module and one expected outcome: one generated lit file."""

    intrinsic: Intrinsic
    cpu: str
    opt: int
    file_class: str
    selectors: tuple[str, ...]
    members: tuple[Planned, ...]

    @property
    def cases(self) -> list[Case]:
        return [p.case for p in self.members]

    @property
    def filename(self) -> str:
        sel = "" if self.selectors == SELECTORS else "." + ".".join(self.selectors)
        return f"{self.intrinsic.name}.{self.cpu}.O{self.opt}.{self.file_class}{sel}.ll"

    @property
    def verifier_only(self) -> bool:
        return self.file_class in VERIFIER_CLASSES


def group(planned: list[Planned]) -> list[Group]:
    buckets: dict[tuple, list[Planned]] = {}
    for p in planned:
        c = p.case
        key = (c.intrinsic.name, c.cpu, c.opt, CLASSES.index(c.file_class), p.selectors)
        buckets.setdefault(key, []).append(p)
    groups = []
    for key in sorted(buckets):
        members = tuple(buckets[key])
        first = members[0].case
        groups.append(Group(first.intrinsic, first.cpu, first.opt, first.file_class, key[4], members))
    return groups
