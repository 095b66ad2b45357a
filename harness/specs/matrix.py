"""Expansion: spec blocks -> the planned cases, with every value checked where it was written.

Lists expand as a cartesian product, `exclude` rules drop combinations, and a case asked for
by several blocks runs once under the union of their selectors.
"""

from __future__ import annotations

import fnmatch
import itertools
import re
from pathlib import Path

from harness.core import commands
from harness.core.commands import Selector
from harness.core.errors import InputError
from harness.specs.cases import CHECKS, IMMARG_VALUES, NARROWINGS, OPT_LEVELS, POLICIES, SELECTORS, Case, Planned, widths_for
from harness.specs.spec import Block, Value, load_spec, quote, shorten
from harness.targets import catalog, formats
from harness.targets.catalog import Intrinsic, Role, Side

MAX_WIDTH = 4096  # source vector elements; the legal widths are 4 to 32
MAX_INT_BITS = (1 << 23) - 1  # LLVM's widest integer type
MAX_CASES = 100_000  # a spec past this is a mistake more often than a plan; --max-cases raises it
# Parameter names the emitted function already defines (harness.specs.emit): an `args` %name must differ.
RESERVED_PARAMS = ("a", "b", "c", "out", "a.narrow", "b.narrow")


def _check_width(v: Value) -> object:
    if isinstance(v.value, bool) or not (isinstance(v.value, int) or v.value in POLICIES):
        raise v.error(f"width must be a positive integer or one of {', '.join(POLICIES)}; got {quote(v.value)}")
    if isinstance(v.value, int) and v.value <= 0:
        raise v.error(f"width must be positive; got {quote(v.value)}")
    if isinstance(v.value, int) and v.value > MAX_WIDTH:
        raise v.error(f"width {quote(v.value)} is past what the harness builds (at most {MAX_WIDTH} elements)")
    return v.value


def _formats(values: list[Value] | None, source: catalog.Source, side: Side, name: str) -> list[int]:
    if values is None or (len(values) == 1 and values[0].value == "all"):
        return list(source.formats)
    out = []
    for v in values:
        fmt = _format(v, source)
        if fmt not in source.regs:
            allowed = " ".join(source.name(f) for f in source.formats)
            raise v.error(f"{name} takes only {allowed} for source {side.upper()}")
        out.append(fmt)
    return out


def _format(v: Value, source: catalog.Source | None = None) -> int:
    try:
        return source.parse(v.value) if source is not None else formats.parse(v.value)
    except ValueError:
        if source is not None and source.names != formats.SHORT:  # a fixed type: its one name
            raise v.error(f"not a format of this source: {quote(v.value)} (it takes {' '.join(source.names)})") from None
        raise v.error(f"not a matrix format: {quote(v.value)} (accepted: {formats.spellings()})") from None


def _intrinsics(v: Value) -> tuple[Intrinsic, ...]:
    """The entries a spec's intrinsic value means: a name (an LLVM name with several forms means
    each), or a glob over the entries' names (`smfmac.*`)."""
    text = str(v.value)
    if any(c in text for c in "*?"):
        found = tuple(i for i in catalog.INTRINSICS if fnmatch.fnmatchcase(i.name, text))
        if not found:
            raise v.error(f"no intrinsic matches {quote(text)}")
        return found
    try:
        return catalog.lookup_all(text)
    except KeyError:
        raise v.error(catalog.unknown(text)) from None


def _rule_keys(key: str, v: Value) -> tuple[object, ...]:
    """What an exclude rule's value matches, checked where it is written: the keys `_case_keys`
    gives the cases that the value matches (an intrinsic name or glob: each entry it means)."""
    if key == "intrinsic":
        return tuple(i.name for i in _intrinsics(v))
    return (_rule_key(key, v),)


