"""One reader for the manifests of a GPU build: DIR/manifest.json (FORMAT), which `harness gpu
build --out DIR` writes beside the kernels' PTX files, and DIR/nvidia/manifest.json
(NVIDIA_FORMAT), which `harness gpu compare DIR` writes beside nvcc's. Every entry is checked
before anything runs: the keys every kernel has (COMMON), its kind's keys and values
(harness.gpu.kinds), and its PTX file. Anything wrong is BadInput, one line naming the file.

Standard library only (and harness.core): the GPU machine has no LLVM and perhaps no pyyaml.
"""

from __future__ import annotations

import re
from pathlib import Path

from harness.gpu.kinds import KINDS, Kind, shown

MANIFEST = "manifest.json"
FORMAT = "harness-gpu/1"
NVIDIA = "nvidia"  # DIR's subdirectory for NVIDIA's side
NVIDIA_FORMAT = "harness-gpu-nvidia/1"
# Manifest formats of earlier releases' outputs, and the command that made each.
EARLIER = {1: "gemm-ptx", "nvptx-tiles/1": "tile-ptx", "nvptx-tiles-nvidia/1": "tile-compare"}
MAX_MANIFEST_BYTES = 64 << 20  # a manifest of every kernel the specs allow is a few MB
# The keys of every kernel's entry, whatever its kind, and their types.
COMMON: dict[str, type] = {"kernel": str, "ptx": str, "variant": str, "sm": str, "ptx_only": bool, "seed": int}
_TYPE_NAMES = {str: "a string", int: "an integer", bool: "true or false"}
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*")
_SM = re.compile(r"sm_\d{2,3}[af]?")


class BadInput(Exception):
    """A missing or malformed manifest or PTX file."""


def read(directory: Path, make: str) -> object:
    """The parsed manifest.json of `directory` (`make`: the command that makes it): a regular
    file of at most MAX_MANIFEST_BYTES (a FIFO or a device is refused, never read), UTF-8 JSON."""
    from harness.core import files
    from harness.core.errors import InputError

    path = directory / MANIFEST
    try:
        data = files.read_input(path, MAX_MANIFEST_BYTES, "manifest")
    except InputError as exc:
        why = exc.message.replace("read manifest", "read the manifest")
        raise BadInput(f"{path}: {why}; make it with `{make}`") from None
    try:
        return files.parse_json(data, str(path))  # (the harness's one JSON reader: standard JSON only)
    except InputError as exc:
        where = ":".join(str(part) for part in (path, exc.line, exc.col) if part is not None)
        raise BadInput(f"{where}: {exc.message}") from None


def format_of(directory: Path) -> object:
    """The `format` of `directory`'s manifest; None where there is none that reads as one."""
    try:
        doc = read(directory, "")
    except BadInput:
        return None
    return doc.get("format") if isinstance(doc, dict) else None


def load(directory: Path) -> tuple[dict, Kind]:
    """The manifest of a `harness gpu build` directory and its kind, every kernel checked."""
    path = directory / MANIFEST
    doc = _of_format(path, read(directory, f"harness gpu build --out {directory}"), FORMAT, "a GPU build's manifest")
    name = doc.get("kind")
    kind = KINDS.get(name) if isinstance(name, str) else None
    if kind is None:
        raise BadInput(f"{path}: kind {shown(name)} is not one of {', '.join(KINDS)}")
    entries = _listed(path, doc)
    for i, entry in enumerate(entries):
        why = problem(directory, kind, entry)
        if why:
            name = entry.get("kernel") if isinstance(entry, dict) else None
            raise BadInput(f"{path}: kernel {i}{f' ({name})' if isinstance(name, str) else ''}: {why}")
    return doc, kind


