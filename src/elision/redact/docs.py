"""The table of credential families in ``docs/redaction-families.md``, written from the table.

``python -m elision.redact.docs > docs/redaction-families.md`` regenerates it; a test checks
that the committed page is what this writes. Example shapes are placeholders
(``ghp_<alnum:36>``), so the page holds nothing a scanner, or elision itself, takes for a live
secret.
"""

from __future__ import annotations

import sys

from elision.redact.families import FAMILIES, Family, render

_CATEGORIES = {
    "cloud": "Cloud and platforms", "vcs": "Version control", "ci": "CI and deployment",
    "registries": "Package registries", "payment": "Payment and commerce",
    "messaging": "Messaging and webhooks", "ai": "AI APIs", "observability": "Observability",
    "saas": "SaaS", "databases": "Databases", "keys": "Private keys", "tokens": "Tokens",
    "generic": "Generic secrets", "urls": "Signed and credential-bearing URLs",
}


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", "⏎")


def _example(family: Family) -> str:
    return f"`{_cell(render(family.shapes[0]))}`"


def markdown() -> str:
    """The page: one section per category, one row per family (id, provider, example)."""
    lines = [
        "# Redaction: credential families",
        "",
        "Generated from `src/elision/data/families.toml` by `python -m elision.redact.docs`;",
        "do not edit by hand. Each row is the `reason` a stub names",
        "(`[credential withheld: <id>]`), who issues the credential, and the shape of an example:",
        "`<alnum:36>` stands for 36 letters and digits, `<hex:32>` for 32 hex digits, `<b64:40>`",
        "for 40 base64 chars; `⏎` is a line break. A credential is also found JSON-escaped",
        "(`\\u0067hp_…`), percent-encoded, or inside one level of base64.",
        "",
        f"{len(FAMILIES)} families.",
    ]
    for category, title in _CATEGORIES.items():
        rows = [f for f in FAMILIES if f.category == category]
        if not rows:
            continue
        lines += ["", f"## {title}", "", "| id | provider | example |", "|---|---|---|"]
        lines += [f"| `{f.id}` | {_cell(f.provider)} | {_example(f)} |" for f in rows]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.stdout.write(markdown())