def _rule_key(key: str, v: Value) -> object:
    value, problem = v.value, ""
    if key in ("fmt_a", "fmt_b"):
        return "all" if value == "all" else _format(v)
    if key in ("width_a", "width_b"):
        return _check_width(v)
    if key == "selector" and value not in SELECTORS:
        problem = f"selector must be one of {', '.join(SELECTORS)}"
    elif key == "opt" and (isinstance(value, bool) or value not in OPT_LEVELS):
        problem = f"opt must be one of {', '.join(map(str, OPT_LEVELS))}"
    elif key == "check" and value not in CHECKS:
        problem = f"check must be one of {', '.join(CHECKS)}"
    elif key == "narrowing" and value not in NARROWINGS[1:] + ("none",):
        problem = f"narrowing must be one of {', '.join(NARROWINGS[1:])} or none"
    elif key in ("elem_a", "elem_b") and _elem(value):
        problem = f"{key}: {_elem(value)}"
    elif key == "pipeline":
        problem = _pipeline(value)
    elif key == "cpu" and value not in catalog.CPUS:
        problem = f"cpu must be one of {', '.join(catalog.CPUS)}"
    if problem:
        raise v.error(problem)
    if key == "selector":
        return str(value)
    return "" if key == "narrowing" and value == "none" else value


def _case_keys(key: str, case: Case, selector: Selector) -> tuple:
    """The rule keys (see `_rule_key`) that match a case in one dimension."""
    if key == "intrinsic":
        return (case.intrinsic.name,)
    if key in ("fmt_a", "fmt_b"):
        return (case.fmt(Side(key[-1])), "all")
    if key in ("width_a", "width_b"):
        side = Side(key[-1])
        width, source, fmt = case.width(side), case.intrinsic.source(side), case.fmt(side)
        return (width, *(p for p in POLICIES if width in widths_for(p, source, fmt)))
    if key == "selector":
        return (str(selector),)
    if key in ("elem_a", "elem_b"):
        return (case.elem(Side(key[-1])),)
    return (getattr(case, key),)


class Excludes:
    """A block's exclude rules, indexed so that a pair costs a few set intersections, not a
    try of every rule: a rule drops a pair when, in every dimension it names, its values hold
    one of the pair's keys. Rules are checked (located errors) and duplicates merged here."""

    def __init__(self, rules: list[dict[str, list[Value]]]):
        unique = dict.fromkeys(
            tuple(sorted((key, frozenset(k for v in values for k in _rule_keys(key, v))) for key, values in rule.items()))
            for rule in rules
        )
        self.everyone = frozenset(range(len(unique)))
        self.named: dict[str, set[int]] = {}  # dimension -> the rules that name it
        self.index: dict[str, dict[object, set[int]]] = {}  # dimension -> key -> rules holding it
        for rid, rule in enumerate(unique):
            for key, values in rule:
                self.named.setdefault(key, set()).add(rid)
                for value in values:
                    self.index.setdefault(key, {}).setdefault(value, set()).add(rid)
        self.memo: dict[tuple, frozenset[int]] = {}

    def drop(self, case: Case, selector: Selector) -> bool:
        if not self.everyone:
            return False
        alive: frozenset[int] | None = None  # the rules no dimension has ruled out yet
        for key in self.index:
            keys = _case_keys(key, case, selector)
            passing = self.memo.get((key, keys))
            if passing is None:  # the rules that do not name `key` or hold one of `keys`
                held = (self.index[key].get(k, ()) for k in keys)
                passing = self.memo[(key, keys)] = (self.everyone - self.named[key]).union(*held)
            alive = passing if alive is None else (alive & passing if len(alive) <= len(passing) else passing & alive)
            if not alive:
                return False
        return True


def _choices(block: Block, key: str, default: list, check) -> list:
    """Validated values of one dimension (its default when the block does not name it)."""
    values = block.dims.get(key)
    if values is None:
        return default
    out = []
    for v in values:
        problem = check(v.value)
        if problem:
            raise v.error(f"{key}: {problem}; got {quote(v.value)}")
        out.append(v.value)
    return out


def _one_of(allowed):
    return lambda value: (
        "" if value in allowed and not isinstance(value, bool) else "must be one of " + ", ".join(map(str, allowed))
    )


def _elem(value) -> str:
    m = re.fullmatch(r"i([0-9]+)", value) if isinstance(value, str) else None
    if m and not (len(m.group(1).lstrip("0")) <= 9 and 1 <= int(m.group(1)) <= MAX_INT_BITS):  # (int(): 4,300 digits)
        return f"LLVM integer types are i1 to i{MAX_INT_BITS}"
    return (
        ""
        if isinstance(value, str) and re.fullmatch(r"i[0-9]+|half|bfloat|float|double", value)
        else "must be an IR scalar type such as i32 or i64"
    )


def _pipeline(value) -> str:
    if not isinstance(value, str):
        return "must be none, instcombine or an opt -passes= pipeline such as function(instcombine<max-iterations=1>)"
    return commands.pass_pipeline_error(value)


