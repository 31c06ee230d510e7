"""An independent checker for shaped JSON: is everything that was cut declared, exactly?

It reads the shaped text with a strict parser and walks it beside the original document. Every
node of the output must either equal the original node or be declared in the envelope's
``elided`` list with the right shown and total counts; shown array elements and object members
must be the original's, in order; a shown string must be a prefix of the original's. Written
without importing the shaper, so it can catch the shaper's mistakes.
"""

from __future__ import annotations

import json
import re
from typing import Any

ENVELOPE = "__elision__"
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def _child(path: str, part: int | str) -> str:
    if isinstance(part, int):
        return f"{path}[{part}]"
    if _IDENT.match(part):
        return f"{path}.{part}"
    escaped = part.replace("\\", "\\\\").replace("'", "\\'")
    return f"{path}['{escaped}']"


def strict_loads(text: str) -> Any:
    def no_constants(name: str) -> Any:
        raise ValueError(f"non-standard constant {name}")

    def no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        keys = [k for k, _ in pairs]
        if len(keys) != len(set(keys)):
            raise ValueError(f"duplicate keys in {keys}")
        return dict(pairs)

    return json.loads(text, parse_constant=no_constants, object_pairs_hook=no_duplicates)


def unwrap(original: Any, shaped_text: str) -> tuple[dict[str, Any] | None, Any]:
    """The envelope and the shaped root of ``shaped_text``."""
    doc = strict_loads(shaped_text)
    if isinstance(doc, dict) and ENVELOPE in doc and isinstance(doc[ENVELOPE], dict) and (
        doc[ENVELOPE].get("v") == 1 and "sha256" in doc[ENVELOPE]
    ):
        envelope = doc[ENVELOPE]
        if not isinstance(original, dict) or ENVELOPE in original:
            assert list(doc) == [ENVELOPE, "value"], f"wrapped root has keys {list(doc)}"
            return envelope, doc["value"]
        assert next(iter(doc)) == ENVELOPE, "envelope is not the first key"
        rest = {k: v for k, v in doc.items() if k != ENVELOPE}
        return envelope, rest
    return None, doc


def problems(original: Any, shaped_text: str, *, root: str = "$", offset: int = 0) -> list[str]:
    """Everything dishonest about ``shaped_text`` as a shaping of ``original``."""
    envelope, shown = unwrap(original, shaped_text)
    if envelope is None:
        return [] if shown == original else ["no envelope, yet the document differs"]
    declared = {e["path"]: e for e in envelope.get("elided", [])}
    found: list[str] = []
    seen: set[str] = set()
    stack: list[tuple[Any, Any, str, int]] = [(original, shown, root, offset)]
    while stack:
        orig, out, path, start = stack.pop()
        entry = declared.get(path)
        if entry is not None:
            seen.add(path)
        if isinstance(orig, list):
            if not isinstance(out, list):
                found.append(f"{path}: array became {type(out).__name__}")
                continue
            expected = orig[start:]
            if len(out) > len(expected):
                found.append(f"{path}: more elements than the original")
                continue
            if len(out) < len(expected):
                if entry is None:
                    found.append(f"{path}: {len(out)} of {len(expected)} elements, undeclared")
                elif (entry["shown"], entry["total"], entry.get("from", 0)) != (
                    len(out), len(orig), start
                ) or entry["kind"] != "array":
                    found.append(f"{path}: entry {entry} but shows {len(out)} of {len(orig)}")
            for i, item in enumerate(out):
                stack.append((orig[start + i], item, _child(path, start + i), 0))
        elif isinstance(orig, dict):
            if not isinstance(out, dict):
                found.append(f"{path}: object became {type(out).__name__}")
                continue
            extra = [k for k in out if k not in orig]
            if extra:
                found.append(f"{path}: keys {extra} not in the original")
                continue
            if len(out) < len(orig):
                if entry is None:
                    found.append(f"{path}: {len(out)} of {len(orig)} keys, undeclared")
                elif (entry["shown"], entry["total"], entry["kind"]) != (
                    len(out), len(orig), "object"
                ):
                    found.append(f"{path}: entry {entry} but shows {len(out)} of {len(orig)}")
            if len(out) == len(orig) and entry is None and list(out) != list(orig):
                # Reordering is allowed only where something inside was cut.
                if out != orig:
                    pass
                else:
                    found.append(f"{path}: key order changed in an object shown whole")
            for key, item in out.items():
                stack.append((orig[key], item, _child(path, key), 0))
        elif isinstance(orig, str):
            if not isinstance(out, str):
                found.append(f"{path}: string became {type(out).__name__}")
                continue
            expected_str = orig[start:]
            if not expected_str.startswith(out):
                found.append(f"{path}: shown string is not a prefix of the original")
            elif len(out) < len(expected_str):
                if entry is None:
                    found.append(f"{path}: {len(out)} of {len(orig)} chars, undeclared")
                elif (entry["shown"], entry["total"], entry.get("from", 0), entry["kind"]) != (
                    len(out), len(orig), start, "string"
                ):
                    found.append(f"{path}: entry {entry} but shows {len(out)} of {len(orig)}")
        else:
            same = out == orig and type(out) is type(orig)
            if not same and not (isinstance(orig, float) and isinstance(out, float)
                                 and repr(orig) == repr(out)):
                found.append(f"{path}: scalar {orig!r} became {out!r}")
    for path in declared:
        if path not in seen:
            found.append(f"{path}: declared in the envelope but not in the output")
    return found
