"""Which cases a command runs: one case named by `harness try`'s flags, or the specs' cases
filtered by spec file, name glob and dimension, then split into deterministic shards.

Used by `run`, `bisect-run` and `matrix`, so the same flags select the same cases everywhere.
"""

from __future__ import annotations

import argparse
import difflib
import fnmatch
import hashlib
import itertools
import weakref
from pathlib import Path
from typing import Protocol

from harness.core import commands
from harness.core.commands import Selector
from harness.core.errors import PATH_LIMIT, InputError, quoted, shortened
from harness.specs import cases, matrix, values
from harness.specs.cases import SELECTORS, Case, Planned
from harness.targets import catalog, formats, processors
from harness.targets.catalog import Side

DEFAULT_CASES = Path(__file__).resolve().parents[2] / "cases"


class Once(argparse.Action):
    """A flag that takes one value: given twice it is a usage error, as an LLVM tool's option is
    ("may only occur zero or one times"), never the last one quietly. (Every one-value flag of
    the command line is one: `parser.Parser.add_argument`.)"""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.given: dict[int, weakref.ref] = {}  # id -> the namespaces it was given in (a Namespace is unhashable)

    def __call__(self, parser, namespace, values, option_string=None):
        held = self.given.get(id(namespace))
        if held is not None and held() is namespace:
            seen = getattr(namespace, self.dest, None)
            shown = [
                quoted(v) if isinstance(v, str) else "/".join(map(str, v)) if isinstance(v, tuple) else str(v)
                for v in (seen, values)
            ]
            parser.error(f"{option_string} is given twice ({shown[0]}, then {shown[1]}); it takes one value")
        self.given[id(namespace)] = weakref.ref(namespace)
        setattr(namespace, self.dest, values)


def add_case_flags(p: argparse.ArgumentParser, one_case: bool = False) -> None:
    """`harness try`'s flags for one case (`one_case`), or flags that narrow many cases."""
    p.add_argument(
        "--intrinsic",
        action="append",
        metavar="NAME",
        required=one_case,
        help="intrinsic name without its llvm.amdgcn. or llvm.nvvm. prefix (either is also taken; "
        "repeatable where many cases run), e.g. "
        + ", ".join(i.name for i in catalog.SEED_INTRINSICS[:2])
        + "; an LLVM name with several forms (gfx11/gfx12 types, wave64) means each (try: the one for --cpu), "
        "a form's own name (wmma.f32.16x16x16.f16.gfx1100w64) one; run, matrix and bisect-run take globs (smfmac.*)",
    )
    _add_source_flags(p, one_case)
    p.add_argument(
        "--selector",
        action=Once,
        choices=[s.value for s in SELECTORS],  # plain text: argparse's messages repr() its choices
        default=None,
        help="instruction selector (default: each the target has, sdag and gisel on AMDGPU)",
    )
    p.add_argument(
        "-O",
        action=Once,
        dest="opt",
        type=int,
        choices=cases.OPT_LEVELS,
        default=None,
        help="llc -O level (default: " + ("0)" if one_case else "every level the specs or the space list; only these cases)"),
    )
    p.add_argument(
        "--cpu",
        action=Once,
        default=None,
        help="the CPU (an AMDGPU gfx name, an NVPTX sm_NN); default: the intrinsic's first"
        if one_case
        else "only cases on this CPU (an AMDGPU gfx name, an NVPTX sm_NN); one case named by the other flags runs there",
    )
    p.add_argument(
        "--pipeline",
        action=Once,
        default=None,
        type=pass_pipeline,
        metavar="P",
        help="opt -passes= pipeline run before llc: none (default), instcombine, or any pass list",
    )


def _add_source_flags(p: argparse.ArgumentParser, one_case: bool) -> None:
    """--fmt-a/-b and --width-a/-b: the A and B sources' formats and widths."""
    p.add_argument(
        "--fmt-a",
        action=Once,
        default=None,
        metavar="F",
        help=f"A format ({formats.spellings()}; a fixed-type row: its element type)",
    )
    p.add_argument("--fmt-b", action=Once, default=None, metavar="F", help="B format (same spellings)")
    width = "exact)" if one_case else "every width the specs list; only cases of this width)"
    p.add_argument(
        "--width-a", action=Once, default=None, metavar="N", help=f"A source width in i32, or exact, max (default: {width}"
    )
    p.add_argument("--width-b", action=Once, default=None, metavar="N", help="B source width (as --width-a)")