def _resolve_args(intrinsic: Intrinsic, pairs: list[tuple[Value, Value]]) -> tuple[tuple[int, str], ...]:
    """Operand overrides as (index, literal); only format operands and neutral literals may change.
    A %name becomes a kernel parameter: one name may stand for several operands of one type."""
    out: dict[int, str] = {}
    params: dict[str, tuple[int, str]] = {}  # %name -> (first operand, its type)
    for key, value in pairs:
        if isinstance(key.value, int) and not isinstance(key.value, bool):
            index = key.value
        elif isinstance(key.value, str) and key.value in intrinsic.operands:
            index = intrinsic.arg_index(key.value)
        else:
            names = " or fmt_a/fmt_b" if intrinsic.runtime_formats else ""
            raise key.error(f"args: {intrinsic.name} has no operand {quote(key.value)} (use an index{names})")
        if not 0 <= index < len(intrinsic.operands):
            raise key.error(f"args: {intrinsic.name} has operands 0..{len(intrinsic.operands) - 1}")
        role = intrinsic.operands[index]
        if role in (*catalog.SOURCE_ROLES, catalog.ACC):
            raise key.error(f"args: operand {index} of {intrinsic.name} is a source, not a constant")
        boolean = _literal_type(intrinsic, role) == "i1"
        v = value.value
        if isinstance(v, bool):
            text = "true" if v else "false"
        else:
            text = str(v)
        literal = r"true|false" if boolean else r"-?[0-9]+"
        if not (re.fullmatch(literal, text) or re.fullmatch(r"%[A-Za-z_][\w.]*", text)):
            kind = "true/false" if boolean else "an integer"
            raise value.error(f"args: operand {index} of {intrinsic.name} takes {kind} or %name (a parameter); got {quote(text)}")
        if index in out:
            raise key.error(f"args: operand {index} of {intrinsic.name} is given twice")
        ty = _literal_type(intrinsic, role)
        if text.startswith("%"):
            _check_param(value, text, index, ty, params)
        if re.fullmatch(r"-?[0-9]+", text):
            bits = int(ty[1:]) if re.fullmatch(r"i[0-9]+", ty) else 64
            if len(text.lstrip("-0")) > 40 or not -(2 ** (bits - 1)) <= int(text) < 2**bits:
                raise value.error(f"args: operand {index} of {intrinsic.name} is {ty}; {shorten(text)} does not fit")
        fmt_side = Role(role).side if role in catalog.FORMAT_ROLES else None
        if fmt_side and text.lstrip("-").isdigit() and int(text) in intrinsic.source(fmt_side).regs:
            raise value.error(
                f"args: choose a valid format with {role}; args may only put a format operand out of range or make it a %name"
            )
        out[index] = text
    return tuple(sorted(out.items()))


def _literal_type(intrinsic: Intrinsic, role: str) -> str:
    """The IR type of an operand `args` may override (a format, the index or a literal)."""
    if role in catalog.FORMAT_ROLES:
        return "i32"
    if role == catalog.INDEX:
        return intrinsic.index_type
    return catalog.literal(role)[0]


def _check_param(value: Value, text: str, index: int, ty: str, params: dict[str, tuple[int, str]]) -> None:
    """A %name must not redefine a name of the emitted function, nor take two types."""
    name = text[1:]
    if name in RESERVED_PARAMS or name.startswith("r."):
        raise value.error(
            f"args: {quote(text)} is a name the kernel already uses (parameters %a %b %c %out; values %a.narrow "
            "%b.narrow %r.*); choose another, such as %f"
        )
    first, first_ty = params.setdefault(name, (index, ty))
    if first_ty != ty:
        raise value.error(
            f"args: {quote(text)} is operand {first} ({first_ty}) and operand {index} ({ty}); one parameter has one type"
        )


def resolve_arg_flags(intrinsic: Intrinsic, flags: list[str]) -> tuple[tuple[int, str], ...]:
    """`N=V` command-line overrides, checked like a spec's `args`."""
    pairs = []
    for flag in flags:
        key, sep, value = flag.partition("=")
        if not sep:
            raise InputError(f"--arg takes N=V (e.g. 5=2 or fmt_b=%f); got {quote(flag)}")
        index = int(key) if re.fullmatch(r"[0-9]{1,9}", key) else key
        pairs.append((Value(index, "--arg", None, None), Value(value, "--arg", None, None)))
    return _resolve_args(intrinsic, pairs)


