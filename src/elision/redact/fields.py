"""A credential-named key's value, whatever its JSON type (issue 22).

``terraform output -json`` writes ``{"db_password": {"value": "…", "sensitive": true}}``; a
config lists ``"password": ["…"]``; a PIN is a number. Under a strong credential name (a
password, a secret, an API key: :func:`elision.redact.generic.name_strength`) every string
and every number inside an object or an array is withheld, at any depth, the structure kept:
the same keys, the same lengths, a stub in place of each scalar. Kept:

* booleans and null: ``sensitive: true`` says what a value is, and a value that can only be
  one of two, or none, holds no secret (and keeping them keeps the shape a reader expects);
* members whose key names a secret's metadata rather than its value
  (:data:`METADATA_KEYS`, or a key ending in ``name``: a Kubernetes volume's
  ``"secret": {"secretName": "db-creds", "defaultMode": 420}``), under a strong name only
  (:func:`keeps_metadata`);
* empty, masked and placeholder strings (:func:`~elision.redact.generic.placeholder`).

Under a weak name (a bare ``token``, ``auth``, ``credentials``) an object is left to its own
keys, and a string in an array is withheld only when it is opaque, as the member rule does.
A weak plural (``tokens``, ``cookies``) names a container of them, a map's as a list's: an
opaque string in an object under it is withheld too (``{"tokens": {"alice": S}}``, a map
from each owner to a token), its numbers kept (an LLM usage log's ``{"tokens": {"input":
12}}``).
"""

from __future__ import annotations

import re
from typing import Any

from elision.redact.compat import fold_name
from elision.redact.foreign import as_json
from elision.redact.generic import (
    STRONG,
    is_credential_value,
    is_location,
    name_strength,
    names_many,
    opaque,
)
from elision.redact.kept import kept
from elision.redact.rules import is_stub

#: Member keys (lower-cased) that say what a secret is, not what it is: kept inside a
#: credential-named object.
METADATA_KEYS = frozenset({
    "type", "kind", "sensitive", "description", "name", "version", "mode", "defaultmode",
    "optional", "id", "length", "min_length", "max_length", "minlength", "maxlength",
    "created_at", "updated_at", "expires_at", "format", "encoding", "algorithm",
})

# A path is a linked list (parent, part), so a value 10,000 levels deep costs one tuple a level.
_Rel = tuple[Any, Any] | None


def is_metadata_key(key: object) -> bool:
    """Whether a member with this key, inside a credential-named object, is kept."""
    if not isinstance(key, str):
        return False
    low = fold_name(key).lower()
    return low in METADATA_KEYS or low.endswith("name")


def keeps_metadata(
    strength: int, key: object, value: str | None = None, *, jar_entry: bool = False
) -> bool:
    """Whether a member with this key, inside a container under a name of ``strength``, is
    kept as its metadata. Under a strong name, where every other value is withheld, a
    metadata key keeps its member. Under a weak one (``cookies``, ``tokens``) a key is a
    cookie's or an owner's name as often as metadata, so a generated value is withheld
    under any key (a session cookie called ``id`` or ``mode``, ``{"cookies": {"mode": S}}``,
    was shown): a metadata key keeps only ``value``, the member's string, when it is no
    generated one (``"mode": "dark"``, a jar's ``name: id``), and nothing where no value is
    given (a reading that withholds only a generated value under a weak name).

    ``jar_entry``: the member is one of a jar's entry (an object beside a ``name`` or a
    ``value`` member), where a cookie's attributes are told apart from its value."""
    if not is_metadata_key(key):
        # A cookie's attributes in a jar's entry under a weak name (``cookies``,
        # ``session_cookie``): a plain ``path`` or ``domain`` says where the cookie goes, not
        # what it is; an opaque one is a cookie so named, withheld. Only there: in a parsed
        # header's map (``{"cookies": {"session": S}}``) each key is a cookie's name, and a
        # cookie named ``session`` or ``path`` was shown (the merge's review).
        attribute = _attribute(key)
        if strength == STRONG or value is None or attribute is None:
            return False
        if jar_entry:
            return not opaque(value)
        # Elsewhere (an options object, ``{"cookie": {"path": "/", "secure": true}}``) only
        # an attribute's own shape is kept: a path, a host, a SameSite word.
        shape = _ATTRIBUTE_SHAPES.get(attribute)
        return shape is not None and shape.fullmatch(value) is not None and not opaque(value)
    return strength == STRONG or (value is not None and not opaque(value))


#: A cookie's attributes as a jar or a browser's export writes them (lower-cased, ``_`` and
#: ``-`` off: ``max_age``, ``maxAge`` and ``Max-Age`` are one).
COOKIE_ATTRIBUTES = frozenset({
    "path", "domain", "expires", "expiry", "expirationdate", "maxage", "secure", "httponly",
    "samesite", "priority", "partitioned", "hostonly", "session", "storeid", "comment",
    "sourceport", "sourcescheme",
})


#: What a cookie's attribute holds, where it is not told apart by a jar's entry: a path of
#: words, a host name, SameSite's words (a generated cookie value has none of these shapes).
_ATTRIBUTE_SHAPES = {
    "path": re.compile(r"/(?:[A-Za-z0-9_.~-]{1,32}/?){0,8}"),
    "domain": re.compile(r"\.?(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,24}"),
    "samesite": re.compile(r"(?i:lax|strict|none)"),
}