def add_spec_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--cases",
        type=Path,
        default=DEFAULT_CASES,
        metavar="DIR",
        help="directory of the YAML specs (default: this repository's cases/)",
    )
    p.add_argument(
        "--spec", action="append", metavar="FILE", help="only the cases of these spec files in the cases directory (repeatable)"
    )
    p.add_argument(
        "--filter",
        action="append",
        metavar="GLOB",
        help="only cases whose function name matches this shell glob (repeatable), e.g. '*fp4_v16*'",
    )
    add_max_cases(p)
    p.add_argument(
        "--shard",
        type=_shard,
        default=None,
        metavar="K/N",
        help="run only the K-th of N deterministic shares of the cases (K from 1), like lit's --run-shard",
    )


SPACES = ("specs", "representative", "full")


def add_space_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--space",
        choices=SPACES,
        default="specs",
        help="specs: the specs' cases (default; lit's files); full: the whole space, every matrix intrinsic "
        "on every processor of the tables (that the build lists, for run), its wave32 and wave64 forms, both "
        "selectors, -O0 and -O2, each cell held against the ISA's expectation (the case flags narrow it); "
        "representative: of those, each intrinsic on the processors its row lists and on one processor "
        "of each generation without it (lit: --param space=full or representative)",
    )


def command(sub, name: str, help: str | None, description: str, epilog: str, formatter_class) -> argparse.ArgumentParser:
    """A subcommand of `harness` (`sub`: the subparsers), its one-line help (None: one the command
    list leaves out, an old name), --help's text above the flags and the epilog below them (which
    says its exit status)."""
    listed = {} if help is None else {"help": help}
    return sub.add_parser(name, **listed, description=description, epilog=epilog, formatter_class=formatter_class)


def add_timeout(p: argparse.ArgumentParser, what: str = "each tool call") -> None:
    p.add_argument(
        "--timeout",
        type=seconds,
        default=commands.DEFAULT_TIMEOUT,
        metavar="S",
        help=f"seconds allowed to {what} (default %(default)s)",
    )


def add_max_cases(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--max-cases",
        type=case_limit,
        default=matrix.MAX_CASES,
        metavar="N",
        help="refuse a spec block of more case-selector pairs than this (default %(default)s)",
    )


def pass_pipeline(text: str) -> str:
    """A --pipeline value: none, or text in opt's -passes= grammar."""
    why = commands.pass_pipeline_error(text)
    if why:
        raise argparse.ArgumentTypeError(f"{quoted(text)} is {why}")
    return text


