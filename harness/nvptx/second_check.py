"""Run each tile kernel twice on a CUDA GPU, llc's PTX and NVIDIA's, and require D bitwise equal:
`python -m harness.nvptx.second_check DIR` (or `harness tile-compare DIR --gpu`).

DIR holds llc's PTX files and manifest.json from `harness tile-ptx --out DIR`, and DIR/nvidia/
the CUDA C of the same kernels compiled by nvcc, with its own manifest.json (NVIDIA_FORMAT), from
`harness tile-compare DIR`. Per kernel, both run on one warp through CuPy on the same inputs
(the tile's seed, harness.nvptx.tile_check.inputs), each storing D into an array filled
beforehand with the same pattern; D is compared byte for byte. Whether D is right is
tile-check's question; this one is whether both compilers' kernels of a tile give the same bits.

Exit status: 0 every kernel run gives bitwise equal D, 1 some kernel's D differs or a kernel does
not load or launch, 2 bad input (no or a malformed manifest, a missing PTX file), 125 cannot
judge: no numpy, no CuPy or no CUDA device, or no kernel this GPU runs. Kernels for sm_120a are
listed as "PTX only" and not run. Imports only the standard library, numpy and CuPy.
"""

from __future__ import annotations

import sys
from pathlib import Path

from harness.nvptx import tile_check
from harness.nvptx.gpu_check import (
    EXIT_CANNOT,
    EXIT_FAIL,
    EXIT_OK,
    MANIFEST,
    BadInput,
    Checker,
    device,
    read_manifest,
    runs_on,
)

NVIDIA = "nvidia"  # DIR's subdirectory for NVIDIA's side
NVIDIA_FORMAT = "nvptx-tiles-nvidia/1"
VERDICTS = ("equal", "differ", "fail", "not-run")


def load(directory: Path) -> list[tuple[dict, dict]]:
    """(tile-ptx entry, NVIDIA's entry) of each kernel NVIDIA's manifest lists (BadInput, one line)."""
    by_kernel = {e["kernel"]: e for e in tile_check.load_manifest(directory)["tiles"]}
    path = directory / NVIDIA / MANIFEST
    doc = read_manifest(directory / NVIDIA, f"harness tile-compare {directory}")
    if not isinstance(doc, dict) or doc.get("format") != NVIDIA_FORMAT:
        got = doc.get("format") if isinstance(doc, dict) else type(doc).__name__
        raise BadInput(f"{path}: not a tile-compare manifest (format {got!r}, expected {NVIDIA_FORMAT!r})")
    entries = doc.get("tiles")
    if not isinstance(entries, list) or not entries:
        raise BadInput(f"{path}: the manifest lists no tiles")
    for i, entry in enumerate(entries):
        why = _entry_problem(directory, entry, by_kernel)
        if why:
            raise BadInput(f"{path}: tile {i}: {why}")
    return [(by_kernel[e["kernel"]], e) for e in entries]


def _entry_problem(directory: Path, entry, by_kernel: dict) -> str:
    """What is wrong with one tile of NVIDIA's manifest ("" when nothing)."""
    if not isinstance(entry, dict):
        return "not an object"
    kernel, ptx = entry.get("kernel"), entry.get("ptx")
    if not isinstance(kernel, str) or kernel not in by_kernel:
        return f"kernel {kernel!r} is not a tile of {directory / MANIFEST}"
    if not isinstance(ptx, str):
        return f"ptx is {ptx!r}, not a string"
    if ptx and ("/" in ptx or ptx in (".", "..") or not (directory / NVIDIA / ptx).is_file()):
        return f"no PTX file {ptx!r} in {directory / NVIDIA}"
    return ""


def compare_tile(cupy, directory: Path, entry: dict, nvidia: dict) -> dict:
    """Both kernels run on the tile's inputs: D's elements, how many differ in any bit, and the first that does."""
    import numpy as np

    data = tile_check.inputs(entry)
    ours = tile_check.run_kernel(cupy, directory / entry["ptx"], entry, data)
    theirs = tile_check.run_kernel(cupy, directory / NVIDIA / nvidia["ptx"], entry, data)
    as_bytes = lambda d: np.ascontiguousarray(d).view(np.uint8).reshape(*d.shape, d.dtype.itemsize)
    differs = np.any(as_bytes(ours) != as_bytes(theirs), axis=-1)
    result = {"elements": int(ours.size), "differing": int(np.count_nonzero(differs)), "first": ""}
    if result["differing"]:
        at = tuple(int(i) for i in np.argwhere(differs)[0])
        hexed = lambda d: bytes(as_bytes(d)[at][::-1]).hex()  # (little-endian bytes, shown high first)
        result["first"] = f"first at {list(at)}: llc 0x{hexed(ours)}, nvcc 0x{hexed(theirs)}"
    return {**result, "equal": not result["differing"]}