def _attribute(key: object) -> str | None:
    """The attribute ``key`` names, as :data:`COOKIE_ATTRIBUTES` writes it; ``None`` if none."""
    if not isinstance(key, str):
        return None
    name = fold_name(key).lower().replace("_", "").replace("-", "")
    return name if name in COOKIE_ATTRIBUTES else None


def _jar_entry(node: dict[Any, Any]) -> bool:
    """Whether ``node`` is a jar's entry: a cookie written as its ``name`` and ``value``
    members beside its attributes (a browser's export, ``{"name": "sid", "value": S,
    "path": "/"}``), not a map from each cookie's name to its value."""
    return any(isinstance(key, str) and key.lower() in ("name", "value") for key in node)


def is_number(value: object) -> bool:
    """An int, a float or a raw JSON number (a bool is no number here)."""
    if isinstance(value, bool):
        return False
    return isinstance(value, int | float) or isinstance(getattr(value, "raw", None), bytes)


def withhold_inside(name: str, value: Any, stub: str) -> tuple[Any, list[tuple[Any, ...]]]:
    """``value`` (an object or array under the member name ``name``) with each scalar that
    must be withheld replaced by ``stub``, and the relative path of each; ``(value, [])``
    when nothing is (the value itself is then returned, unchanged)."""
    if not isinstance(value, dict | list):
        return value, []
    strength = name_strength(name)
    if not strength:
        return value, []
    strong = strength == STRONG
    read = strong or names_many(name)  # each member read, not left to its own key
    found: list[tuple[Any, ...]] = []
    root: list[Any] = [None]
    stack: list[tuple[Any, Any, Any, _Rel]] = [(value, root, 0, None)]
    while stack:
        node, parent, slot, rel = stack.pop()
        node = as_json(node)  # a Python caller's tuple under "password" is a list of them
        if isinstance(node, dict):
            shown = _shown_keys(node, stub)
            if not read and shown is None:
                parent[slot] = node  # its own keys say what each member is
                continue
            copy: dict[Any, Any] = {}
            parent[slot] = copy
            # Asked once an object, not once a member: a map of 20,000 cookies took 42 s.
            jar_entry = read and _jar_entry(node)
            for key, member in node.items():
                new = key if shown is None else shown.get(key, key)
                copy[new] = member
                if new is not key:
                    found.append(_parts((rel, new)))
                if read and not keeps_metadata(
                        strength, key, member if isinstance(member, str) else None,
                        jar_entry=jar_entry):
                    stack.append((member, copy, new, (rel, new)))
        elif isinstance(node, list):
            items: list[Any] = list(node)
            parent[slot] = items
            stack.extend((member, items, i, (rel, i)) for i, member in enumerate(node))
        elif _secret_scalar(name, node, strong):
            parent[slot] = stub
            found.append(_parts(rel))
        else:
            parent[slot] = node
    if not found:
        return value, []
    # A withheld key whose value is withheld too is one entry.
    return root[0], sorted(dict.fromkeys(found), key=_order)


def unique_key(text: str, taken: set[Any], tried: dict[str, int]) -> str:
    """``text``, or ``text (2)``, ``text (3)``… : the first not in ``taken`` (then added to
    it), so two keys withheld alike stay two members. ``tried`` holds, for each text, the
    number its next try starts from: 30,000 keys withheld alike each counted from 1 were
    their number squared."""
    n = tried.get(text, 1)
    new = text if n == 1 else f"{text} ({n})"
    while new in taken:
        n += 1
        new = f"{text} ({n})"
    tried[text] = n + 1
    taken.add(new)
    return new


def _shown_keys(node: dict[Any, Any], stub: str) -> dict[str, str] | None:
    """Each key of ``node`` (an object under a credential's name) that is itself a secret,
    mapped to the stub it is shown as; ``None`` when none is.

    Under ``password``, ``tokens`` or ``api_keys`` a key that looks generated (:func:`opaque`:
    ``{"tokens": {S: "bob"}}``, a map from each key to its owner) is one of the credentials
    the name says are there, whatever the name's strength; a user's or an environment's name
    (``{"passwords": {"bob": S}}``) is not opaque and stays."""
    secret = [key for key in node if isinstance(key, str) and _secret_key(key)]
    if not secret:
        return None
    taken = set(node) - set(secret)
    tried: dict[str, int] = {}
    return {key: unique_key(stub, taken, tried) for key in secret}


@kept  # an object under a name repeats its keys down an array (one rule search a key)
def _secret_key(key: str) -> bool:
    if is_stub(key) or not opaque(key) or is_location(key):
        return False
    # A key a rule finds a credential in (an AWS key id) is the walk's to withhold with its
    # rule's stub, as anywhere else (elision.redact.walk's keys): asked of opaque keys alone.
    from elision.redact.scan import find_spans

    return not find_spans(key)


def _secret_scalar(name: str, node: Any, strong: bool) -> bool:
    if isinstance(node, str):
        return not is_stub(node) and is_credential_value(name, node)
    return strong and is_number(node)


def _parts(rel: _Rel) -> tuple[Any, ...]:
    parts: list[Any] = []
    while rel is not None:
        rel, part = rel
        parts.append(part)
    return tuple(reversed(parts))


def _order(parts: tuple[Any, ...]) -> tuple[tuple[int, str], ...]:
    return tuple((0, f"{p:020d}") if isinstance(p, int) else (1, str(p)) for p in parts)
