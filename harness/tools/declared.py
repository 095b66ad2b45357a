"""Which matrix intrinsics an LLVM build declares.

A build ships its intrinsic list as a generated header, `include/llvm/IR/Intrinsics<T>.h`
beside its `bin/` (a Debian package and a build directory alike): one enum entry per
intrinsic, commented with its full name. That list is complete. A build without the header is
asked through the IR verifier instead, one declaration per name the harness has a row for
(`Toolchain.intrinsic_support`): that says which of our rows it knows, but cannot see an
intrinsic we have no row for.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from harness.core import files
from harness.core.errors import InputError
from harness.specs import emit
from harness.targets import Target
from harness.targets.catalog import Intrinsic
from harness.tools.toolchain import ProbeDied, Toolchain

HEADER_LIMIT = 64 << 20  # bytes: LLVM 22's largest intrinsic header is about 1 MB


@dataclass(frozen=True)
class Declared:
    """The matrix intrinsics a build declares for one target (full names, sorted), where that
    came from, and whether the list is the build's own (`complete`) or probed from our rows."""

    names: tuple[str, ...]
    source: str
    complete: bool


def header_path(tc: Toolchain, target: Target) -> Path:
    """Where the build's intrinsic header for `target` would be."""
    bin_dir = tc.bin_dir if tc.bin_dir is not None else Path(tc.require("llc")).resolve().parent
    return bin_dir.parent / "include" / "llvm" / "IR" / target.intrinsic_header


def names_in_header(text: str, target: Target) -> tuple[str, ...]:
    """The matrix intrinsics a header's enum comments name (`// llvm.amdgcn.mfma... (file:line)`)."""
    prefix = re.escape(target.intrinsic_prefix)
    found = {m.group(1) for m in re.finditer(rf"//\s*({prefix}[\w.]+)", text)}
    return tuple(sorted(n for n in found if target.family(n)))


def header_names(tc: Toolchain, target: Target) -> frozenset[str] | None:
    """The matrix intrinsics the build's header declares for `target`, or None when the build
    ships no header (memoised per build)."""

    path = header_path(tc, target)

    def read() -> frozenset[str] | None:
        if not os.path.lexists(path):
            return None  # (a directory, FIFO or broken link there is refused as it is read, never opened)
        data = files.read_input(path, HEADER_LIMIT, "build's intrinsic header")
        text = data.decode("utf-8", errors="replace")
        if target.intrinsic_prefix not in text:
            raise InputError(f"{path} names no {target.intrinsic_prefix}* intrinsic: not an intrinsic header of this build")
        return frozenset(names_in_header(text, target))

    def kept() -> frozenset[str] | None:
        # What the header named is kept with the build's answers, for this header as it is now.
        try:
            st = os.stat(path)
        except OSError:
            return read()
        question = ["header", target.name, str(path), st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]
        return tc._kept("llc", question, read, _name_list, _name_set)

    return tc._memo(("header", target.name), kept)


def _name_list(names: frozenset[str] | None) -> list[str] | None:
    return sorted(names) if names is not None else None


def _name_set(answer) -> frozenset[str]:
    if not (isinstance(answer, list) and all(isinstance(n, str) for n in answer)):
        raise TypeError("not a list of names")
    return frozenset(answer)


def support(tc: Toolchain, target: Target, wanted: Mapping[str, tuple[str, str]]) -> dict[str, str]:
    """Key -> "" when the build knows the intrinsic as declared, else why not, for `wanted`
    (key -> (full name, declaration)). A name the build's header lacks is unknown without
    running anything (an old opt takes any llvm.* declaration, and llc then compiles a plain
    call); the rest are asked through opt, which also rejects a signature the build does not have."""
    names = header_names(tc, target)
    out = {}
    if names is not None:
        header = header_path(tc, target).name
        out = {k: f"intrinsic unknown to this build (not in its {header})" for k, (n, _) in wanted.items() if n not in names}
    rest = {k: d for k, (_, d) in wanted.items() if k not in out}
    out.update(tc.intrinsic_support(rest) if rest else {})
    return out


def support_of(tc: Toolchain, intrinsics: Iterable[Intrinsic]) -> tuple[dict[str, str], ProbeDied | None]:
    """Intrinsic name -> "" when the build knows it as the catalog declares it, else why not,
    for `intrinsics`: one opt probe per target. A target the build lacks is asked too (opt
    reads every target's intrinsics; such cases are `unsupported` before these answers are
    read), so this needs no version probe first. A probe that died answers "" for its
    target's names and is returned (its cases get its verdict)."""
    known: dict[str, str] = {}
    died = None
    for target in {i.target for i in intrinsics}:
        usable = {i.name: i for i in intrinsics if i.target == target}
        decls = emit.probe_declarations(usable.values())
        try:
            known.update(support(tc, target, {k: (usable[k].symbol, d) for k, d in decls.items()}))
        except ProbeDied as exc:
            died = exc
            known.update(dict.fromkeys(usable, ""))
    return known, died


def declared(tc: Toolchain, target: Target, declarations: Mapping[str, str]) -> Declared:
    """The build's matrix intrinsics for `target`: from its header when it ships one, else the
    names among `declarations` (full name -> an IR declaration) its verifier knows."""
    listed = header_names(tc, target)
    if listed is not None:
        return Declared(tuple(sorted(listed)), str(header_path(tc, target)), True)
    path = header_path(tc, target)
    known = tc.intrinsic_support(dict(declarations)) if declarations else {}
    names = tuple(sorted(n for n, why in known.items() if not why))
    return Declared(names, f"probed through {tc.require('opt')} (no {path})", False)
