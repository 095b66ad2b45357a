"""Write the generated lit files for all specs, atomically, and find stale ones."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from harness import cases, litgen, matrix

GENERATED = "generated"


def render(cases_dir: Path) -> dict[str, str]:
    """File name -> text for every group the specs in `cases_dir` produce."""
    groups = cases.group(matrix.plan(matrix.spec_files(cases_dir)))
    return {g.filename: litgen.lit_file(g) for g in groups}


def differences(cases_dir: Path, rendered: dict[str, str]) -> list[str]:
    """Names of generated files that are missing, different, or no longer produced."""
    out_dir = cases_dir / GENERATED
    existing = {p.name for p in out_dir.glob("*.ll")} if out_dir.is_dir() else set()
    changed = [n for n, t in rendered.items() if not (out_dir / n).exists() or (out_dir / n).read_text() != t]
    return sorted(changed + [n for n in existing - set(rendered)])


def write(cases_dir: Path, rendered: dict[str, str]) -> list[str]:
    """Bring cases/generated in line with `rendered`; each file is written whole or not at all."""
    out_dir = cases_dir / GENERATED
    out_dir.mkdir(exist_ok=True)
    touched = differences(cases_dir, rendered)
    for name in touched:
        target = out_dir / name
        if name not in rendered:
            target.unlink()
            continue
        fd, tmp = tempfile.mkstemp(dir=out_dir, prefix=f".{name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(rendered[name])
            os.replace(tmp, target)
        except BaseException:
            os.unlink(tmp)
            raise
    return touched
