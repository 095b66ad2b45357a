"""The checked-in list of known bugs per exact LLVM version (cases/known-bugs.yaml)."""

from __future__ import annotations

import fnmatch
from pathlib import Path

import yaml

from harness.core.errors import InputError
from harness.specs.spec import MAX_FLOW_DEPTH, flow_too_deep, quote, reader_error

FILENAME = "known-bugs.yaml"


def load(cases_dir: Path) -> dict[str, list[tuple[str, str]]]:
    """Version -> [(glob relative to cases/, reason)]."""
    path = cases_dir / FILENAME
    if not path.exists():
        return {}
    root, data = _parsed(path)
    if not isinstance(data, dict) or not isinstance(root, (yaml.MappingNode, type(None))):
        raise InputError("expected a mapping of LLVM version -> list of {files, reason}", str(path), 1, 1)
    out: dict[str, list[tuple[str, str]]] = {}
    for key, value in root.value if root is not None else []:
        at = lambda node: (str(path), node.start_mark.line + 1, node.start_mark.column + 1)
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
            out.setdefault(version, []).extend((g, " ".join(reason.split())) for g in globs)
    return out


def _parsed(path: Path):
    """(the YAML node tree, the data) of the known-bugs file; bad YAML is bad input, with where."""
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