def seconds(text: str) -> float:
    """A --timeout value: a finite number of seconds above 0 and at most a day."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {quoted(text)}") from None
    if not 0 < value <= 86400:  # also false for nan
        raise argparse.ArgumentTypeError(f"must be more than 0 and at most 86400 seconds; got {quoted(text)}")
    return value


def case_limit(text: str) -> int:
    """A --max-cases value: a positive number of case-selector pairs."""
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"takes a positive number of case-selector pairs; got {quoted(text)}")
    return int(text)


def jobs(text: str) -> int:
    """A -j value: a positive number of parallel tool runs."""
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"takes a positive number of parallel tool runs; got {quoted(text)}")
    return int(text)


def _shard(text: str) -> tuple[int, int]:
    k, sep, n = text.partition("/")
    if not (sep and k.isdigit() and n.isdigit() and 1 <= int(k) <= int(n)):
        raise argparse.ArgumentTypeError(f"takes K/N with 1 <= K <= N, e.g. 2/4; got {quoted(text)}")
    return int(k), int(n)


def lookup_all(name: str) -> tuple[catalog.Intrinsic, ...]:
    """Every catalog entry `name` means (an LLVM name with several forms means each); an
    unknown name is bad input that points at the names `--intrinsic` takes."""
    if is_glob(name):
        found = tuple(i for i in catalog.INTRINSICS if fnmatch.fnmatchcase(i.name, name.strip()))
        if not found:
            raise InputError(f"no intrinsic matches {quoted(name)} (`harness coverage --json` lists the names)")
        return found
    try:
        return catalog.lookup_all(name)
    except KeyError:
        raise InputError(catalog.unknown(name)) from None


def is_glob(name: str) -> bool:
    return any(c in name for c in "*?")


def lookup(name: str, cpu: str | None = None) -> catalog.Intrinsic:
    """The one entry `name` means on `cpu` (see `catalog.lookup`): of several forms, the
    one that runs there; on a processor without the instruction, its wave32 form."""
    if is_glob(name):
        raise InputError(f"one intrinsic, not a glob, is one case: {quoted(name)} (run and matrix take globs)")
    found = lookup_all(name)
    if cpu is not None:
        check_cpu(found[0].target, cpu)
        cpu = processors.canonical(cpu)
    return catalog.lookup(name, cpu)


def check_cpu(target, cpu: str) -> None:
    """A processor the target's table has (any the harness can hold a cell against), else bad input."""
    known = target_cpus(target)
    if cpu not in known and processors.canonical(cpu) not in known:
        hint = difflib.get_close_matches(cpu, known, 3, 0.6)
        raise InputError(
            f"--cpu: {quoted(cpu)} is not a processor of {target.name} the harness knows"
            + (
                f" (did you mean {', '.join(hint)}?)"
                if hint
                else f" ({len(known)} in its table, harness/targets/{'processors' if target.name == 'amdgpu' else 'sms'}.py)"
            )
        )


def target_cpus(target) -> list[str]:
    """Every processor of a target the harness holds expectations for: AMDGPU's processor
    table (canonical names), NVPTX's table of targets."""
    if target.name == "amdgpu":
        return [p.name for p in processors.AMDGPU_PROCESSORS]
    from harness.targets import sms

    return [s.name for s in sms.NVPTX_SMS]


def fmt(text: str | None, source: catalog.Source, flag: str) -> int:
    if text is None:
        if len(source.formats) == 1:
            return source.formats[0]
        raise InputError(f"{flag} is required for this intrinsic ({formats.spellings()})")
    try:
        value = source.parse(text)
    except ValueError as exc:
        raise InputError(f"{flag}: {exc}") from None
    if value not in source.regs:
        raise InputError(f"{flag}: this intrinsic's source takes only {' '.join(map(source.name, source.formats))}")
    return value


def width(text: str | None, source: catalog.Source, fmt_value: int, flag: str) -> int:
    text = "exact" if text is None else text
    if text in ("exact", "max"):
        return cases.widths_for(text, source, fmt_value)[0]
    try:
        value = int(text)
    except ValueError:
        raise InputError(f"{flag} must be an integer, exact or max; got {quoted(text)}") from None
    if not 0 < value <= matrix.MAX_WIDTH:
        raise InputError(f"{flag} takes 1 to {matrix.MAX_WIDTH} elements (what the harness builds); got {value}")
    if source.fixed and value != source.widths[0]:
        raise InputError(f"{flag}: this source is always {source.type_text()}; its width is {source.widths[0]}")
    return value


def one_case(args, intrinsic: catalog.Intrinsic, extra: dict | None = None) -> Case:
    """The case `harness try`'s flags name (widths default to exact, -O to 0, no pipeline)."""
    cpu = getattr(args, "cpu", None) or intrinsic.default_cpu
    check_cpu(intrinsic.target, cpu)
    cpu = processors.canonical(cpu)
    fa = fmt(args.fmt_a, intrinsic.a, "--fmt-a")
    fb = fmt(args.fmt_b, intrinsic.b, "--fmt-b")
    if intrinsic.fragments and (extra or {}).get("narrowing"):
        raise InputError(f"--narrowing: {intrinsic.name} takes one operand per register, no vector to narrow")
    return Case(
        intrinsic,
        cpu,
        fa,
        fb,
        width(args.width_a, intrinsic.a, fa, "--width-a"),
        width(args.width_b, intrinsic.b, fb, "--width-b"),
        args.opt or 0,
        args.pipeline or "none",
        **(extra or {}),
    )