def _compare_entry(cupy, gpu: dict, directory: Path, entry: dict, nvidia: dict) -> dict:
    row = {key: entry[key] for key in ("kernel", "variant", "sm", "d")}
    row["plant"] = entry.get("plant")
    if entry["ptx_only"]:
        return {**row, "verdict": "not-run", "why": f"PTX only (needs {entry['sm']})"}
    if not nvidia["ptx"]:
        return {**row, "verdict": "not-run", "why": "nvcc did not compile it (see tile-compare's table)"}
    if not runs_on(entry["sm"], gpu["cc"]):
        cc = f"{gpu['cc'][0]}.{gpu['cc'][1]}"
        return {**row, "verdict": "not-run", "why": f"{entry['sm']} PTX does not run on compute capability {cc}"}
    try:
        result = compare_tile(cupy, directory, entry, nvidia)
    except Exception as exc:  # CuPy/CUDA refusing a PTX file or the launch
        text = str(exc).splitlines()[0] if str(exc) else ""
        if "UNSUPPORTED_PTX_VERSION" in text:  # the driver predates a PTX ISA version: no kernel's fault
            return {**row, "verdict": "not-run", "why": f"the CUDA driver does not read this PTX version ({text})"}
        return {**row, "verdict": "fail", "why": f"{type(exc).__name__}: {text}"}
    return {**row, **result, "verdict": "equal" if result["equal"] else "differ"}


def check_all(directory: Path) -> dict:
    """Every kernel of NVIDIA's manifest run on both sides: the report `--json` prints."""
    pairs = load(directory)
    cupy, gpu = device()
    rows = [_compare_entry(cupy, gpu, directory, entry, nvidia) for entry, nvidia in pairs]
    counts = {v: sum(1 for r in rows if r["verdict"] == v) for v in VERDICTS}
    compiled = sum(1 for _, nvidia in pairs if nvidia["ptx"])
    return {"gpu": gpu, "directory": str(directory), "tiles": rows, "summary": {"compiled": compiled, **counts}}


def exit_status(report: dict) -> int:
    s = report["summary"]
    if s["differ"] or s["fail"]:
        return EXIT_FAIL
    return EXIT_OK if s["equal"] else EXIT_CANNOT


def table(report: dict) -> str:
    g = report["gpu"]
    lines = [f"GPU: {g['name']} (compute capability {g['cc'][0]}.{g['cc'][1]}, CuPy {g['cupy']}, driver {g['driver']})"]
    rows = [("variant", "D", "elements", "bitwise equal", "note")]
    for r in report["tiles"]:
        name = r["variant"] + (f" [{r['plant']}]" if r["plant"] else "")
        if "why" in r:
            rows.append((name, r["d"], "-", "no" if r["verdict"] == "fail" else "-", r["why"]))
            continue
        note = f"{r['differing']} differ; {r['first']}" if r["differing"] else ""
        rows.append((name, r["d"], str(r["elements"]), "yes" if r["equal"] else "no", note))
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    lines += ["  ".join(cell.ljust(w) for cell, w in zip(row[:4], widths)) + "  " + row[4] for row in rows]
    s, n = report["summary"], len(report["tiles"])
    lines.append(
        f"{n} kernels: {s['compiled']} compiled by nvcc; {s['equal'] + s['differ']} run on both sides: "
        f"{s['equal']} bitwise equal, {s['differ']} differ; {s['fail']} failed to run, {s['not-run']} not run"
    )
    return "\n".join(lines)


CHECKER = Checker(
    "tile-compare",
    __doc__.split("\n\n")[0],
    "exit status: 0 all bitwise equal, 1 some differ, 2 bad input, 125 cannot judge (no numpy, CuPy or CUDA device)",
    "tile-ptx's output with tile-compare's nvidia/ in it",
    check_all,
    table,
    exit_status,
    "tiles",
)
run, main = CHECKER.run, CHECKER.main


if __name__ == "__main__":
    sys.exit(main())