def expand_block(block: Block, limit: int = MAX_CASES, earlier: int = 0) -> list[tuple[Case, Selector]]:
    """Every (case, selector) a block asks for, after excludes; past `limit` pairs together with
    the `earlier` blocks' pairs, an error that gives the count (counted without building them)."""
    excludes = Excludes(block.excludes)
    selectors = [Selector(s) for s in _choices(block, "selector", list(SELECTORS), _one_of(SELECTORS))]
    opts = _choices(block, "opt", [0], _one_of(OPT_LEVELS))
    pipelines = _choices(block, "pipeline", ["none"], _pipeline)
    written = {v.value: v for v in reversed(block.dims.get("pipeline", []))}  # pipeline -> where
    checks = _choices(block, "check", ["codegen"], _one_of(CHECKS))
    elems_a = _choices(block, "elem_a", [""], _elem)  # "": the intrinsic's own element type
    elems_b = _choices(block, "elem_b", [""], _elem)
    narrowings = [n if n != "none" else "" for n in _choices(block, "narrowing", [""], _one_of(NARROWINGS[1:] + ("none",)))]
    policies_a = [_check_width(v) for v in block.dims.get("width_a", [])] or ["exact"]
    policies_b = [_check_width(v) for v in block.dims.get("width_b", [])] or ["exact"]

    def too_many() -> InputError:
        size = _block_size(block, selectors, opts, pipelines, checks, elems_a, elems_b, narrowings)
        if not earlier:
            return block.error(
                f"this block expands to more than {limit:,} case-selector pairs (up to {size:,}); "
                f"split it or raise --max-cases (default {MAX_CASES:,})"
            )
        return block.error(
            f"the specs together expand to more than {limit:,} case-selector pairs: {earlier:,} before this block, "
            f"which adds up to {size:,}; split them or raise --max-cases (default {MAX_CASES:,})"
        )

    immarg_values = [str(v.value) for v in block.dims.get("immarg", []) if _immarg_value(v)]
    out: list[tuple[Case, Selector]] = []
    chosen = [(iv, i) for iv in block.dims["intrinsic"] for i in _intrinsics(iv)]
    _check_cpus(chosen, block.dims.get("cpu", []))
    for iv, intrinsic in chosen:
        cpus = _cpus(intrinsic, block.dims.get("cpu", [Value(intrinsic.default_cpu, iv.path, iv.line, iv.col)]))
        _check_fixed(block, intrinsic)
        _check_target(block, intrinsic)
        fmts_a = _formats(block.dims.get("fmt_a"), intrinsic.a, Side.A, intrinsic.name)
        fmts_b = _formats(block.dims.get("fmt_b"), intrinsic.b, Side.B, intrinsic.name)
        arg_sets = [_resolve_args(intrinsic, alt) for alt in block.args] or [()]
        if immarg_values:
            arg_sets = [s + extra for s in arg_sets for extra in immarg_sets(intrinsic, immarg_values) if not _overlap(s, extra)]
        shared = itertools.product(cpus, opts, pipelines, checks, elems_a, elems_b, narrowings, arg_sets)
        for (cpu, opt, pipe, check, ea, eb, narrow, args), fa, fb in itertools.product(shared, fmts_a, fmts_b):
            wa = _unique(w for p in policies_a for w in widths_for(p, intrinsic.a, fa))
            wb = _unique(w for p in policies_b for w in widths_for(p, intrinsic.b, fb))
            for width_a, width_b in itertools.product(wa, wb):
                case = Case(intrinsic, cpu, fa, fb, width_a, width_b, opt, pipe, check, args, ea, eb, narrow, written.get(pipe))
                for selector in selectors:
                    if not excludes.drop(case, selector):
                        if earlier + len(out) >= limit:  # stop early: a runaway block costs at most `limit` cases
                            raise too_many()
                        out.append((case, selector))
    if not out:
        raise block.error("this matrix block expands to no cases")
    for case, _ in out:
        if case.check == "ir" and case.pipeline == "none":
            raise block.error("check: ir needs a pipeline (the opt passes whose output is checked)")
        if case.check == "diagnostic" and not case.rejection:
            raise block.error(f"check: diagnostic needs calls the verifier rejects; {case.function} is valid IR")
    return out