def spec_paths(args) -> list[Path]:
    paths = matrix.spec_files(args.cases)
    if not getattr(args, "spec", None):
        return paths
    by_name = {p.name: p for p in paths}
    chosen = []
    for name in args.spec:
        key = Path(name).name
        if Path(name).parent != Path(".") and Path(name).resolve().parent != Path(args.cases).resolve():
            # A path elsewhere would silently run the cases directory's file of the same name.
            raise InputError(
                f"--spec: {shortened(str(name), PATH_LIMIT)} is not in the cases directory {shortened(str(args.cases), PATH_LIMIT)}; give --cases its directory"
            )
        if key not in by_name:
            raise InputError(f"--spec: no spec {quoted(key)} in {args.cases}; have: {', '.join(by_name)}")
        chosen.append(by_name[key])
    return chosen


def planned(args, direct_ok: bool = True) -> list[Planned]:
    """The selected cases, each with the selectors it runs under.

    With `direct_ok`, --intrinsic and a format for each source that needs one (and no --spec or
    --filter), the one case those flags name, as `harness try` builds it. Otherwise the specs'
    cases, narrowed by every flag given; a selection that matches nothing is an input error."""
    if getattr(args, "space", "specs") != "specs":  # (run asks with its build's processors)
        return space(args, target_cpus)
    selectors = (Selector(args.selector),) if args.selector else SELECTORS
    names = [i for n in args.intrinsic or [] for i in lookup_all(n)]
    for side, text in ((Side.A, args.fmt_a), (Side.B, args.fmt_b)):
        if text is not None and all(_format_value(text, i.source(side)) is None for i in names or catalog.INTRINSICS):
            raise InputError(f"--fmt-{side}: not a matrix format: {quoted(text)} (accepted: {formats.spellings()})")
    one = len(args.intrinsic or []) == 1 and not is_glob(args.intrinsic[0])
    if one and direct_ok and len(names) > 1:  # an LLVM name with several forms: the one for --cpu
        names = [lookup(args.intrinsic[0], getattr(args, "cpu", None))]
    alone = (  # one case, as `try` makes it
        one
        and len(names) == 1
        and not getattr(args, "spec", None)
        and not getattr(args, "filter", None)
        and all(f is not None or len(s.formats) == 1 for f, s in ((args.fmt_a, names[0].a), (args.fmt_b, names[0].b)))
    )
    if direct_ok and alone:
        chosen = [Planned(one_case(args, names[0]), selectors, ())]
    else:
        chosen = [
            p
            for p in matrix.plan(spec_paths(args), getattr(args, "max_cases", matrix.MAX_CASES))
            if _wanted(p, args, {i.name for i in names})
        ]
        chosen = [Planned(p.case, tuple(s for s in p.selectors if s in selectors), p.origins, p.snapshot) for p in chosen]
        chosen = [p for p in chosen if p.selectors]
        if not chosen and alone:  # (a --cpu no spec pairs with it: the one case, as try and bisect-run judge)
            chosen = [Planned(one_case(args, names[0]), selectors, ())]
        if not chosen:
            raise InputError(
                "the selection matches no case (check --intrinsic, --fmt-a/-b, --width-a/-b, --cpu, -O, "
                "--pipeline, --filter and --spec against `harness run`)"
            )
    shard = getattr(args, "shard", None)
    return shard_of(chosen, *shard) if shard else chosen


SPACE_OPT_LEVELS = (0, 2)