def _of_format(path: Path, doc: object, fmt: str, what: str) -> dict:
    """`doc`, a manifest of format `fmt` (BadInput naming what it is not, or the earlier release
    that made it)."""
    got = doc.get("format") if isinstance(doc, dict) else type(doc).__name__
    if got in EARLIER:
        raise BadInput(
            f"{path}: made by an earlier release ({EARLIER[got]}, format {got!r}): build again with `harness gpu build`"
        )
    if not isinstance(doc, dict) or got != fmt:
        raise BadInput(f"{path}: not {what} (format {shown(got, repr)}, expected {fmt!r})")
    return doc


def _listed(path: Path, doc: dict) -> list:
    """The kernels a manifest lists (BadInput when it lists none)."""
    entries = doc.get("kernels")
    if not isinstance(entries, list) or not entries:
        raise BadInput(f"{path}: the manifest lists no kernels")
    return entries


def problem(directory: Path, kind: Kind, entry) -> str:
    """What is wrong with one kernel's entry ("" when nothing)."""
    if not isinstance(entry, dict):
        return "not an object"
    for key, want in {**COMMON, **kind.keys}.items():
        value = entry.get(key)
        if not isinstance(value, want) or (want is int and isinstance(value, bool)):
            return f"{key} is {shown(value, repr)}, not {_TYPE_NAMES[want]}" if key in entry else f"lacks {key}"
    if not isinstance(entry.get("plant"), (str, type(None))):
        return f"plant {shown(entry['plant'])} is not a string"
    if not 0 <= entry["seed"] < 2**32:  # (the seeds a build writes are 32-bit)
        return f"seed {shown(entry['seed'])} is not a 32-bit seed"
    why = kind.problem(entry)
    if why:
        return why
    if not _SM.fullmatch(entry["sm"]):
        return f"sm {entry['sm']!r} is not an NVPTX SM (sm_NN)"
    if not _IDENT.fullmatch(entry["kernel"]):
        return f"kernel name {entry['kernel']!r} is not a PTX identifier"
    return _ptx_problem(directory, entry["ptx"], "llc failed?") if entry["ptx"] else ""  # ("": llc failed at build time)


def _ptx_problem(directory: Path, name: str, hint: str) -> str:
    path = directory / name
    if "/" in name or name in ("", ".", "..") or path.is_symlink() or not path.is_file():
        return f"no PTX file {name!r} in {directory} ({hint})"
    return ""


def load_nvidia(directory: Path) -> tuple[Kind, list[tuple[dict, dict]]]:
    """The build's kind and (its entry, NVIDIA's entry) of each kernel DIR/nvidia's manifest lists."""
    doc, kind = load(directory)
    if kind.name != "tile":
        raise BadInput(f"{directory / MANIFEST}: holds {kind.name} kernels; NVIDIA's side is written for tile kernels only")
    by_kernel = {e["kernel"]: e for e in doc["kernels"]}
    path = directory / NVIDIA / MANIFEST
    theirs = _of_format(
        path, read(directory / NVIDIA, f"harness gpu compare {directory}"), NVIDIA_FORMAT, "a gpu compare manifest"
    )
    entries = _listed(path, theirs)
    for i, entry in enumerate(entries):
        why = _nvidia_problem(directory, entry, by_kernel)
        if why:
            raise BadInput(f"{path}: kernel {i}: {why}")
    return kind, [(by_kernel[e["kernel"]], e) for e in entries]


def _nvidia_problem(directory: Path, entry, by_kernel: dict) -> str:
    """What is wrong with one kernel of NVIDIA's manifest ("" when nothing)."""
    if not isinstance(entry, dict):
        return "not an object"
    kernel, ptx = entry.get("kernel"), entry.get("ptx")
    if not isinstance(kernel, str) or kernel not in by_kernel:
        return f"kernel {shown(kernel, repr)} is not a kernel of {directory / MANIFEST}"
    if not isinstance(ptx, str):
        return f"ptx is {shown(ptx, repr)}, not a string"
    return _ptx_problem(directory / NVIDIA, ptx, "nvcc failed?") if ptx else ""