def _check_fixed(block: Block, intrinsic: Intrinsic) -> None:
    """A row's source has one type: another width or element type is refused where it is written
    (the intrinsic is not overloaded there, so the module would declare it twice)."""
    for side in Side:
        source = intrinsic.source(side)
        if not source.fixed:
            continue
        for v in block.dims.get(f"width_{side}", []):
            if isinstance(v.value, int) and v.value != source.widths[0]:
                raise v.error(
                    f"{intrinsic.name}'s {side.upper()} is always {source.type_text()}; its width is {source.widths[0]}"
                )
        for v in block.dims.get(f"elem_{side}", []):
            if v.value != source.elem:
                raise v.error(
                    f"{intrinsic.name}'s {side.upper()} is always {source.type_text()}; its element type is {source.elem}"
                )


def _check_target(block: Block, intrinsic: Intrinsic) -> None:
    """What an intrinsic's target cannot do is refused where a spec asks for it: object files
    where llc writes none (NVPTX), and for fragment operands (one per register, not a vector)
    IR narrowing and the checks that read vector sources (ir, diagnostic)."""
    for v in block.dims.get("check", []):
        if v.value == "object" and not intrinsic.target.objects:
            raise v.error(f"check: llc writes no object files for {intrinsic.target.name} ({intrinsic.name})")
        if v.value in ("ir", "diagnostic") and intrinsic.fragments:
            raise v.error(f"check: {v.value} reads vector sources; {intrinsic.name} takes one operand per register")
    for v in block.dims.get("narrowing", []):
        if v.value != "none" and intrinsic.fragments:
            raise v.error(f"narrowing: {intrinsic.name} takes one operand per register, no vector to narrow")
    if snapshot(block) and not intrinsic.target.objects:
        # A snapshot file (litgen.snapshot_file) is an AMDGPU test: its REQUIRES names the AMDGPU
        # target and a CPU of it.
        raise block.dims["snapshot"][0].error(f"snapshot: snapshots are written for AMDGPU rows only, not {intrinsic.name}'s")


CPU_WORDS = ("all", "absent")


def _check_cpus(chosen: list[tuple[Value, Intrinsic]], values: list[Value]) -> None:
    """Each CPU a block names must be one some chosen intrinsic runs on (`all` and `absent`
    mean each one's own)."""
    for v in values:
        if v.value not in CPU_WORDS and not any(v.value in i.cpus for _, i in chosen):
            intrinsic = chosen[0][1]
            raise v.error(f"{intrinsic.name} runs on {', '.join(intrinsic.cpus)}, not {quote(v.value)}")


def _cpus(intrinsic: Intrinsic, values: list[Value]) -> list[str]:
    """The CPUs a block's `cpu` names for one intrinsic: those it runs on, `all` of them, or
    `absent` (a CPU of the target without the instruction, which must fail cleanly)."""
    out: list[str] = []
    for v in values:
        if v.value == "all":
            out.extend(intrinsic.cpus)
        elif v.value == "absent" and intrinsic.absent_cpu:
            out.append(intrinsic.absent_cpu)
        elif v.value in intrinsic.cpus:
            out.append(str(v.value))
    return _unique(out)


def _immarg_value(v: Value) -> bool:
    if v.value not in IMMARG_VALUES:
        raise v.error(f"immarg must be one of {', '.join(IMMARG_VALUES)}")
    return True


def immarg_sets(intrinsic: Intrinsic, values: list[str]) -> list[tuple[tuple[int, str], ...]]:
    """One operand override per immarg of the intrinsic and value asked for: `high` its highest
    in-range value (when that is not the neutral one), `outside` one past it (when its type
    can hold it: an i1 cannot)."""
    out: list[tuple[tuple[int, str], ...]] = []
    for index, low, high in intrinsic.ranges:
        bits = int(_literal_type(intrinsic, intrinsic.operands[index])[1:])
        text = (lambda n: ("false", "true")[n]) if bits == 1 else str  # as `args` and --arg spell an i1
        if "high" in values and high != low:
            out.append(((index, text(high)),))
        if "outside" in values and high + 1 < 2**bits:
            out.append(((index, text(high + 1)),))
    return out


def _overlap(given: tuple[tuple[int, str], ...], extra: tuple[tuple[int, str], ...]) -> bool:
    """Whether `immarg` would set an operand `args` already sets (that combination is left out)."""
    return bool({i for i, _ in given} & {i for i, _ in extra})