def space(args, known_cpus) -> list[Planned]:
    """The whole space of a build, narrowed by the case flags: every matrix intrinsic (each LLVM
    name) on every processor of its target that the build lists (`known_cpus(target)`, names the
    processor table holds, aliases once), at -O0 and -O2 under each selector the target has; on
    each processor the name's default-wave form (the one that runs there, else the one for a
    processor without it), and where the name has wave64 forms and the processor is not
    wave64-only, one of those too. Sources at their first format and exact width, immargs at
    their lowest values; on a processor with the instruction also every format and width of
    its sources and the values of its constant operands `values.variants` gives (allowed,
    ISA-invalid, past the field, pairs, scales in registers; NVPTX's sparsity selector). `args.space` "representative" keeps, of
    each name's processors, those its row lists and the first of each generation without it
    (`representatives`)."""
    if getattr(args, "spec", None):
        raise InputError("--spec names the specs' cases; --space full is every cell of the build, not a spec's")
    names = {i.base or i.name for n in args.intrinsic or [] for i in lookup_all(n)}
    only = _named_forms(args.intrinsic or [])
    args = _canonical_cpu(args)
    out: list[Planned] = []
    for target, cpus in _space_cpus(known_cpus).items():
        selectors = tuple(s for s in target.selectors if args.selector in (None, s))
        for base, forms in catalog.BY_BASE.items():
            if forms[0].target is not target or (names and base not in names):
                continue
            chosen = representatives(forms, cpus) if getattr(args, "space", "full") == "representative" else cpus
            for cpu in chosen:
                for form in _space_forms(forms, cpu):
                    if base in only and form.name not in only[base]:
                        continue
                    for opt, (fa, fb, wa, wb, given) in itertools.product(SPACE_OPT_LEVELS, _values(form, cpu)):
                        case = Case(form, cpu, fa, fb, wa, wb, opt, args=given)
                        p = Planned(case, selectors, ("space",))
                        if selectors and _wanted(p, args, set()):
                            out.append(p)
    if not out:
        raise InputError("the selection matches no cell of the space (check --intrinsic, --cpu, -O and --selector)")
    shard = getattr(args, "shard", None)
    return shard_of(out, *shard) if shard else out


def _named_forms(words: list[str]) -> dict[str, set[str]]:
    """LLVM name -> the forms of it named by their own names (wmma.f32.16x16x16.f16.gfx1100w64),
    for the names no word gives whole (by the LLVM name itself or a glob)."""
    forms: dict[str, set[str]] = {}
    whole: set[str] = set()
    for word in words:
        bare = catalog.bare(word)
        for i in lookup_all(word):
            if i.base and i.name == bare and not is_glob(word):
                forms.setdefault(i.base, set()).add(i.name)
            else:
                whole.add(i.base or i.name)
    return {base: names for base, names in forms.items() if base not in whole}


def _values(form: catalog.Intrinsic, cpu: str) -> list[values.Cell]:
    """(formats, widths, operand overrides) of each cell of a form on a processor: the base cell
    (first formats at exact widths, immargs at their lowest); on a processor with the
    instruction, the formats, widths and values `values.variants` adds."""
    if not form.runs_on(cpu):
        return [values.base(form)]
    return [values.base(form), *values.variants(form, cpu)]


# The case flags `space` reads besides --intrinsic and --space.
NARROWING = ("fmt_a", "fmt_b", "width_a", "width_b", "opt", "cpu", "pipeline", "filter", "selector", "spec", "shard")


def space_args(space: str = "full", intrinsics: list[str] | None = None) -> argparse.Namespace:
    """The flags of a space narrowed by nothing but the intrinsics (None: all of them)."""
    return argparse.Namespace(intrinsic=intrinsics, space=space, **dict.fromkeys(NARROWING))


def representatives(forms: tuple[catalog.Intrinsic, ...], cpus: list[str]) -> list[str]:
    """Of `cpus` (table order), those the name's row lists and, of each generation (AMDGPU's
    ISA generation, an NVPTX target's major version), the first processor without the
    instruction that is not a generic target."""
    own = {c for f in forms for c in f.cpus}
    seen: set[str] = set()
    out = []
    for cpu in cpus:
        generation = generation_of(forms[0].target, cpu)
        if cpu in own:
            out.append(cpu)
        elif generation not in seen and not processors.is_generic(cpu):
            if not any(f.runs_on(cpu) for f in forms):
                seen.add(generation)
                out.append(cpu)
    return out


