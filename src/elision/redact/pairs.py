"""A value whose name is a sibling member: ``{"name": "DB_PASSWORD", "value": "…"}``.

Many tools write a setting as a pair of members rather than one: Kubernetes a container's
environment (``env: [{"name": …, "value": …}]``), ECS task definitions and HAR headers the
same, AWS SSM a parameter (``{"Name": "/prod/db/password", "Type": "SecureString", "Value":
…}``) and tags (``{"Key": …, "Value": …}``). The member rules read a member by its own key,
and ``value`` names nothing, so such a password reached the model whole. Here the pair's
value is the value of a member named by the pair's name: a string judged as that member's
(:func:`elision.redact.secrets.is_credential_field`), a container as one under that name
(:func:`elision.redact.fields.withhold_inside`).

Only the exact spellings below are read (two dict look-ups an object, the common case one):
a pair's keys are a format's, written one way by the tool that writes it.
"""

from __future__ import annotations

from typing import Any

#: The key that names the pair, and the key of its value, as formats spell them.
PAIRS = (("name", "value"), ("key", "value"), ("Name", "Value"), ("Key", "Value"))


def paired_value(node: dict[Any, Any]) -> tuple[str, str] | None:
    """``(value key, name)`` when ``node`` holds a pair whose name is a string, else ``None``.

    Whether the name is a credential's is the caller's to judge (with the value it names)."""
    if "value" not in node and "Value" not in node:
        return None
    for name_key, value_key in PAIRS:
        name = node.get(name_key)
        if isinstance(name, str) and value_key in node:
            return value_key, name
    return None