def _block_size(block: Block, *dims: list) -> int:
    """An upper bound of the pairs a block expands to (before excludes), without building them."""
    size = len(block.dims["intrinsic"]) * max(1, len(block.args))
    for values in dims:
        size *= len(values)
    size *= max(1, len(block.dims.get("cpu", [])))
    for key in ("fmt_a", "fmt_b"):  # absent or `all`: every format, at most 5
        fmts = block.dims.get(key)
        size *= 5 if not fmts or fmts[0].value == "all" else len(fmts)
    for key in ("width_a", "width_b"):  # a width is one; a policy names at most 3 legal widths
        size *= sum(1 if isinstance(v.value, int) else 3 for v in block.dims.get(key, [])) or 1
    return size


def split_selectors(block: Block) -> bool:
    """`split_selectors: true` gives each selector its own files (its own expected outcome)."""
    return _flag(block, "split_selectors")


def snapshot(block: Block) -> bool:
    """`snapshot: true` also pins the block's cases in a snapshot file (llc's exact output on
    one recorded build, regenerated by `harness update-checks`)."""
    return _flag(block, "snapshot")


def _flag(block: Block, key: str) -> bool:
    values = block.dims.get(key)
    if not values:
        return False
    v = values[0]
    if len(values) > 1:
        raise values[1].error(f"{key} takes one value, true or false; got a list")
    if not isinstance(v.value, bool):
        raise v.error(f"{key} must be true or false; got {quote(v.value)}")
    return v.value


def _unique(items) -> list:
    return list(dict.fromkeys(items))


def plan(spec_paths: list[Path], max_cases: int = MAX_CASES) -> list[Planned]:
    """Expand every spec; a case asked for twice runs once under the union of its selectors.
    More than `max_cases` (case, selector) pairs stop with the count, before anything is built."""
    # Key: the case, plus its selector when its block splits selectors into their own files
    # (the selector is "" when the block does not split selectors). Value: its selectors, the
    # spec files that ask for it, whether a snapshot pins it.
    found: dict[tuple[Case, Selector | str], tuple[dict[Selector, None], dict[str, None], list[bool]]] = {}
    said: dict[Case, Value] = {}  # case -> the first `snapshot:` value a block gave it
    total = 0
    for path in spec_paths:
        for block in load_spec(path):
            split, pinned = split_selectors(block), snapshot(block)
            setting = block.dims.get("snapshot", [None])[0]
            expanded = expand_block(block, max_cases, total)
            total += len(expanded)
            for case, selector in expanded:
                if pinned and (case.check != "codegen" or case.rejection):
                    raise block.error(
                        f"snapshot: only cases llc compiles can be pinned (check: codegen, valid IR); {case.function} is not one"
                    )
                if setting is not None:
                    _one_snapshot_setting(said.setdefault(case, setting), setting, case)
                key = (case, selector if split else "")
                entry = found.get(key)  # (one look-up per pair: a case's hash covers all its fields)
                if entry is None:
                    entry = found[key] = ({}, {}, [False])
                entry[0][selector] = None
                entry[1][path.name] = None
                entry[2][0] = entry[2][0] or pinned
    planned = [
        Planned(key[0], tuple(s for s in SELECTORS if s in selectors), tuple(origins), pin[0])
        for key, (selectors, origins, pin) in found.items()
    ]
    return sorted(planned, key=lambda p: (p.case.sort_key(), p.selectors))


def _one_snapshot_setting(first: Value, setting: Value, case: Case) -> None:
    """A case pinned (`snapshot: true`) where another block says `snapshot: false` has two
    answers: an error at the later one. (A block without `snapshot` leaves a pin as it is.)"""
    if first.value != setting.value:
        word = lambda v: "true" if v.value else "false"
        raise setting.error(
            f"snapshot: {word(setting)} here, but {first.path}:{first.line}:{first.col} says {word(first)} for "
            f"{case.function}; a case takes one snapshot setting"
        )


def spec_files(cases_dir: Path) -> list[Path]:
    if not cases_dir.is_dir():
        raise InputError(f"no cases directory at {cases_dir}")
    paths = sorted(p for p in cases_dir.glob("*.yaml") if p.name != "known-bugs.yaml")
    if not paths:
        raise InputError(f"no spec files (*.yaml) in {cases_dir}")
    return paths