def generation_of(target, cpu: str) -> str:
    """A processor's generation: AMDGPU's from its table, an NVPTX target's major version."""
    from harness.targets import sms

    if target.name == "amdgpu":
        return processors.BY_NAME[cpu].generation
    return f"sm_{sms.BY_NAME[cpu].family}x"


def _canonical_cpu(args):
    """`args` with --cpu under its canonical name; a name no target's table has is bad input."""
    if getattr(args, "cpu", None) is None:
        return args
    from harness.targets import AMDGPU, NVPTX

    if args.cpu not in target_cpus(NVPTX):
        check_cpu(NVPTX if args.cpu.startswith("sm_") else AMDGPU, args.cpu)
    return argparse.Namespace(**{**vars(args), "cpu": processors.canonical(args.cpu)})


def _space_cpus(known_cpus) -> dict:
    """Target -> the processors of its table the build lists, in table order."""
    from harness.targets import AMDGPU, NVPTX

    out = {}
    for target in (AMDGPU, NVPTX):
        listed = known_cpus(target)
        if listed is not None:
            out[target] = [c for c in target_cpus(target) if c in listed]
    return out


def _space_forms(forms: tuple[catalog.Intrinsic, ...], cpu: str) -> list[catalog.Intrinsic]:
    """The forms of one LLVM name a processor's cells use: its default-wave form, and a wave64
    form where the name has one and the processor is not wave64-only."""
    default = [f for f in forms if f.features != catalog.WAVE64]
    wide = [f for f in forms if f.features == catalog.WAVE64]
    out = [next((f for f in default if f.runs_on(cpu)), None) or _absent_form(default or list(forms), cpu)]
    if wide and not (cpu in processors.BY_NAME and processors.BY_NAME[cpu].wave64_only):
        out.append(next((f for f in wide if f.runs_on(cpu)), wide[0]))
    return out


def _absent_form(forms: list[catalog.Intrinsic], cpu: str) -> catalog.Intrinsic:
    return next((f for f in forms if f.absent_cpu == cpu), forms[0])


def _wanted(p: Planned, args, intrinsics: set[str]) -> bool:
    c = p.case
    if intrinsics and c.intrinsic.name not in intrinsics:
        return False
    for side, text in ((Side.A, args.fmt_a), (Side.B, args.fmt_b)):
        if text is not None and _format_value(text, c.intrinsic.source(side)) != c.fmt(side):
            return False
    for side, text in ((Side.A, args.width_a), (Side.B, args.width_b)):
        if text is not None and width(text, c.intrinsic.source(side), c.fmt(side), f"--width-{side}") != c.width(side):
            return False
    if args.opt is not None and c.opt != args.opt:
        return False
    if getattr(args, "cpu", None) is not None and c.cpu != args.cpu:
        return False
    if args.pipeline is not None and c.pipeline != args.pipeline:
        return False
    globs = getattr(args, "filter", None) or []
    return not globs or any(fnmatch.fnmatchcase(c.function, g) for g in globs)


def _format_value(text: str, source: catalog.Source) -> int | None:
    """The format `text` names for this source, or None when it names none of its formats."""
    try:
        return source.parse(text)
    except ValueError:
        return None


class Shardable(Protocol):
    """What decides a case's shard (a Case or a GemmCase)."""

    @property
    def function(self) -> str: ...
    @property
    def cpu(self) -> str: ...
    @property
    def opt(self) -> int: ...
    @property
    def pipeline(self) -> str: ...
    @property
    def check(self) -> str: ...


def in_shard(case: Shardable, k: int, n: int) -> bool:
    """Whether `case` is in the K-th of N shares: the share its name's digest picks, so a case
    stays in its shard however the rest of the selection changes, and the N shares cover all."""
    key = f"{case.function}|{case.cpu}|O{case.opt}|{case.pipeline}|{case.check}"
    return int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big") % n == k - 1


def shard_of(chosen: list[Planned], k: int, n: int) -> list[Planned]:
    """The K-th of N shares of the planned cases (`in_shard`)."""
    return [p for p in chosen if in_shard(p.case, k, n)]
