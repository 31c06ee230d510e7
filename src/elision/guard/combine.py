"""How the Guardian merges what several policies decided: reason codes once each, in order,
and modifications whose targets never overlap (ACS §6.3)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from elision.guard.decision import Decision, Redaction, Verdict


def codes(decisions: Iterable[Decision | Verdict]) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for d in decisions:
        for code in d.reason_codes:
            seen.setdefault(code, None)
    return tuple(seen)


def disjoint(redactions: Iterable[Redaction]) -> tuple[Redaction, ...]:
    """Merged redactions whose targets never overlap (the ACS MODIFY rule). A redaction
    already covered by a kept one (same path or an ancestor) is folded into it; one that
    covers kept ones replaces them. Folding keeps the rule counts."""
    kept: list[Redaction] = []
    for r in redactions:
        rules = r.rules or (r.reason,)
        cover = next((i for i, k in enumerate(kept) if covers(k.path, r.path)), None)
        if cover is not None:
            k = kept[cover]
            kept[cover] = replace(k, rules=(k.rules or (k.reason,)) + rules)
            continue
        inner = [k for k in kept if covers(r.path, k.path)]
        folded = rules + tuple(rule for k in inner for rule in (k.rules or (k.reason,)))
        kept = [k for k in kept if k not in inner]
        kept.append(replace(r, rules=folded))
    return tuple(kept)


def covers(ancestor: str, path: str) -> bool:
    return ancestor == path or ancestor == "" or path.startswith(ancestor + "/")
