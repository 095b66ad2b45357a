"""The checked-in list of known bugs per exact LLVM version (cases/known-bugs.yaml)."""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import yaml

from harness.core import files
from harness.core.errors import InputError
from harness.specs.spec import MAX_FLOW_DEPTH, flow_too_deep, quote, reader_error

FILENAME = "known-bugs.yaml"


@dataclass(frozen=True)
class Entry:
    """One glob of a known-bugs entry, where the file writes it."""

    version: str
    glob: str
    reason: str
    line: int
    col: int


def load(cases_dir: Path) -> dict[str, list[tuple[str, str]]]:
    """Version -> [(glob relative to cases/, reason)]."""
    out: dict[str, list[tuple[str, str]]] = {}
    for e in entries(cases_dir):
        out.setdefault(e.version, []).append((e.glob, e.reason))
    return out


def entries(cases_dir: Path) -> list[Entry]:
    """Every glob of the known-bugs file with its version, reason and location, in file order."""
    path = cases_dir / FILENAME
    if not path.exists():
        return []
    root, data = _parsed(path)
    if not isinstance(data, dict) or not isinstance(root, (yaml.MappingNode, type(None))):
        raise InputError("expected a mapping of LLVM version -> list of {files, reason}", str(path), 1, 1)
    at = lambda node: (str(path), node.start_mark.line + 1, node.start_mark.column + 1)
    out: list[Entry] = []
    for key, value in root.value if root is not None else []:
        if key.tag != _STR or not isinstance(key.value, str):
            raise InputError(
                f"version {quote(key.value)} is not text (YAML reads it as a {key.tag.rsplit(':', 1)[-1]}): quote it, "
                f'e.g. "{key.value}":',
                *at(key),
            )
        version = key.value
        if not isinstance(value, yaml.SequenceNode):
            raise InputError(f"version {quote(version)}: expected a list of {{files, reason}}", *at(value))
        for node, entry in zip(value.value, data[version]):
            if not isinstance(entry, dict) or set(entry) != {"files", "reason"}:
                raise InputError(f"version {quote(version)}: each entry needs exactly 'files' and 'reason'", *at(node))
            fields = {k.value: v for k, v in node.value}
            globs = entry["files"] if isinstance(entry["files"], list) else [entry["files"]]
            if not globs or not all(isinstance(g, str) and g.strip() for g in globs):
                raise InputError(
                    f"version {quote(version)}: files: expected a glob (text) or a list of globs, not {quote(entry['files'])}",
                    *at(fields["files"]),
                )
            reason = entry["reason"]
            if not isinstance(reason, str) or not reason.strip():
                raise InputError(
                    f"version {quote(version)}: reason: expected text saying why, not {quote(reason)}", *at(fields["reason"])
                )
            files_node = fields["files"]
            nodes = files_node.value if isinstance(files_node, yaml.SequenceNode) else [files_node]
            for glob_node, glob in zip(nodes, globs):
                out.append(Entry(version, glob, " ".join(reason.split()), *at(glob_node)[1:]))
    return out


def idle(cases_dir: Path, generated: Iterable[str]) -> list[str]:
    """Warnings (`file:line:col: warning: ...`) for the globs under generated/ that mark nothing:
    naming no file of `generated` (names relative to cases/, e.g. a cohort's shared file that
    the entry itself split into files of their own), or only files an earlier glob of the same
    version already gives its XFAIL."""
    path = cases_dir / FILENAME
    known = entries(cases_dir)
    names = sorted(generated)
    out = []
    for e in known:
        if not e.glob.startswith(GENERATED_PREFIX):
            continue  # (space/ names cells of the whole space, which no file holds)
        matched = [n for n in names if _glob_match(n, e.glob)]
        if not matched:
            why = "names no generated file: it marks nothing XFAIL"
        elif not any(_first(known, e.version, n) is e for n in matched):
            why = f"names {len(matched)} generated file(s), each of which gets an earlier entry's XFAIL: this one marks nothing"
        else:
            continue
        out.append(f"{path}:{e.line}:{e.col}: warning: version {quote(e.version)}: {quote(e.glob)} {why}")
    return out


GENERATED_PREFIX = "generated/"


def _first(known: list[Entry], version: str, relpath: str) -> Entry | None:
    """The entry whose reason `relpath` gets on `version` (the first that matches, as reason_for)."""
    return next((e for e in known if e.version == version and _glob_match(relpath, e.glob)), None)


def _parsed(path: Path):
    """(the YAML node tree, the data) of the known-bugs file; bad YAML is bad input, with where."""
    files.note_used(path)
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError("not UTF-8 text", str(path), path.read_bytes()[: exc.start].count(b"\n") + 1) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", str(path)) from None
    deep = flow_too_deep(text)
    if deep is not None:
        raise InputError(f"invalid YAML: more than {MAX_FLOW_DEPTH} [ or {{ open at once", str(path), *deep)
    try:
        root = yaml.compose(text)
        _no_duplicate_versions(root, path)
        data = yaml.safe_load(text) or {}
    except yaml.MarkedYAMLError as exc:
        # Some errors carry only a context mark, or none (as harness.specs.spec reads them).
        mark = exc.problem_mark or exc.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (None, None)
        raise InputError(f"invalid YAML: {exc.problem or exc.context}", str(path), line, col) from None
    except yaml.reader.ReaderError as exc:
        raise reader_error(exc, text, str(path)) from None
    except yaml.YAMLError as exc:
        raise InputError(f"invalid YAML: {str(exc).splitlines()[0]}", str(path)) from None
    except ValueError:  # (int() past Python's digit limit)
        raise InputError("invalid YAML: a number too long to read", str(path)) from None
    except RecursionError:
        raise InputError("invalid YAML: nested too deeply", str(path)) from None
    return root, data


_STR = "tag:yaml.org,2002:str"


def _no_duplicate_versions(root, path: Path) -> None:
    """A version listed twice would silently drop the first list's XFAILs: refuse it."""
    if not isinstance(root, yaml.MappingNode):
        return
    seen: dict[str, int] = {}
    for key, _ in root.value:
        line = key.start_mark.line + 1
        if key.value in seen:
            raise InputError(
                f"version {quote(key.value)} is listed twice (first on line {seen[key.value]})",
                str(path),
                line,
                key.start_mark.column + 1,
            )
        seen[key.value] = line


def reason_for(known: dict[str, list[tuple[str, str]]], version: str, relpath: str) -> str:
    """Why `relpath` (relative to cases/) is expected to fail on `version`, or ""."""
    for pattern, reason in known.get(version, []):
        if _glob_match(relpath, pattern):
            return reason
    return ""


def _glob_match(relpath: str, pattern: str) -> bool:
    """Shell-style glob per path segment: `*` never crosses a `/` (so `generated/*.ll` does not
    reach into `generated/snapshots/`)."""
    parts, globs = relpath.split("/"), pattern.split("/")
    return len(parts) == len(globs) and all(fnmatch.fnmatchcase(p, g) for p, g in zip(parts, globs))
