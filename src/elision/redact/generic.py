"""Generic secrets: a value under a credential-named key, wherever the name is written.

One classifier (:func:`name_strength`) reads a name the way a person would: ``DB_PASSWORD``,
``dbPassword``, ``db-password`` and ``"db_password"`` are one name whose last word is a
password, and so are ``DB_PASSWORD_2`` and ``db_password_old`` (an affix says which one of
them it is: :data:`_AFFIXES`); ``password_hash``, ``secret_name``, ``private_key_id``,
``sort_key`` and ``page_token`` are not credentials. A strong name (a password, a secret, an
API key) withholds any real value; a weak one (a bare ``token``, ``auth``, ``credentials``)
only an opaque one, long and high in entropy, so that ``token: 4096`` and a shell's
``PWD=/home/ada`` stay.

The same classifier serves JSON members (:func:`is_credential_value`) and text
(:func:`find_assignments`): ``.env`` and INI lines, YAML, JSON written into a text, HTTP
headers (``X-Api-Key:``, ``Authorization:`` with a scheme other than Bearer and Basic, which
have rules of their own, ``Cookie:`` and ``Set-Cookie:`` values), ``name=value`` in prose, and
command-line flags (``--password VALUE``; ``-p VALUE`` only where a command makes it one).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Iterator, Sequence
from itertools import accumulate, pairwise, repeat
from operator import itemgetter, methodcaller

from elision._lazyre import lazy_compile
from elision.redact import authheader, folding, variables
from elision.redact.commands import COMMAND_GATES, NextMatch, password_flags
from elision.redact.compat import fold_name
from elision.redact.families import TEMPLATE, entropy, generated_letters
from elision.redact.folding import fold
from elision.redact.kept import LONGEST, keep, kept
from elision.redact.rules import Span, is_stub, make_span, names_behind
from elision.redact.variables import scrambled

STRONG, WEAK = 2, 1
#: The longest name read back from its word (a name is read on for twice this).
_LONGEST_NAME = 96
_CURSOR = -1  # a name that is certainly not a credential's
ASSIGNMENT = "credential-assignment"
AUTH_HEADER = "auth-header"
COOKIE = "session-cookie"

#: A last word that makes a name a password or a secret.
_STRONG_ENDINGS = ("password", "passwd", "passphrase", "pwd", "secret", "secrets")
#: ``<word>_key`` and ``<word>_token`` that are credentials whatever their value looks like.
STRONG_KEY_QUALIFIERS = frozenset({
    "api", "secret", "private", "access", "signing", "encryption", "master", "auth", "account",
    "app", "client", "license", "subscription", "admin", "service", "write", "ingest",
    "session", "hmac", "shared", "consumer", "storage", "deploy", "root", "jwt", "webhook",
    "decryption", "sas", "x_api",
})
#: ``<word>_key`` that may be a credential when its value is opaque (Azure's primaryKey).
WEAK_KEY_QUALIFIERS = frozenset({"primary", "secondary", "ssh", "gpg", "pgp", "pass", "crypto"})
_STRONG_TOKEN_QUALIFIERS = frozenset({
    "access", "refresh", "id", "auth", "session", "bearer", "api", "bot", "oauth", "app",
    "secret", "private", "deploy", "personal", "service", "admin", "registration", "webhook",
    "security", "csrf", "xsrf",
})
#: ``<word>_token`` that is a cursor, a counter or a lexer's token, never a credential.
_CURSOR_QUALIFIERS = frozenset({
    "page", "next", "prev", "previous", "continuation", "pagination", "cursor", "sync",
    "resume", "start", "end", "last", "marker", "max", "min", "num", "total", "input",
    "output", "prompt", "completion", "cached", "reasoning", "sort", "count", "stop", "eos",
    "bos", "pad", "unk", "special", "mask", "sep", "cls", "first", "delta", "change",
})
_WEAK_ENDINGS = frozenset({
    "token", "auth", "oauth", "authorization", "credential", "credentials", "cookie", "jwt",
})
_FUSED = ("key", "token", "secret")
#: What a name may carry after the word that says what it holds, which says which one of
#: them it is: a number, a version, an age (``password_0``, ``secret_v2``, ``token-new``,
#: ``client_secret_old``, ``passwd-backup``), as a word of its own or glued to the last.
_AFFIX_WORDS = ("old", "new", "backup", "bak", "prev", "previous", "orig")
# One char a repeat where a run of digits is one affix: ``(?:[0-9]+|…)+`` nests a repeat in a
# repeat, which backtracks exponentially where it fails (a JSON key ``a111…1v``: 0.2 s at 22
# digits, 4x each two more, found by test_redact_foreign_values at 14 s). The same names.
_AFFIXES = f"(?:[0-9]|v[0-9]|{'|'.join(_AFFIX_WORDS)})+"
_AFFIX = lazy_compile(_AFFIXES)
_GLUED_AFFIX = lazy_compile(f"(.*?[a-z]){_AFFIXES}")
_CAMEL = lazy_compile(r"([a-z0-9])([A-Z])")
_WORDS = lazy_compile(r"[^a-z0-9]+")

#: Suffixes of the JSON member names the trigger search looks for (at their ``":``), and
#: the plurals of the strong ones (``passwords``, ``api_keys``, ``access_tokens``: a
#: container of them, :func:`_singular`). Not a bare ``tokens``: an LLM API's usage counts
#: (``"prompt_tokens":``, ``"total_tokens":``) made a log of them credential-dense.
_SINGULAR_SUFFIXES = frozenset(
    {*_STRONG_ENDINGS, *_WEAK_ENDINGS, "pass", "api_key", "apikey", "api-key"}
    | {f"{q}{sep}key" for q in STRONG_KEY_QUALIFIERS | WEAK_KEY_QUALIFIERS
       for sep in ("", "_", "-") if "_" not in q}
)
FIELD_SUFFIXES: tuple[str, ...] = tuple(sorted(
    _SINGULAR_SUFFIXES
    | {"passwords", "passwds", "passphrases", "pwds", "api_keys", "apikeys", "api-keys"}
    | {f"{q}{sep}keys" for q in STRONG_KEY_QUALIFIERS for sep in ("", "_", "-") if "_" not in q}
    | {f"{q}{sep}tokens" for q in _STRONG_TOKEN_QUALIFIERS for sep in ("", "_", "-")}
))
#: A property list's key closed (``<key>password</key>`` over ``<string>S</string>``, a macOS
#: or iOS config: :mod:`elision.redact.elements`): each name's literal with the close tag, so
#: the search is anchored on its ``>`` as ``password>`` is, and ``</key>`` alone (every key
#: of a plist) is none.
PLIST_KEY_CLOSE = "</key>"
#: Names the trigger search looks for only whole, in quotes. The weak plurals whose
#: singular's trigger misses them (``token`` then an ``s``, no separator): the quotes on both
#: sides keep out a usage log's ``"prompt_tokens"`` and ``"total_tokens"`` (the reason a bare
#: ``tokens`` is no suffix above), so ``{"tokens": [S]}`` is read
#: (:func:`~elision.redact.fields.withhold_inside` withholds an opaque item under a weak
#: name). And a form's CSRF field named ``_csrf`` (:mod:`elision.redact.pairs`). Each also
#: as JSON text in a JSON string writes it, at any depth (:data:`_QUOTED_DEEP`).
_QUOTED_WHOLE = ('"_csrf"', '"cookies"', '"jwts"', '"tokens"')
#: :data:`_QUOTED_WHOLE` as JSON-in-JSON writes each at any depth: its closing quote after
#: the backslashes of its level (1, 3, 7, 15: ``\\"tokens\\"`` a level down,
#: ``\\\\\\"tokens\\\\\\"`` two), or after 16 of them or more, five levels down or deeper (as
#: ``keywords.DEEP_RUN`` reads a "/"): a walked string is searched in its serialization, and
#: a text inside a JSON string's JSON was shown. A quote before the name keeps out
#: ``\\"prompt_tokens\\"``, and the run of backslashes before a quote a JSON string's
#: ``"tokens\\n…`` (a trigger, a log of such lines was withheld whole as dense); the escape
#: view reads what follows plain at any depth (``encodings.decode_escapes``).
_QUOTED_DEEP = tuple(
    name[:-1] + "\\" * run + tail for name in _QUOTED_WHOLE
    for run, tail in ((1, '"'), (3, '"'), (7, '"'), (15, '"'), (16, ""))
)
#: The weak plurals unquoted where only a key is written so: ``tokens:`` ending its line (a
#: YAML list or map under it; a usage log's ``prompt_tokens: 12`` has its count after the
#: ``:``, and a name that only ends with ``tokens`` is judged a cursor; its break escaped
#: too, as a walked string's serialization writes it), or a property list's whole key
#: (``<key>tokens</key>`` over an ``<array>``).
_WHOLE_KEYS = tuple(
    f"{before}{name}{after}"
    for name in ("cookies", "jwts", "tokens")
    for before, after in (("", ":\n"), ("", ":\r"), ("", ":\\n"), ("", ":\\r"),
                          (">", PLIST_KEY_CLOSE))
)
#: A cookie map or a jar's list written in a text after a name ending in ``cookies``, quoted
#: or not (a log's ``cookies: [{"name": "sid", "value": S}]``, ``cookies={…}``, a Python
#: repr's ``'cookies': {…}``, ``"authCookies": {…}``, a JSON string's ``\\"cookies\\": {…}``,
#: and JSON-in-JSON's at any depth, its quote after 3, 7 or 15 backslashes, or a run of 16 or
#: more five levels down or deeper): read
#: as the walk reads one parsed. The plural's other values (a count or a word after
#: ``cookies:``) are no trigger.
_COOKIE_CONTAINERS = (
    *(f"cookies{sep}{bracket}"
      for sep in (":", ": ", "=", " = ", '":', '": ', "':", "': ",
                  *(f'{slashes}"{colon}' for slashes in ("\\", "\\" * 3, "\\" * 7, "\\" * 15)
                    for colon in (":", ": ")))
      for bracket in "[{"),
    # ... and five levels down or deeper (its quote after 31 backslashes, 63, …): the name then
    # a run of 16 or more, as _QUOTED_DEEP's; the escape view reads the container.
    "cookies" + "\\" * 16,
)
#: The most dashes of a delimiter row's first cell that does not open with ``|`` the
#: trigger search knows (a literal a count): 32, some 450 literals (their cost: bench/README.md).
_DELIMITER_DASHES = 32
#: The most spaces between a delimiter row's opening ``|`` and its first cell's dashes the
#: trigger search knows (a literal a count).
_DELIMITER_GAP = 8
#: A Markdown table's delimiter row opening its line, the break plain or as a JSON string
#: escapes it (``\\n|---|``): a walked string that holds a table is judged
#: (:mod:`elision.redact.mdtables`), its header's names written with no separator a trigger
#: is (``| name | password |``). Its first cell alone, one match a table: a cell each
#: (``-|-``) made a document of wide tables credential-dense; and a cell closed or of four
#: dashes or more or opening with ``:``, as ``|-- src`` and ``|--- src`` open each line of a
#: ``tree`` listing, which was then withheld whole as dense.
TABLE_ROWS = tuple(
    f"{br}|{gap}{cell}" for br in ("\n", "\\n") for gap in ("", " ")
    for cell in ("---|", "--- |", "----", "---:", ":-", "-|", "- |", "--|", "-- |", "-:", "--:")
) + tuple(
    # A first cell of one or two dashes, closed (``|-|``, ``| -- |``): a ``tree`` listing's
    # ``|-- name`` has no ``|`` after its dashes. A delimiter row that does not open with a
    # ``|`` (``--- | ---``, ``:--|--:``, ``---------|-----``: a first cell as wide as its
    # header's name), by its first cell closed, of :data:`_DELIMITER_DASHES` at most:
    # ``---`` or ``-----`` alone is YAML's and Markdown's rule, on a line of its own, so
    # the literal holds the cell's close.
    f"{br}{left}{'-' * dashes}{right}{gap}|" for br in ("\n", "\\n")
    for dashes in range(1, _DELIMITER_DASHES + 1) for left in ("", ":") for right in ("", ":")
    for gap in ("", " ")
)
TABLE_PREFIXES = tuple(
    # A first cell wider than that, or closed after two spaces or more (``---  |``, ``|-  |``),
    # or opened after two to :data:`_DELIMITER_GAP` (``|   ---|``): the literal is the line's
    # start alone, so a ruled line (``\n-----…`` of 33 dashes, ``--  note``) opens as one
    # does: a match whose line is no delimiter row is no match at all
    # (:func:`elision.redact.weak.delimiter_row`; a log of rules was judged a line each).
    f"{br}{lead}" for br in ("\n", "\\n") for lead in (
        *(f"{left}{'-' * (_DELIMITER_DASHES + 1)}" for left in ("", ":")),
        *(f"{left}{'-' * dashes}{right}  " for dashes in range(1, _DELIMITER_DASHES + 1)
          for left in ("", ":") for right in ("", ":")),
        *(f"|{gap}{'-' * dashes}  " for gap in ("", " ") for dashes in range(1, 4)),
        *(f"|{' ' * gap}{first}" for gap in range(2, _DELIMITER_GAP + 1) for first in "-:"),
    )
)
#: A tab as a text writes it and as a JSON string escapes it, by its line break's spelling.
_TABS = {"\n": "\t", "\\n": "\\t"}
TABLE_PREFIXES += tuple(
    # A delimiter row indented (`` |---|``, `` --- | ---``: up to three spaces or a tab, as
    # CommonMark reads four as code), a tab in its first cell's spacing (``|\t---|``,
    # ``---\t| ---``), or opened more than :data:`_DELIMITER_GAP` spaces after its ``|``:
    # no literal above, so ``redact_value`` and ``shape()`` showed the column under it. Each
    # a line's start as the ones above (a YAML item ``  - x`` opens as none of them: a
    # single dash is read only before a ``|``, a ``:``, a tab or two spaces).
    f"{br}{lead}" for br, tab in _TABS.items() for lead in (
        *(f"{indent}{cell}" for indent in (" ", "  ", "   ", tab) for cell in (
            "|-", "|:", "| -", "| :", "|  ", f"|{tab}", f"| {tab}",
            "--", "-|", "- |", "-:", f"-{tab}", f"- {tab}", "-  ", ":-")),
        *(f"|{' ' * gap}{tab}" for gap in range(_DELIMITER_GAP + 1)),
        *(f"|{gap}{'-' * dashes}{space}{tab}" for gap in ("", " ") for dashes in range(1, 4)
          for space in ("", " ")),
        f"|{' ' * (_DELIMITER_GAP + 1)}",
        *(f"{left}{'-' * dashes}{right}{gap}" for dashes in range(1, _DELIMITER_DASHES + 1)
          for left in ("", ":") for right in ("", ":") for gap in (tab, f" {tab}")),
    )
)
TABLE_ROWS += TABLE_PREFIXES
#: An XML element's open tag written as HTML escapes it (``&lt;password&gt;S&lt;/password&gt;``:
#: an XML config shown in a page, or in a JSON string of one): each name before ``&gt;``,
#: as ``password>`` is (:mod:`elision.redact.elements` reads the element); the search
#: ignores case (``&GT;``). Before ``&#62;``, ``&#x3e;`` and ``&amp;gt;`` (an escape escaped
#: again) too. Each ends with ``;``, the regex passes' anchor: ``&#`` alone was anchored on a
#: name's rarest letter (the regex passes' prose 95 -> 125 ms a MB), ``&amp;`` tried every
#: name at each ``&amp;`` of a page (90 -> 170). ``&#062;``, ``&amp;#62;`` and
#: ``&amp;amp;gt;`` are read where another trigger is, not found alone.
ESCAPED_TAGS = tuple(f"{name}{escape}" for name in FIELD_SUFFIXES
                     for escape in ("&gt;", "&#62;", "&#x3e;", "&amp;gt;"))
QUOTED_NAMES = (
    *_QUOTED_WHOLE, *_QUOTED_DEEP, "'_csrf'",
    *_WHOLE_KEYS, *_COOKIE_CONTAINERS, *TABLE_ROWS, *ESCAPED_TAGS,
)
#: What a name must be followed by, in a text, for the trigger search to flag it (``>``: an
#: XML element's open tag, ``<password>``, :mod:`elision.redact.elements`).
TEXT_SEPARATORS = ("=", ":", '"', "'", "\\", " =", " :", ">")
#: A name written as a command-line flag, then its value after a space (``--password x``).
#: Not a plural's (``--passwords``): each flag is a branch the regex passes try at every
#: ``-`` (a log's dates), and the plurals tripled that pass's time on prose.
FLAG_TRIGGERS: tuple[str, ...] = tuple(sorted(
    {f"-{name}{gap}" for name in _SINGULAR_SUFFIXES for gap in (" ", "\t")}
))
#: A name that ends its line: a YAML pair's name (``- name: DB_PASSWORD`` over ``value: …``,
#: :mod:`elision.redact.pairs`), SQL's ``PASSWORD`` over its quoted value. Not ``pass``
#: (a Python block's), nor the names of a header or a scheme (``auth``, ``cookie``): a
#: listing of code was a trigger a line.
_LINE_END_NAMES = _SINGULAR_SUFFIXES - {"pass", "auth", "oauth", "authorization", "cookie"}
LINE_END_TRIGGERS = tuple(sorted({f"{name}{end}" for name in _LINE_END_NAMES for end in "\r\n"}))
#: A shell's ``${NAME-default}`` (and ``+``) with no colon: the default is NAME's value as
#: typed, as after ``:-`` (whose ``:`` is a separator already). The name is a shell
#: variable's, so it opens the braces or is a compound's last ``_`` part (``${PASSWORD-``,
#: ``${DB_PASSWORD-``): ``password-`` alone is every ``password-protected``, ``key-`` every
#: ``key-value``. A name glued to a word before it (``${DBPASS-``) is no trigger, but
#: PostgreSQL's ``PGPASSWORD``, which every ``psql`` wrapper script defaults.
SHELL_DEFAULT_TRIGGERS = tuple(sorted(
    {f"{before}{name}{operator}" for name in _SINGULAR_SUFFIXES if "-" not in name
     for before in "{_" for operator in "-+"}
    | {f"{{pgpassword{operator}" for operator in "-+"}
))
#: A name that closes a Markdown row's first cell (``| password | S |``, a key/value row with
#: no table around it, :mod:`elision.redact.mdtables`): a whole text reads its rows anyway,
#: but the walk judges a JSON string only at a trigger (``{"text": "Settings:\\n| password
#: | S |\\n"}`` was shown by every route).
ROW_NAME_TRIGGERS = tuple(sorted({f"{name}{end}" for name in _LINE_END_NAMES
                                  for end in (" |", "|")}))
#: The last word of every name in :data:`FIELD_SUFFIXES`, but one that another ends with
#: (``oauth``'s affixes hold ``auth``'s).
_LAST_WORDS = frozenset(name.replace("-", "_").rsplit("_")[-1] for name in FIELD_SUFFIXES)
_AFFIXED_WORDS = tuple(sorted(
    word for word in _LAST_WORDS
    if not any(other != word and word.endswith(other) for other in _LAST_WORDS)
))
#: The credential words an affix may follow (a flag's ``-`` opens one of them).
AFFIXED_WORDS = _AFFIXED_WORDS
#: How each affix opens: a digit, ``v`` and a digit, or a word (but one that another opens:
#: ``previous``).
_OPENING_WORDS = tuple(
    w for w in _AFFIX_WORDS if not any(o != w and w.startswith(o) for o in _AFFIX_WORDS))
_AFFIX_HEADS = (*"0123456789", *(f"v{d}" for d in "0123456789"), *_OPENING_WORDS)
#: A credential name's last word, then how an affix is joined and opens (``password_0``,
#: ``token2``, ``secret-v2``, ``passwd.old``): an affixed name's separator is past its affix,
#: where no literal of a name and a separator reaches, so the trigger search looks for these
#: wherever they are (hyperscan's literals).
AFFIX_TRIGGERS: tuple[str, ...] = tuple(sorted(
    f"{word}{joint}{head}" for word in _AFFIXED_WORDS for joint in ("", "_", "-", ".")
    for head in _AFFIX_HEADS
))
#: What must follow one of :data:`AFFIX_TRIGGERS` for it to count: the rest of the name (read
#: no further than a name is), then what assigns it. Without it ``cache:key_1`` lines and
#: ``token_0 token_1 …`` were triggers dense enough to be withheld whole.
AFFIX_ASSIGNED = (
    f"[A-Za-z0-9_.-]{{0,{2 * _LONGEST_NAME}}}(?:{'|'.join(map(re.escape, TEXT_SEPARATORS))})"
)
#: The most name chars :data:`AFFIX_ASSIGNED` reads before what assigns the name.
AFFIX_NAME_MOST = 2 * _LONGEST_NAME
#: Or, where a ``-`` opens the word (``--password_2 VALUE``, ``--secret-v2 VALUE``,
#: ``--api-key-2 VALUE``), the rest of the name and the gap before a flag's value: a flag's
#: name is followed by a space, which no literal of a name and a flag's gap reaches past an
#: affix (``-password `` does not).
AFFIX_FLAG = f"[A-Za-z0-9_.-]{{0,{2 * _LONGEST_NAME}}}[ \\t]"
#: What comes before an affixed ``key`` for it to count (``api_``, ``secret-``, ``app``): a
#: ``key`` alone names nothing (``sort_key_1 = 1`` is no trigger, as ``sort_key = 1`` is none).
KEY_QUALIFIED = tuple(sorted(
    name[:-3] for name in FIELD_SUFFIXES if name.endswith("key") and len(name) > 3))
#: The same triggers as a regex a word, followed by :data:`AFFIX_ASSIGNED` (and ``key``
#: after one of :data:`KEY_QUALIFIED`), for the passes without hyperscan (1,500 literals
#: there were 1,500 ``in`` tests a text, or as many look-behinds at each ``_``): each opens
#: with its word, which an ``in`` test tells is there before the search runs.
#: A word that opens others is one pass with them (``pass``: ``password``, ``passwd``).
_AFFIX_GATES = tuple(w for w in _AFFIXED_WORDS
                     if not any(o != w and w.startswith(o) for o in _AFFIXED_WORDS))
#: Each word's flag form is a pattern of its own, opening with ``-`` and the word: a search
#: for that literal is as fast as for the word alone (an optional look-behind before the word
#: would try every position).
AFFIX_PATTERNS: tuple[tuple[str, str], ...] = tuple(
    # A ``key``'s qualifier is asked right after the word, before its plural's ``s``, once
    # what follows is known to be an affix (a ``key`` in prose asks no look-behind).
    (gate, opening + gate + (
        f"(?=s?[_.-]?(?:[0-9]|v[0-9]|{'|'.join(_OPENING_WORDS)}))"
        + names_behind(list(KEY_QUALIFIED), "key") if gate == "key" else "")
     + "(?:" + "|".join(sorted(
        (w[len(gate):] for w in _AFFIXED_WORDS if w.startswith(gate)), key=len, reverse=True))
     + ")"
     + f"[_.-]?(?:[0-9]|v[0-9]|{'|'.join(_OPENING_WORDS)}){then}")
    for gate in _AFFIX_GATES for opening, then in (("", AFFIX_ASSIGNED), ("-", AFFIX_FLAG))
)
#: A superset of :data:`AFFIX_PATTERNS`' matches as hyperscan's regex mode reads them, one a
#: credential word, any case: the word, an affix's start, any name chars and what assigns it
#: (no bound and no look-behind, which :data:`AFFIX_PATTERNS` then read around where each
#: match ends). The keyword search's databases hold these 18 where they held the 1,560
#: literals of :data:`AFFIX_TRIGGERS` (200 KB a database), and a chance ``key1`` in random
#: base64 or inside an ``sk-`` key, which nothing assigns, is no match (issue 23).
AFFIX_ASSIGNED_ANYWHERE: tuple[str, ...] = tuple(
    # A gate a pattern, its words (a plural's too: ``password``, ``passwords``) alternatives.
    f"{opening}{gate}(?:" + "|".join(sorted(
        (w[len(gate):] for w in _AFFIXED_WORDS if w.startswith(gate)), key=len, reverse=True))
    + f")[_.-]?(?:[0-9]|v[0-9]|{'|'.join(_OPENING_WORDS)})[A-Za-z0-9_.-]*{then}"
    for gate in _AFFIX_GATES
    # A flag's form too (``--password_2 VALUE``): a ``-`` opens it and a gap ends it.
    for opening, then in (("", f"(?:{'|'.join(map(re.escape, TEXT_SEPARATORS))})"),
                          ("-", "(?:[ \\t])"))  # each ends in a group: see _may_assign
)

#: The affixed names that count in a JSON serialization (orjson's compact output), as
#: hyperscan regexes, any case, each with how many bytes before its match's last its position
#: is (inside the string that holds the name): a value's ``key1`` is no name (``["key1"]``,
#: ``{"a": "token_1 token_2 …"}``), only a key or an assignment inside a string names one.
#: A ``key`` counts after a qualifier only (:data:`KEY_QUALIFIED`, read as part of the match).
#: Told by the JSON scan in C where each affixed literal was a Python call (issue 23).
AFFIX_IN_JSON: tuple[tuple[str, int], ...] = tuple(
    (f"{opening}{qualified}{word}[_.-]?(?:[0-9]|v[0-9]|{'|'.join(_OPENING_WORDS)}){then}", back)
    for word in _AFFIXED_WORDS
    for qualified in ([f"(?:{'|'.join(map(re.escape, KEY_QUALIFIED))})"] if word == "key"
                      else [""])
    for opening, then, back in (
        # assigned inside its string (a separator but the quote that closes the string),
        # or ended by a char past ASCII (as :func:`unassigned` lets count): the last byte
        ("", "[A-Za-z0-9_.-]*(?:=|:|'|\\\\| =| :|[\\x80-\\xff])", 0),
        ("-", "[A-Za-z0-9_.-]*[ \\t]", 0),  # a flag's name, then its gap
        # a key, whatever follows the name in it: the byte before its closing quote
        ("", '[^"]*":', 2),
        # an escaped quote first: the string may be a key, so the name counts (that quote)
        ("", '[^"]*\\\\"', 0),
        # a pair's name (elision.redact.pairs: ``{"name":"DB_PASSWORD_0","value":…}``): a
        # value that names its sibling, so it counts as a key does (the byte before its quote)
        ('"(?:name|key)":"[^"]*', '[^"]*"', 1),
    )
)


def words(name: str, *, camel: bool = True) -> list[str]:
    """``dbPassword`` -> ``["db", "password"]``; a fused ``apikey`` -> ``["api", "key"]``.
    Read as a program that compares names reads it: a look-alike letter is its letter
    (:mod:`elision.redact.folding`), a full-width form its ASCII and an invisible char
    nothing (:mod:`elision.redact.compat`)."""
    name = fold_name(name)
    return list(_camel_words(name) if camel else _split(name))


def _split(spaced: str) -> tuple[str, ...]:
    parts = [w for w in _WORDS.split(spaced.lower()) if w]
    while len(parts) > 1 and _AFFIX.fullmatch(parts[-1]):
        del parts[-1]  # ``password_2``, ``secret_v2``: the word before names what it holds
    # A glued affix is looked for in a word no longer than a name is read (its lazy prefix
    # makes a failing match quadratic in the word): ``password2``, not a 100 KB key.
    if parts and len(parts[-1]) <= 2 * _LONGEST_NAME:
        glued = _GLUED_AFFIX.fullmatch(parts[-1])
        if glued:
            parts[-1] = glued[1]  # ``password2``, ``apikeyv2``, ``secretold``
    if parts:
        parts[-1] = _singular(parts[-1])
        last = parts[-1]
        for end in _FUSED:
            if last.endswith(end) and len(last) > len(end):
                parts[-1:] = [last[: -len(end)], end]
                break
    return tuple(parts)


#: The words whose plural names a container of what they name: ``passwords``, ``api_keys``,
#: ``tokens`` are read as ``password``, ``api_key``, ``token`` (a bare ``keys`` is a ``key``:
#: nothing; ``passes`` no ``pass``).
_PLURALS = (*_STRONG_ENDINGS, "key", "token", "cookie", "jwt", "credential", "auth",
            "authorization")


def _singular(word: str) -> str:
    """``word`` without the ``s`` of a plural of a credential's word, or ``word``."""
    if word.endswith("s") and word[:-1].endswith(_PLURALS):
        return word[:-1]
    return word


@kept
def names_many(name: str) -> bool:
    """Whether ``name``'s last word (an affix off) is the plural of a word for a token
    (``tokens``, ``authCookies``, ``jwts_2``): it names a container of them, so under a weak
    one a map's opaque values are its items (``{"tokens": {"alice": S}}``), as its list's
    are; a singular ``token``'s object is left to its own keys, and so is ``credentials``'s
    (AWS's ``{"Credentials": {"AccessKeyId": …}}``: its own keys say what each is, and its
    key id is its family's to withhold, by its rule's stub)."""
    parts = [w for w in _WORDS.split(_CAMEL.sub(r"\1_\2", fold_name(name)).lower()) if w]
    while len(parts) > 1 and _AFFIX.fullmatch(parts[-1]):
        del parts[-1]
    return bool(parts) and parts[-1] in _MANY


#: The plurals :func:`names_many` reads as a container of tokens, and ``cookie``: its object
#: is a parsed header's map from each cookie's name to its value (``{"cookie": {"sid": S}}``)
#: or a jar's entry (``{"name": "sid", "value": S, "path": "/"}``), so a key is a cookie's
#: name or its metadata, never what the value is (left to its own keys, the walk and
#: ``shape()`` showed ``S``; a text's reading withheld it).
_MANY = frozenset({"tokens", "cookies", "jwts", "cookie"})


@kept
def _camel_words(name: str) -> tuple[str, ...]:
    return _split(_CAMEL.sub(r"\1_\2", name))


#: Each ASCII digit made ``0``: a name's shape (:func:`name_shape`).
_ZEROED = str.maketrans("123456789", "0" * 9)
_strengths: dict[str, int] = {}


def name_shape(name: str) -> str:
    """``name`` with each ASCII digit made ``0`` (``password_17`` -> ``password_00``): the
    judges of a name read every ASCII digit alike (``[0-9]``, ``[a-z0-9]``) and no word they
    look for holds one, so a name and its shape are judged alike. 60,000 keys
    ``password_N`` were each judged afresh, a name a key (issue 23); they have 5 shapes."""
    return name.translate(_ZEROED)


def name_strength(name: str) -> int:
    """:data:`STRONG`, :data:`WEAK` or 0 for a name that does not hold a credential, judged
    once a shape (:func:`name_shape`) and kept by name for short names.

    Read with its camel case split (``apiKey``), and, when that finds no cursor, without it
    too (``ACCESS-keY``, ``iD-tokens``), the stronger reading kept.
    """
    known = _strengths.get(name)
    if known is None:
        known = _shape_strength(name_shape(name) if NAME_SHAPES else name)
        if len(name) <= LONGEST:
            keep(_strengths, name, known)
    return known


#: Whether names are judged by their shape (off: each name afresh, the tests' differential).
NAME_SHAPES = True


@kept
def _shape_strength(name: str) -> int:
    strength = _strength(words(name))
    if strength >= 0:
        # Read without the camel split too, the stronger reading kept: a case changed at
        # random splits a qualifier off its word (``iD-tokens``, ``accesStokens``: weak
        # ``token`` alone, where ``id``/``access`` make it strong; their 10-char values were
        # shown; random draws of tests/redact/test_redact_properties.py).
        strength = max(strength, _strength(words(name, camel=False)))
    return max(strength, 0)


#: Every name in which :func:`name_strength` finds a credential holds one of these: its last
#: word ends with a strong ending, is ``pass``, ``key`` or ``token``, or is a weak ending.
NAME_CORES = ("pwd", "pass", "secret", "key", "token", "auth", "credential", "cookie", "jwt")


def names_nothing(name: str) -> bool:
    """``True`` when ``name_strength(name)`` is certain to be 0, told by a few substring
    tests (a word of an ASCII name is a substring of it lower-cased); ``False`` when only
    :func:`name_strength` can tell."""
    if not name.isascii():
        return False  # a look-alike letter may spell a name (elision.redact.folding)
    low = name.lower()
    return not any(core in low for core in NAME_CORES)


def naming(
    names: Sequence[str], blocks: Iterable[tuple[int, int]] | None = None,
) -> list[int]:
    """The indices of ``names`` for which :func:`names_nothing` is ``False``, told by one
    search of them joined, a block at a time (:func:`join_blocks`, or ``blocks``, the
    caller's of them): no core spans the line break that joins two names, so a name holds
    a core exactly where the joined text holds one within it."""
    found: list[int] = []
    for lo, hi in join_blocks(names, JOIN_BLOCK) if blocks is None else blocks:
        block = names if hi - lo == len(names) else names[lo:hi]
        found.extend(lo + i for i in naming_block(block))
    return found


def naming_block(names: Sequence[str], joined: str | None = None) -> list[int]:
    """:func:`naming` of one block; ``joined``: the block joined by line breaks, when the
    caller has it."""
    if joined is None:
        joined = "\n".join(names)
    if not joined.isascii():
        return [i for i, name in enumerate(names) if not names_nothing(name)]
    # A char of each core first (memchr): a run of one letter that a core holds (sixty
    # ``A``) made each core's search step a char at a time, 10 ms a MB. Asked in both cases
    # of the ASCII text itself before it is lowered: the lowered copy of a MB of keys of
    # ``A``, which hold none of those chars, was three quarters of this (issue 23).
    if not any(mark in joined or upper in joined for mark, upper in _MARK_CASES):
        return []
    low = joined.lower()
    if not any(mark in low and core in low for mark, core in _CORE_MARKS):
        return []
    starts = list(accumulate((len(name) + 1 for name in names), initial=0))
    return sorted({bisect_right(starts, m.start()) - 1 for m in _CORES.finditer(low)})


#: Many short texts (an object's keys, an array's strings) are joined and searched this
#: many chars at a time: the joined copy, and a lowered one beside it, are bounded. Joined
#: whole, 1 MB of 60-char keys of ``A`` held 1.8x the input beside the document at once
#: (issue 23); a block this size costs its search no more than the whole did.
JOIN_BLOCK = 1 << 16


def join_blocks(texts: Sequence[str], chars: int) -> Iterator[tuple[int, int]]:
    """Consecutive index ranges ``lo, hi`` covering ``texts``, each (but a single text longer
    than ``chars``) as many as fit in ``chars`` joined by line breaks. Told in C from the
    lengths of runs of texts (``sum(map(len, …))``), each block's guessed from the last's
    count and fitted by halving steps: no Python step a text, and no running total of them
    all (one, built from a Python iterator chain, was 1 ms a MB of keys of ``A``, issue 23)."""
    count = len(texts)
    lo, guess = 0, 1
    while lo < count:
        hi = min(count, lo + guess)
        size = _joined(texts, lo, hi)
        while size > chars and hi - lo > 1:  # too many: drop the last half until they fit
            cut = (hi - lo) // 2
            size -= _joined(texts, hi - cut, hi) + 1
            hi -= cut
        step, halving = 0, False
        while size <= chars and hi < count:  # then as many more as fit
            if not halving:
                # As many as the room holds at the mean length so far, at most twice the
                # block so far (one-char texts before a long one guessed tens of thousands
                # a block: quadratic).
                step = max(1, min(2 * (hi - lo), (chars - size) * (hi - lo) // (size + hi - lo)))
            more = _joined(texts, hi, min(count, hi + step)) + 1
            if size + more <= chars:
                size += more
                hi = min(count, hi + step)
            elif step == 1:
                break  # the next text alone does not fit
            else:
                # The end is within ``step`` texts: halved from here on, never guessed again.
                step //= 2
                halving = True
        yield lo, hi
        lo, guess = hi, hi - lo


def _joined(texts: Sequence[str], lo: int, hi: int) -> int:
    """The length of ``"\\n".join(texts[lo:hi])`` (``hi > lo``), not joined."""
    return sum(map(len, texts[lo:hi])) + hi - lo - 1


_CORES = lazy_compile("|".join(NAME_CORES))
#: Each core with its least common letter.
_CORE_MARKS = tuple((max(core, key="etaoinsrhldcumfpgwybvkxjqz".index), core)
                    for core in NAME_CORES)
#: Each distinct mark, and it in upper case.
_MARK_CASES = tuple((mark, mark.upper()) for mark in dict.fromkeys(m for m, _ in _CORE_MARKS))


def _strength(parts: list[str]) -> int:
    if not parts:
        return 0
    last = parts[-1]
    before = parts[-2] if len(parts) > 1 else ""
    if last.endswith(_STRONG_ENDINGS):
        return STRONG
    if last == "pass":
        return STRONG if before else WEAK
    if last == "key":
        if before in STRONG_KEY_QUALIFIERS or "_".join(parts[-3:-1]) in STRONG_KEY_QUALIFIERS:
            return STRONG
        return WEAK if before in WEAK_KEY_QUALIFIERS else 0
    if last == "token":
        if before in _CURSOR_QUALIFIERS:
            return _CURSOR
        return STRONG if before in _STRONG_TOKEN_QUALIFIERS else WEAK
    return WEAK if last in _WEAK_ENDINGS else 0


_PLACEHOLDER = lazy_compile(
    r"""\$\{[^}]*\}|\$\(?[A-Za-z_][A-Za-z0-9_]*\)?|\{\{.*\}\}|<[^<>]*>|%\([^)]*\)s|\{[a-z_]+\}
    |\(?(?:none|null|nil|undefined|true|false|redacted|hidden|masked|string|required|optional
        |example|omitted|sensitive|secret|password|\[redacted\]|\[hidden\]|env|unset|empty)\)?
    |(?:arn:aws[a-z-]*:|projects/|vault:|ref\+|op://|secret://|sm://|!vault|!ref|!sub|file:).*""",
    re.IGNORECASE | re.VERBOSE | re.DOTALL,
)
#: A query's bind parameter: where a driver binds a value at run time, so never the value.
#: Positional: ``?``, ``?1``, ``$1``, ``:1`` (three digits at most), ``%s``; ``%(name)s``,
#: ``{name}``, ``${name}`` and ``$name`` are :data:`_PLACEHOLDER`'s templates. Named:
#: ``:name`` (Oracle, SQLAlchemy, SQLite) and ``@name`` (SQL Server, MySQL), where the name
#: is a plain identifier of 32 chars at most, lower snake_case or UPPER_SNAKE, one of whose
#: ``_`` parts is a credential's word (:data:`_BIND_WORDS`: ``:password``, ``@new_password``),
#: or a positional name (``@p1``, ``:param2``). Any other word after ``:`` or ``@`` may be the
#: password itself (``@lohomora``, ``:SuperSecret``, ``@NewPassword``, ``:hunter``: each was
#: shown once such a name was read as any identifier; the review of 2026-12-05), so it is
#: judged as a value: withheld where a credential's name assigns it.
#: The words a named bind parameter's name holds as one of its ``_`` parts: a query names
#: the column it sets (``:password``, ``@new_password``, ``:DB_TOKEN``).
_BIND_WORDS = (
    r"(?:password|passwd|passphrase|pass|pwd|pw|secret|token|apikey|key|credentials?|auth)"
)
_BIND_NAME = (
    r"(?:(?=[a-z_]{1,32}(?![A-Za-z0-9_]))(?=[a-z_]*?(?<![a-z])" + _BIND_WORDS + r"(?![a-z]))"
    r"[a-z_]++"
    r"|(?=[A-Z_]{1,32}(?![A-Za-z0-9_]))(?=[A-Z_]*?(?<![A-Z])" + _BIND_WORDS.upper()
    + r"(?![A-Z]))[A-Z_]++"
    r"|(?:p|param|arg)[0-9]{1,3})(?![A-Za-z0-9_])"
)
_BIND = lazy_compile(rf"[?$:][0-9]{{1,3}}|%s|[:@]{_BIND_NAME}")
_MASK = frozenset("*xX•·.-_#? ")
#: Words that, alone after a credential's name, make a message, not a value: what a prompt,
#: a validator or an error says next (``Password: incorrect``, ``secret: not found``,
#: ``passwd: Authentication token manipulation error``) and the type a signature gives
#: (``password: str``). A password that is one of these words is not worth a model's words.
PROSE_WORDS = frozenset({
    # function words
    "a", "an", "the", "is", "are", "was", "were", "be", "been", "being", "not", "no", "must",
    "should", "can", "cannot", "could", "will", "would", "may", "might", "do", "does", "did",
    "has", "have", "had", "see", "use", "set", "enter", "please", "try", "too", "very", "all",
    "any", "each", "every", "some", "this", "that", "these", "those", "it", "its", "for",
    "from", "with", "without", "of", "on", "in", "at", "by", "to", "and", "or", "if", "when",
    "then", "than", "as", "so", "only", "also", "here", "there", "where", "which", "what",
    "who", "how", "why", "yes", "ok", "okay", "now", "again", "still", "already", "never",
    # what a prompt, a validator or an error says
    "incorrect", "invalid", "required", "expired", "missing", "wrong", "denied", "changed",
    "unchanged", "updated", "reset", "accepted", "rejected", "mismatch", "failed", "failure",
    "error", "unknown", "unsupported", "unavailable", "permission", "authentication",
    "authorization", "line", "match", "matches", "valid", "verified", "blank",
    "forbidden", "unauthorized", "refused", "locked", "supplied", "provided", "specified",
    "given", "found", "nothing", "operation", "connection", "file", "directory", "such",
    "access", "weak", "short", "long", "contains", "contain", "requires", "require", "needs",
    "need", "ensure", "minimum", "maximum", "least", "characters", "field", "protected",
    "encrypted", "hashed", "stored", "saved", "sent", "generated", "rotated", "revoked",
    "disabled", "enabled", "new", "old", "current", "same", "different", "length",
    # the types a signature or a schema gives
    "str", "bytes", "int", "integer", "bool", "boolean", "float", "number", "optional",
    "secretstr", "secretbytes", "text", "object", "dict", "list", "array", "varchar", "char",
})
#: At least this many words of a multi-word value must be in :data:`PROSE_WORDS` for it to
#: read as a sentence (``This field may not be blank.``) rather than a passphrase.
_PROSE_SHARE = 0.4
#: The most words a message may have.
_PROSE_LONGEST = 60
WORD_EDGE = ".,;:!?'\"()[]"


@kept
def prose(value: str) -> bool:
    """Whether ``value`` is a message, not a secret: one word of :data:`PROSE_WORDS`, or a
    run of words that opens with a plain word (letters only: a value with digits or symbols
    in it looks like a secret, whatever follows it) and of which two, or two in five, are
    such words. ``correct horse battery staple`` is no message; ``must be at least 12
    characters`` is."""
    words_ = value.split()
    if not words_ or len(words_) > _PROSE_LONGEST:
        return False
    low = [w.strip(WORD_EDGE).lower() for w in words_]
    known = sum(w in PROSE_WORDS for w in low)
    if len(low) == 1:
        return known == 1
    if not low[0].replace("-", "").isalpha():
        return False
    return known >= 2 or known >= _PROSE_SHARE * len(low)


@kept
def placeholder(value: str) -> bool:
    """A value that stands for a secret without being one: masked, empty, a variable (a ``$``
    reference whose name is a variable's, :func:`variable_name`), a stub,
    a query's bind parameter (:data:`_BIND`: ``:password``, ``@password``, ``$1``), or one char
    over and over (``xxxxxxxx``, ``00000000``)."""
    v = value.strip()
    if not v or set(v) <= _MASK or is_stub(v) or "[credential withheld:" in v:
        return True
    reference = _DOLLAR_NAME.fullmatch(v)
    if reference is not None and (v[1:2] != "(" or v[-1] == ")"):
        return variable_name(reference[reference.lastindex or 0])
    reference = _DOLLAR_OPENED.match(v)
    if reference is not None:
        # A reference left open (``$(Xk9f…``) or with more after it (``${Xk9f…}tail``) is no
        # reference a shell reads whole: a template only where its name reads as words and
        # what follows it is no secret of its own.
        name = reference[reference.lastindex or 0]
        return (variable_name(name) and not scrambled(name)
                and not opaque(v[reference.end():]))
    if TEMPLATE.search(v):
        return True
    if len(v) >= 8 and entropy(v) < 1.5:
        return True
    return _PLACEHOLDER.fullmatch(v) is not None or _BIND.fullmatch(v) is not None


#: ``$name``, ``${name}`` or ``$(name)`` alone: a variable's name, or a secret
#: (:func:`variable_name`).
_DOLLAR_NAME = lazy_compile(
    r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|\(?([A-Za-z_][A-Za-z0-9_]*)\)?)"
)
#: ``${name}`` opening a value, or ``$(name`` with its ``)`` left out (``$(name)`` and more
#: is judged as a value, as it was: the command's output is no part of what is written).
_DOLLAR_OPENED = lazy_compile(
    r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|\(([A-Za-z_][A-Za-z0-9_]*)(?![A-Za-z0-9_)]))"
)


def variable_name(name: str) -> bool:
    """Whether ``name``, read after a ``$``, is a variable's (``HOME``, ``DB_PASSWORD``,
    ``dbPassword``) rather than a generated secret's (``Xk9fQ2mLp7RtZ4wB``): a name no longer
    than :data:`variables.LONGEST` that is not both :func:`variables.scrambled` and as long
    and high in entropy as a secret is (:func:`opaque`, or, of letters alone,
    :func:`~elision.redact.families.generated_letters`)."""
    return len(name) <= variables.LONGEST and not (
        (opaque(name) or generated_letters(name)) and scrambled(name))


def _path(value: str) -> bool:
    return value.startswith(("/", "~", "./", "../")) or re.match(r"[A-Za-z]:\\", value) is not None


@kept
def is_location(value: str) -> bool:
    """A URL with no userinfo, or a path of two parts or more (``/etc/passwd``, ``~/.pgpass``,
    ``C:\\creds\\db``): where a secret is kept, or a file an error names, never the secret."""
    v = value.strip()
    if _PLAIN_URL.match(v):
        return True  # a URL that carries a credential is the URL rules' (elision.redact.urls)
    if " " in v:
        return False
    if _DRIVE.match(v) or v.startswith(("./", "../", "~/")):
        return True
    return v.startswith("/") and "/" in v[1:].lstrip("/")


_DRIVE = lazy_compile(r"[A-Za-z]:[\\/][^\\/\s]+[\\/]")
_PLAIN_URL = lazy_compile(r"(?:https?|file|s3|gs|ftp)://[^\s@]+\Z", re.IGNORECASE)


@kept
def opaque(value: str) -> bool:
    """A value that looks generated: long, one word, letters and digits, high in entropy."""
    return (
        len(value) >= 16
        and not any(c.isspace() for c in value)
        and any(c.isdigit() for c in value)
        and any(c.isalpha() for c in value)
        and not _path(value)
        and not value.lower().startswith(("http://", "https://"))
        and entropy(value) >= 3.0
    )


def is_credential_value(name: str, value: str) -> bool:
    """Whether ``name: value`` holds a credential (the JSON member rule), kept for the
    process by name and value where both are short (:mod:`elision.redact.kept`): a list,
    a property list or a table repeats them (87,000 ``- hunter2x`` under one ``passwords:``
    were each judged afresh, five judges a value: issue 23)."""
    known = _credential_values.get((name, value))
    if known is not None:
        return known
    strength = name_strength(name)
    if not strength or placeholder(value) or prose(value) or is_location(value):
        known = False
    else:
        known = named_credential(strength, words(name_shape(name)), value)
    if len(value) <= LONGEST and len(name) <= LONGEST:
        # keep()'s rule inline: a call more a value judged was a call more an entry
        if len(_credential_values) >= _CREDENTIAL_VALUES_MOST:
            _credential_values.clear()
        _credential_values[name, value] = known
    return known


#: :func:`is_credential_value`'s answers for short names and values.
_credential_values: dict[tuple[str, str], bool] = {}
#: How many it keeps: a list's or a table's repeats are few distinct pairs, and the answers
#: are held past the call (``kept.LIMIT``'s 4,096 held a MB of pairs, so a 290 KB table of
#: distinct cells peaked over its bound under the regex engine: test_redact_csv_columns).
_CREDENTIAL_VALUES_MOST = 256


def stands_for_nothing(value: str) -> bool:
    """Whether no name makes ``value`` a credential (a placeholder, a message, a location):
    :func:`is_credential_value`'s checks of the value alone, unkept, for a caller that keeps
    its own answers (many distinct values only fill the kept tables and empty them)."""
    return (placeholder.__wrapped__(value) or prose.__wrapped__(value)
            or is_location.__wrapped__(value))


def stand_for_nothing(values: list[str]) -> list[bool]:
    """``list(map(stands_for_nothing, values))``, told in C for a block of one-word ASCII
    values: such a value is a placeholder, a location or a stub only when it opens as one,
    holds a template's char or is one mask char over and over (:data:`_MAY_STAND`), is
    long enough for its entropy to be asked, or is a message's one word; only those are
    judged alone. A MB of pairs' values judged alone was 2 us a value (issue 23)."""
    joined = "\n".join(values)
    if not (joined.isascii() and joined.split() == values):
        return list(map(stands_for_nothing, values))  # spacing, or a char past ASCII
    out = [False] * len(values)
    # Each value led by its line break: the search skips from one to the next in C (a
    # ``^`` is tried at every char), and a match's start is the break before its value.
    text = "\n" + joined
    del joined
    starts = list(accumulate(map((1).__add__, map(len, values)), initial=0))
    found = list(_MAY_STAND.finditer(text))
    if "<" in text or "$" in text or "{" in text:
        found.extend(_TEMPLATE_CHAR.finditer(text))
    flagged = {bisect_right(starts, m.start()) - 1 for m in found}
    del found
    words_ = list(map(str.strip, text[1:].lower().split("\n"), repeat(WORD_EDGE)))
    if not PROSE_WORDS.isdisjoint(words_):
        flagged.update(i for i, word in enumerate(words_) if word in PROSE_WORDS)
    for i in flagged:
        out[i] = stands_for_nothing(values[i])
    return out


#: Where a one-word ASCII value may stand for nothing (:func:`stand_for_nothing`), from the
#: line break before it: it opens as a placeholder (:data:`_PLACEHOLDER`'s openings, a stub's
#: ``[``, a bind parameter's ``:``, ``@`` or ``?``: the review of 2026-12-05 found ``:1`` and
#: ``@pw`` withheld here and shown one by one), a URL, a path or a drive does; it is mask
#: chars alone (:data:`_MASK`); it is 8 chars or more (its entropy is asked). Or it holds a
#: template's char (:data:`TEMPLATE`).
_MAY_STAND = lazy_compile(
    r"""\n(?:[\[$<%(!{/~.:@?]|[A-Za-z]:|[*xX.\-_\#?]+(?=\n|\Z)|[^\n]{8}"""
    r"""|(?i:none|null|nil|undefined|true|false|redacted|hidden|masked|string|required"""
    r"""|optional|example|omitted|sensitive|secret|password|env|unset|empty|arn:aws"""
    r"""|projects/|vault:|ref\+|op://|secret://|sm://|file:|https?://|s3://|gs://|ftp://))"""
)
_TEMPLATE_CHAR = lazy_compile(r"[<${]")


def named_credential(strength: int, parts: list[str], value: str) -> bool:
    """Whether ``value``, which :func:`stands_for_nothing` is false of, is a credential under a
    name of ``strength`` (non-zero) whose shape's words are ``parts``."""
    if parts[-1] == "authorization" and value.lower().startswith(("bearer ", "basic ")):
        return False  # the scheme stays readable; the token rules take the value itself
    if parts[-1] in ("cookie", "authorization"):
        return True
    if strength == STRONG:
        # A shell's PWD and OLDPWD are the working directory, not a password.
        return not (parts in (["pwd"], ["oldpwd"]) and _path(value.strip()))
    return opaque(value.strip())


# Every name the text finder reads starts at one of these words (found in the lower-cased
# text); the whole name around it is then read outwards.
_NAME_WORD = lazy_compile(
    r"password|passwd|passphrase|secret|token|credential|cookie|authorization|auth|pass|pwd"
    r"|key|jwt"
)
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")
#: Whether a name is read outwards from its word by the two regexes below (in C) or a char at
#: a time (the slow path the tests compare with): ``pwd=x)`` and 35 name chars, 100 a 4 KB on
#: one line, read 35 chars back a candidate in Python, most of what one cost (issue 23).
_NAME_BY_REGEX = True
#: From a position, through the last char that is in no name: greedy, so it ends where the
#: name chars before a later position start (no match: all of them are name chars).
_THROUGH_NON_NAME = lazy_compile(r"(?s).*[^A-Za-z0-9_.-]")
#: The name chars from a position on.
_NAME_REST = lazy_compile(r"[A-Za-z0-9_.-]*")
# After a quote any spacing; after a bare name one space at most (what the trigger search
# looks for: the name, then one of TEXT_SEPARATORS).
#: A space then a colon glued to a bind parameter's name (``--password :new_password``,
#: ``WHERE password :pw``) is no separator: the colon is the parameter's (:data:`_BIND`).
_SEP_SOURCE = (
    r"""(?:\\?["'][ \t]*(?:=>|:=|=(?!=)|:(?!//))|(?:=>|:=|=(?!=)|:(?!//))"""
    r"""| (?:=>|:=|=(?!=)|:(?!//|""" + _BIND_NAME + r"""(?=[\s"'`,;&<>()\[\]{}]|\Z))))[ \t]*"""
)
#: A bare value: no space, quote, bracket or separator in it; or a ``${name}`` or ``$(name)``
#: (its ``)`` left out too) and what follows it, judged by its name (:func:`variable_name`)
#: where it is all the value, else a template only where that name reads as words.
_BARE_SOURCE = (
    r"""\$(?:\{[A-Za-z_][A-Za-z0-9_]*\}|\([A-Za-z_][A-Za-z0-9_]*\)?)[^\s"'`,;&<>()\[\]{}]*"""
    r"""|[^\s"'`,;&<>()\[\]{}]+"""
)
#: The separator (group 1), then what :func:`_plain_bare` reads after it in the same match: a
#: bare value (group 2, :data:`_VALUE`'s last alternative) and a template right after it (group 3,
#: :data:`TEMPLATE`). Three matches an assignment were most of what one cost (issue 23).
_SEP_ONLY = lazy_compile(_SEP_SOURCE)
_SEP_BARE = lazy_compile(
    f"({_SEP_SOURCE})(?:({_BARE_SOURCE})(?=({TEMPLATE.pattern}))?)?"
)
#: The most lines a quoted value over lines is read for (its quote closing on the last, or
#: opening the line after): a longer one is no value read here (a PEM's body is its rule's).
_WRAPPED_LINES = 16
#: What follows ``${NAME:`` in a shell's expansion of NAME with a default (``:-``, ``:=``) or
#: an alternative (``:+``), each a value as typed, or an error's message (``:?``).
_EXPANSION_OPERATORS = ("-", "=", "+", "?")
#: ... and with no colon, the same but where the default is given only when NAME is unset,
#: not empty too (``${NAME-default}``); ``=`` is a separator already, ``?``'s a message.
_NO_COLON_OPERATORS = ("-", "+")
#: A shell variable's name (in ``${NAME…}``): no ``-`` or ``.`` in it.
_SHELL_NAME = lazy_compile(r"[A-Za-z0-9_]*")
#: A value as written: in escaped quotes, in quotes, or bare. A quote that ends its line opens
#: a value on the next lines (``PASSWORD="`` over ``S"``, or over ``S`` and ``more"``: a
#: shell's or a .env's string over lines), closed on the last of them or opening the line
#: after, :data:`_WRAPPED_LINES` at most, each between the first and the last one word (a
#: token wrapped at a width; lines of words, or of code, are no one value): the value is
#: those lines up to the quote, the first one's indent left out. A text that ends first (a
#: piece cut inside it) ends the value there: what was read is withheld. A quote that does
#: not close on its line (``db_password\": \"<value>; …``, a JSON text cut inside its
#: string), or one escaped a level down (``\\\"``, ``\\'``: a JSON text's spelling of ``\"``
#: and ``\'``), opens a value read as a bare one up to a backslash too (an escape's). A level
#: down, the backslashes were read as a bare value and withheld, which tore the JSON text
#: around them.
_VALUE = lazy_compile(
    r"""\\"(?P<esc>(?:[^"\\\n]|\\[^"\n])*)\\"|"(?P<dq>(?:[^"\\\n]|\\.)*)"|'(?P<sq>[^'\n]*)'"""
    r"""|(?P<nl>["'])[ \t]*+\r?\n[ \t]*+(?P<wrapped>[^"'\\\s][^"'\\\r\n]*+"""
    r"""(?:\r?\n[ \t]*+[^"'\\\s]++[ \t]*+(?=[\r\n"']|\Z)){0,""" + str(_WRAPPED_LINES - 2)
    + r"""}+(?:\r?\n[ \t]*+[^"'\\\s][^"'\\\r\n]*+(?=(?P=nl)|\r?\n[ \t]*+(?P=nl)|\Z))?+)"""
    r"""(?:(?:\r?\n[ \t]*+)?(?P=nl)|\Z)"""
    r"""|\\{0,3}["'](?P<open>[^\s"'`,;&<>()\[\]{}\\]+)|(?P<bare>""" + _BARE_SOURCE + ")"
)
_LINE_END = re.compile(r"[\r\n]")
#: A comma that ends a cookie header's member: before a name with its ``=``, spaced or not (a
#: Cookie's members joined with ``, ``, a folded Set-Cookie's ``Path=/, sid=…``, or one joined
#: with no space, ``Path=/,sid=…``), or spaced before a value with no name of 16 chars or more
#: (``a=b, <value>``: no shorter one is withheld, :func:`opaque`). An Expires date's comma is
#: followed by a space and a day's number (``Expires=Wed, 21 Oct 2026 07:28:00 GMT``), and
#: prose's by a space and a word: neither ends a member. A tab may be one escaped in a JSON
#: string (``\t``, two chars: an NDJSON line's header). Each lookahead reads the member after
#: its comma alone (no comma in it), so each char is read by one.
_COOKIE_COMMA = (
    r""",(?:(?:[ \t]|\\t)*+(?=[^=;,\s"\\]++=)"""
    r"""|(?:[ \t]|\\t)++(?=[^=;,\s"\\]{16,}+(?!=)))"""
)
#: Where a cookie header's member ends and the next starts: a ``;``, or a comma that ends one
#: (:data:`_COOKIE_COMMA`).
_COOKIE_SEP = re.compile(f";|{_COOKIE_COMMA}")
#: The longest header value read: one that reaches it is withheld to its line's end, unread
#: past it (fail closed).
_LONGEST_HEADER = authheader.LONGEST
#: The longest bare value judged (no space, quote or separator in it); a longer one after a
#: credential's name is withheld unread (fail closed).
_LONGEST_VALUE = 4096
_QUOTED = lazy_compile(r"""\\?["']([^"'\\\r\n]*)\\?["']""")
#: A cookie's name and its value, up to a space, a ``;``, a quote or a backslash: after a quote
#: (escaped too, in a JSON string), the chars after it.
_COOKIE_PAIR = lazy_compile(r"""\s*([^=;,\s]+)=(?:\\?"([^"\\\s;]*)|([^;\s"\\]*))""")
#: A value with no name, up to a space, a ``;``, a quote or a backslash (a JSON string's end:
#: ``{"h": "Cookie: a=b; <value>"}``), or a comma (no cookie's char: a folded Set-Cookie's
#: flag before the next cookie, ``HttpOnly, sid=…``, or a value before one joined with no
#: space, ``<value>,x``, which showed the value).
_COOKIE_BARE = lazy_compile(r"""[ \t]*([^=;,\s"\\]+)(?!=)""")
#: A run of members none of which a cookie's reading withholds, each a pair's or a value's
#: (so none ends the reading): a value with no name of fewer than 16 chars (no
#: :func:`opaque` one), or a pair's value of fewer than 8, each up to its ``;`` or to the
#: comma before the next cookie's name (:data:`_COOKIE_SEP`); or a value with no name that
#: holds a ``:`` or a ``/`` (a header's name, a path: none of a cookie's, never withheld after
#: the first member) with what follows it up to the next separator or the line's end, which
#: the reading passes unread (``Set-Cookie: a=b;`` after an earlier one's members; past the last
#: separator the reading ends, and no later one reads there). Passed in C (one member a
#: Python step was 0.9 us: a header of 1 MB of ``x:y; `` 181 ms; a line of ``Set-Cookie: a=b;
#: Path=/; <value>;`` read three Python steps a header, issue 23).
_COOKIE_PLAIN = lazy_compile(
    r"""(?:[ \t]*+(?:(?:[^=;,\s"\\]{1,15}+|[^=;,\s"\\]++=[^;,\s"\\]{0,7}+)"""
    rf"""(?:[ \t]*+;|{_COOKIE_COMMA})"""
    rf"""|[^=;,\s"\\:/]*+[:/][^=;,\s"\\]*+(?=[ \t;]|,(?:[ \t]|\\t)|{_COOKIE_COMMA})"""
    rf"""[^;,]*+(?:,(?!{_COOKIE_COMMA[1:]})[^;,]*+)*+(?:;|{_COOKIE_COMMA}|\Z)))*+"""
)
_COOKIE_ATTRIBUTES = frozenset({
    "path", "domain", "expires", "max-age", "samesite", "secure", "httponly", "priority",
    "partitioned", "version", "comment",
})
_SESSIONISH = lazy_compile(r"sess|sid|auth|token|jwt|remember|login|secret|key", re.IGNORECASE)


class _Reach:
    """How far the judgements of one text may read, so that it costs time linear in its
    length however many names it holds: where each line ends, found once for all the names
    on it, and how many chars the reading of bracketed values has left (past it, such a
    value is withheld unread)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._ends = NextMatch(_LINE_END, text)
        #: Each cookie member's separator (:data:`_COOKIE_SEP`), for :func:`_cookies`.
        self.separators = NextMatch(_COOKIE_SEP, text)
        #: The stretch ``(after, through]`` whose every member's start (after a ``;`` or a
        #: comma before a name, :data:`_COOKIE_SEP`) a cookie header's reading has read past: a
        #: later name's reading that reaches one stops there, what follows read already
        #: (:func:`_cookies`).
        self.cookies_read = (-1, -1)
        self.bracketed = _BRACKETED_PER_CHAR * len(text)
        #: The last container :func:`_bracketed` read whole, under what strength, and the
        #: spans it withheld there (relative to its bracket): one written again is not read.
        self.last_bracketed: tuple[int, str, list[tuple[int, int]]] | None = None
        #: Where the last header value withheld to its line's end ends.
        self.header_until = -1
        #: Where the last bare value withheld ends.
        self.bare_until = -1
        #: Each name's words, and each (name, strength read, how written, value)'s verdict
        #: (:func:`_verdict`): a dense text repeats both (a log's every line has its
        #: ``password=…``), and the judging of one value was most of what a candidate cost.
        #: The strength is a name's own but after a path (:func:`_in_path`).
        self.words: dict[str, list[str]] = {}
        self.verdicts: dict[tuple[str, int, str, str], bool | None] = {}

    def name_words(self, name: str) -> list[str]:
        """:func:`words` of ``name``, read once a text."""
        got = self.words.get(name)
        if got is None:
            got = self.words[name] = words(name)
        return got

    def verdict(self, name: str, parts: list[str], strength: int, group: str, value: str
                ) -> bool | None:
        """:func:`_verdict` of a value after ``name`` (its words ``parts``), held for the rest
        of the text where the value is short: a long value is judged each time, not held."""
        key = (name, strength, group, value)
        got = self.verdicts.get(key, _UNJUDGED)
        if got is _UNJUDGED:
            got = _verdict(parts, strength, group, value)
            if len(value) <= LONGEST:
                self.verdicts[key] = got
        return got  # type: ignore[return-value]

    def line_end(self, at: int) -> int:
        """Where the line that ``at`` is on ends (its ``\r`` or ``\n``, or the text's end)."""
        end = self._ends.at_or_after(at)
        return len(self.text) if end is None else end.start()


def find_assignments(text: str) -> list[Span]:
    """Every credential value assigned to a credential-named name in ``text``."""
    # A "=" told inline first: a call a piece shows in the call counts of a MB of
    # assignments (test_redact_assign_per_entry).
    if _DECLINE and "=" not in text and _declines(text):
        return []
    reach = _Reach(text)
    strengths: dict[str, int] = {}  # name_strength's, without its call: names repeat
    # _split_at_words inline: a call a piece was over the call counts' bound for a MB of
    # assignments (test_redact_assign_per_entry).
    split: tuple[str, list[str], list[int]] | None = None
    if _SHAPES and len(text) <= _SHAPED_LONGEST and text.isascii():
        lowered = text.lower()
        parts = _NAME_WORD_SPLIT.split(lowered)
        split = lowered, parts, list(accumulate(map(len, parts), initial=0))
    shaped = None if split is None else _shaped(text, reach, strengths, split)
    found, commands = ([], False) if shaped is None else shaped
    # Where _shaped declined, its split is the loop's one window lowered and its word
    # matches: a piece of distinct tokens or of fewer than _SHAPED_FEWEST words was lowered
    # and searched for its words twice, once by the split and once by the loop (issue 23).
    windows: Iterable[tuple[int, str]] = (
        () if shaped is not None else _lowered_windows(text) if split is None
        else ((0, split[0]),))
    done = 0
    size = len(text)
    step = folding.LOWER_WINDOW
    resume = 0  # where the last name word ended: each window's search goes on from there
    # Bound once a text, not looked up a candidate: a MB of assignments just under the
    # density bound is 25,000 of them, each a few global and attribute lookups (issue 23).
    # The compiled pattern's own method: the lazy one's, held, would compile-check each call.
    name_chars, sep_bare, strength_of = _NAME_CHARS, _SEP_BARE.compiled().match, strengths.get
    by_regex, plain, in_headers = _NAME_BY_REGEX, _plain_bare, _SKIP_IN_HEADERS
    tries = _DEAD_TRIES if _DEAD_WINDOWS else 0
    for at, low in windows:
        if not commands:
            commands = _names_command(low)
        first = max(0, resume - at)
        if tries and step - first >= _DEAD_LEAST and size - at - first >= _DEAD_LEAST:
            # The window's dead stretches, a block at a time (its split's parts are a
            # block's, not a window's, at the peak); at a live one, its candidates one by one.
            hi = at + min(step, size - at)
            while at + first < hi:
                dead = _dead_stretch(text, low, at, first, resume, reach, strengths)
                if dead is None:
                    tries -= 1
                    break
                cut, last_word, last_name = dead
                if cut == at + first:
                    break
                first = cut - at
                if last_word >= 0:
                    resume, done = last_word, last_name
        # The split's words (every second part) are the matches a search from the window's
        # start finds.
        words = (zip(split[2][1:-1:2], split[2][2::2], strict=True)
                 if split is not None and not first
                 else map(_SPAN, _NAME_WORD.finditer(low, first)))
        for start, end in words:
            if start >= step:
                break  # the next window's, read there with its own reach
            start += at
            end = resume = end + at
            if start < done:
                continue
            floor = start - _LONGEST_NAME if start > _LONGEST_NAME else 0
            if by_regex:
                # Most words are a name's ends already (``password=``): one char each tells it.
                if start > floor and text[start - 1] in name_chars:
                    before = _THROUGH_NON_NAME.match(text, floor, start)
                    start = floor if before is None else before.end()
                if end < size and text[end] in name_chars:
                    after = _NAME_REST.match(text, end, min(size, start + 2 * _LONGEST_NAME))
                    end = max(end, after.end()) if after is not None else end
            else:
                while start > floor and text[start - 1] in name_chars:
                    start -= 1
                while end < size and end - start < 2 * _LONGEST_NAME and text[end] in name_chars:
                    end += 1
            if start > 1 and text[start - 1] == "{" and text[start - 2] == "$":
                # A shell's ``${NAME-default}``: the name ends where a variable's may, not at
                # the default's end (``-`` is a name's char elsewhere).
                end = _SHELL_NAME.match(text, start).end()  # type: ignore[union-attr]
            done = end
            name = text[start:end].strip(".-")
            strength = strength_of(name)
            if strength is None:
                strength = strengths[name] = name_strength(name)
            if not strength:
                continue
            if end < reach.bare_until and _inside_withheld(text, end, name, reach):
                continue
            if in_headers and end < reach.header_until and _assigned_bare(text, end):
                # Inside a header's value withheld to its line's end, as its bare value is: the
                # separator's match read that value to the end of a run at each such name
                # (``:authorization:`` and 26 ``x``, a MB of them: quadratic, 0.9 s for 128 KB).
                continue
            if start and text[start - 1] == "/" and _path_header(text, name, end, found, reach):
                continue
            sep = sep_bare(text, end)
            if sep is not None:
                # Inline, not a call: a MB of assignments is 25,000 of them (issue 23).
                if start and text[start - 1] == "/" and "=" not in sep[1]:
                    strength = WEAK  # a path's last part, a colon after it (_in_path)
                if start > 1 and text[start - 1] == "{" and text[start - 2] == "$" and (
                        text.startswith(_EXPANSION_OPERATORS, sep.end(1))):
                    # A shell's ``${NAME:-default}``: the default is NAME's value as typed (a
                    # dev password is one), judged as NAME's, the operator kept; ``:?``'s is
                    # the error's message, no value.
                    if text[sep.end(1)] != "?":
                        _value(text, name, strength, sep.end(1) + 1, found, reach)
                elif not plain(text, name, strength, sep, found, reach):
                    _value(text, name, strength, sep.end(1), found, reach)
            elif start > 1 and text.startswith(_NO_COLON_OPERATORS, end) and (
                    text[start - 1] == "{" and text[start - 2] == "$"):
                # ``${NAME-default}``, ``${NAME+alternative}``: read as after ``:-``, ``:+``.
                _value(text, name, strength, end + 1, found, reach)
            elif text.startswith("-", start):
                gap = _FLAG_GAP.match(text, end)
                if gap is not None:
                    _flag_value(text, strength, gap.end(), found, reach)
    if commands:
        reach.bare_until = -1  # a second pass, from the start
        for flag in password_flags(text):
            if flag.stop >= 0:
                _bounded_value(text, flag.at, flag.stop, found)
            elif flag.name is None:
                _flag_value(text, STRONG, flag.at, found, reach)
            elif strength := strength_of(flag.name) or name_strength(flag.name):
                _value(text, flag.name, strength, flag.at, found, reach)
    return found


#: Whether a text that :func:`_declines` is passed unread; off, it is read (the slow path the
#: tests compare with).
_DECLINE = True


def _declines(text: str) -> bool:
    """Whether ``text`` can hold no value :func:`find_assignments` finds, told in C: each value
    it finds follows a separator (every one of :data:`_SEP_SOURCE`'s holds a ``=`` or a ``:``,
    and so does a path's header's), a flag's name (a ``-`` opens it), a shell default's
    operator inside ``${`` (``${DB_PASSWORD+S}``: the review found it shown where a piece held
    no other), or a command :func:`_names_command` gates. An ASCII text is lowered as its
    windows are, char for char.
    A plist's ``<key>password</key>`` lines hold a name word each and none of those: its pieces
    were judged shape by shape for nothing, a third of their time (issue 23)."""
    return (
        "=" not in text and ":" not in text and "-" not in text and "{" not in text
        and text.isascii() and not _names_command(text.lower())
    )


#: Whether a name inside a header's value withheld to its line's end is passed over unread;
#: off, each is read (the slow path the tests compare with).
_SKIP_IN_HEADERS = True
#: Whether a text's candidates are first judged by their shapes together (:func:`_shaped`);
#: off, each is judged by the loop (the slow path the tests compare with).
_SHAPES = True
#: The fewest name words a text's shapes are tried for, and the most chars: the split holds a
#: copy of the text in parts, a piece's (``scan.PIECE``) or a few at most.
_SHAPED_FEWEST = 8
_SHAPED_LONGEST = 1 << 14


#: A match's span, asked in C.
_SPAN = methodcaller("span")


def _split_at_words(text: str) -> tuple[str, list[str], list[int]] | None:
    """``text`` lowered, split at its name words (:data:`_NAME_WORD_SPLIT`: the text between
    them and each word, in turn, lowered) and where each part starts (and the last ends), as
    :func:`find_assignments` splits it for :func:`_shaped` and its loop; ``None`` for a text
    longer than :data:`_SHAPED_LONGEST` or not ASCII (a lowered char is then one of
    ``text``'s at the same place)."""
    if len(text) > _SHAPED_LONGEST or not text.isascii():
        return None
    lowered = text.lower()
    parts = _NAME_WORD_SPLIT.split(lowered)
    return lowered, parts, list(accumulate(map(len, parts), initial=0))


def _shaped(
    text: str, reach: _Reach, strengths: dict[str, int],
    split: tuple[str, list[str], list[int]] | None = None,
) -> tuple[list[Span], bool] | None:
    """What :func:`find_assignments`' loop finds in ``text``, and whether it names a password
    command, told a shape at a time where the text repeats a few: ``None`` where it does not,
    or where one shape's judging may read past its own chars (:func:`_alone`).

    A MB of ``password=hunter2 xxx…`` lines just under the density bound is 25,000 of them,
    each a name word's match, its name read, a separator's match and a verdict's look-up in
    Python (a call of :func:`_plain_bare`), about 7 us an entry (issue 23). Here the text is
    split at its name words in C (``re.split``, the loop's matches: an ASCII text lowers char
    for char); each word is a shape, (the text since the last word, the word, the text to the
    next), and each distinct shape is judged once by :func:`_alone`, which answers only where
    the loop's reading of that word lies in those chars and its state after it is none that a
    later word reads. The first word's shape opens the text (its name may start there); the
    last one's ends with it. Then each word's value is its shape's, moved to where it is."""
    split = _split_at_words(text) if split is None else split
    if split is None:
        return None
    lowered, parts, ends = split
    count = len(parts) // 2
    if count < _SHAPED_FEWEST:
        return None
    if lowered != text:
        parts = list(map(text.__getitem__, map(slice, ends, ends[1:])))
    shapes = list(zip(parts[2:-1:2], parts[3::2], parts[4::2], strict=True))
    distinct = set(shapes)
    if 2 * len(distinct) > count:
        return None  # few repeats: the loop judges each anyway
    # Read from the table here, not by a call: a piece of a MB of dense lines is 16 entries.
    key = (parts[0], parts[1], parts[2], True)
    first = _SHAPES_KEPT[key] if key in _SHAPES_KEPT else _shape_alone(*key, reach, strengths)
    if first is None:
        # A value that runs into the next word (``password = :password``'s bind parameter,
        # its own name word): the shape is told with that word and its text after.
        first = _shape_run_on(parts[0], parts[1], parts[2], parts[3], parts[4], True, reach,
                              strengths)
        if first is None:
            return None
    told: dict[tuple[str, str, str], tuple[int, int, int]] = {}
    checked: set[tuple[tuple[str, str, str], tuple[str, str, str]]] = set()
    for shape in distinct:
        key = (*shape, False)
        got = _SHAPES_KEPT[key] if key in _SHAPES_KEPT else _shape_alone(*key, reach, strengths)
        if got is None:
            # Told with the next word after its first place, or the loop reads the piece: a
            # text whose shapes fail tries one more, not all of them.
            at = shapes.index(shape) + 1
            if at == len(shapes) or _shape_run_on(
                    *shape, *shapes[at][1:], False, reach, strengths) is None:
                return None
            checked.add((shape, shapes[at]))
        else:
            told[shape] = got
    if checked:
        # As the first: each such shape told with the next one's word and text after, a
        # pair of shapes at a time (the last has none: the loop reads it). Told so, it
        # withholds nothing: no span of its own below.
        if shapes[-1] not in told:
            return None
        judged = len(told) + len(checked)
        for shape, after in set(pairwise(shapes)):
            if shape in told or (shape, after) in checked:
                continue
            if _shape_run_on(*shape, *after[1:], False, reach, strengths) is None:
                return None
            judged += 1
        if 2 * judged > count:
            return None  # few repeats: the loop judges each anyway
    found: list[Span] = []
    if max(map(itemgetter(1), told.values()), default=-1) >= 0:  # in C: no call a piece
        # Where each shape after the first opens (its text before the word), with what it
        # finds: read in one comprehension, a shape that withholds nothing read as such.
        found = [make_span((at + a, at + b, ASSIGNMENT))
                 for at, (_, a, b) in zip(
                     ends[2:-2:2], map(told.get, shapes, repeat(_TOLD_NOTHING)), strict=True)
                 if a >= 0]
    if first[1] >= 0:
        found.insert(0, make_span((first[1], first[2], ASSIGNMENT)))
    # _names_command's reading, written out: a call a piece (issue 23's counts)
    for command in _GATES_APART:
        if command in lowered:
            return found, True
    return found, _PASSWORD_GATES.search(lowered) is not None


#: :data:`COMMAND_GATES` but those that open with ``password``, each looked for alone ...
_GATES_APART = tuple(gate for gate in COMMAND_GATES if not gate.startswith("password"))
#: ... and those, a statement's ``PASSWORD`` and the quote or spacing after it (9 of the 21),
#: as one pattern: their common prefix is searched in C once, where a search each was a
#: third of a dense piece's shapes (issue 23).
_PASSWORD_GATES = lazy_compile("|".join(
    re.escape(gate) for gate in COMMAND_GATES if gate.startswith("password")))


def _names_command(low: str) -> bool:
    """Whether ``low`` (a text lowered) holds one of :data:`COMMAND_GATES`."""
    for command in _GATES_APART:  # a loop, not a generator's step (a call) a command
        if command in low:
            return True
    return _PASSWORD_GATES.search(low) is not None


#: What :func:`_alone` says of a shape (its text before the word, the word, its text after,
#: whether it opens the text), kept for the process: a pure function of them (a name's
#: strength and words and a value's verdict are), and a dense text's pieces repeat their
#: shapes (each 1 KB piece of a MB of ``password=`` lines judged its one shape again).
_SHAPES_KEPT: dict[tuple[str, str, str, bool], tuple[int, int, int] | None] = {}
#: What :func:`_alone` says of a word whose name it reads and whose value it shows.
_TOLD_NOTHING = (0, -1, -1)


def _shape_alone(
    before: str, word: str, after: str, opens: bool, reach: _Reach, strengths: dict[str, int],
) -> tuple[int, int, int] | None:
    """:func:`_alone` of a shape, kept in :data:`_SHAPES_KEPT` where it is short."""
    key = (before, word, after, opens)
    if key in _SHAPES_KEPT:
        return _SHAPES_KEPT[key]
    got = _alone(before + word + after, len(before), reach, strengths, opens)
    if len(before) + len(word) + len(after) <= LONGEST:
        keep(_SHAPES_KEPT, key, got)
    return got


def _shape_run_on(
    before: str, word: str, after: str, next_word: str, next_after: str, opens: bool,
    reach: _Reach, strengths: dict[str, int],
) -> tuple[int, int, int] | None:
    """:func:`_shape_alone` of a shape whose reading may run past its own chars, read with the
    next word and that word's text after: an answer only where the name ends before the
    next word and no value is withheld, so the loop's state after it is as before the word
    (``bare_until``, which a later word inside a withheld value would read, is not moved),
    and the next word is then judged by its own shape as the loop judges it. A bind
    parameter after a credential's name (``password = :password``, ``password=:new_password``)
    is one: shown, it runs into its own name word."""
    got = _shape_alone(before, word, after + next_word + next_after, opens, reach, strengths)
    if got is None or got[1] >= 0 or got[0] > len(before) + len(word) + len(after):
        return None
    return got


#: Whether a window's candidates are first told dead together (:func:`_dead_stretch`); off,
#: each is judged alone (the slow path the tests compare with).
_DEAD_WINDOWS = True
#: How many windows of a text may turn out to hold a live candidate before no more are tried
#: (each try is a split of its window, wasted where one is live).
_DEAD_TRIES = 2
#: The fewest chars a window is tried for: a short piece's candidates are few.
_DEAD_LEAST = 2048
#: The chars a window's split reads at a time: its parts, and the distinct triples of them,
#: are a block's at the peak (a window's were above half of a 1 MB line's).
_DEAD_BLOCK = 8192
#: How far past a block's cut its last word's separator and value are read.
_DEAD_AHEAD = 256
#: A name word as a group: ``re.split`` gives the text between words beside them.
_NAME_WORD_SPLIT = lazy_compile(f"({_NAME_WORD.pattern})")
#: The spacing and quote a separator may open with (what :data:`_SEP_BARE` reads before its
#: ``=``, ``:=``, ``=>`` or ``:``).
_SEP_LEAD = lazy_compile(r"""\\?["']?[ \t]*""")


def _dead_stretch(
    text: str, low: str, at: int, first: int, resume: int, reach: _Reach,
    strengths: dict[str, int],
) -> tuple[int, int, int] | None:
    """Where the candidates of a block of the window at ``at`` (``low``, lowered), from
    ``first`` on, are all told dead at once, or ``None``. No word starts between ``resume``
    (where the last word read ended) and ``first``: the block is read from there, a name
    back at most, so its first word's name is read back as the loop reads it.

    A long line of one candidate repeated (``pwd=x)`` and 35 name chars, 25,000 a MB just under
    the density bound, issue 23) was a name word's match, its name read, a separator's match
    and a verdict's look-up a candidate, in Python, for nothing withheld. Here the block, up
    to its last char that is in no name (no word reaches over it), is split at its name words
    in C (``re.split``); each distinct (text before, word, text after) is judged once by
    :func:`_dead_alone`, which says dead only where what the loop reads lies inside those
    three and the loop would withhold nothing and change no state it reads later. All dead:
    where the block ends (where it starts for a block of name chars alone, which is not
    cut), where its last word ends and where its last name ends (``-1``, ``-1`` for no
    word), so the loop goes on from there as if it had read them. ASCII only: a lowered char
    of the window is the same char of the text, and the words are split in it (a split that
    ignores case was 15 times slower), the text's own chars read back where its case
    differs."""
    hi = min(at + folding.LOWER_WINDOW, len(text), at + first + _DEAD_BLOCK)
    lo = max(resume, at + first - _LONGEST_NAME - 1, 0)
    stop = _THROUGH_NON_NAME.match(text, at + first, hi)
    if stop is None:
        return at + first, -1, -1  # all name chars: no block to cut, left to the loop
    cut = stop.end()
    stretch = text[lo:cut]
    if not stretch.isascii():
        return None
    lowered = low[lo - at:cut - at] if lo >= at else text[lo:at].lower() + low[:cut - at]
    parts = _NAME_WORD_SPLIT.split(lowered)
    if len(parts) == 1:
        return cut, -1, -1
    if lowered != stretch:
        ends = list(accumulate(map(len, parts), initial=0))
        parts = list(map(stretch.__getitem__, map(slice, ends, ends[1:])))
    # The first word's name may open the text itself; the others' are bounded in the block.
    # The last word's value is read on past the block's cut (a cut may fall right after its
    # separator): the piece is the text's own chars, so the loop reads there what it would.
    last = len(parts) - 3
    ahead = text[cut:cut + _DEAD_AHEAD]
    name_end = _dead_alone("".join(parts[:3]) + (ahead if last == 0 else ""), len(parts[0]),
                           reach, strengths, lo == 0)
    if name_end is None:
        return None
    middle = zip(parts[2:last:2], parts[3:last:2], parts[4:last + 1:2], strict=True)
    for before, word, after in set(middle):
        if _dead_alone(before + word + after, len(before), reach, strengths) is None:
            return None
    before, word, after = parts[last:]
    if last:
        name_end = _dead_alone(before + word + after + ahead, len(before), reach, strengths)
        if name_end is None:
            return None
    word_end = cut - len(after)
    return cut, word_end, word_end + name_end - len(before) - len(word)


def _dead_alone(
    piece: str, start: int, reach: _Reach, strengths: dict[str, int], opens: bool = False
) -> int | None:
    """Where the name of the word at ``start`` of ``piece`` ends, if the loop of
    :func:`find_assignments` would withhold nothing for it and leave ``bare_until``,
    ``header_until`` and the bracketed reach as they were, reading nothing outside ``piece``;
    else ``None``. Its name must be bounded inside ``piece`` by chars in no name, on both
    sides (or, with ``opens``, by the text's start, where ``piece`` opens the text), so no
    two words of a stretch share a name (none is skipped as inside another)."""
    got = _alone(piece, start, reach, strengths, opens)
    return None if got is None or got[1] >= 0 else got[0]


def _alone(
    piece: str, start: int, reach: _Reach, strengths: dict[str, int], opens: bool = False
) -> tuple[int, int, int] | None:
    """What the loop of :func:`find_assignments` does for the word at ``start`` of
    ``piece``, where it reads nothing outside ``piece``: where the word's name ends, and the
    bare value it withholds (``-1, -1`` for none), or ``None`` where it may read outside, or
    do anything else (withhold another kind of value, change ``header_until`` or the
    bracketed reach). A value withheld is followed by a space, a tab or a line break inside
    ``piece``: no name after it starts before that char, so ``bare_until`` (the value's end)
    is behind every later name and changes nothing the loop reads next. The name is bounded
    as :func:`_dead_alone` says."""
    size = len(piece)
    floor = start - _LONGEST_NAME if start > _LONGEST_NAME else 0
    rest = _NAME_REST.match(piece, start)  # the word, and the name chars after it
    assert rest is not None  # it matches the empty string
    end = rest.end()
    if start > floor and piece[start - 1] in _NAME_CHARS:
        before = _THROUGH_NON_NAME.match(piece, floor, start)
        start = floor if before is None else before.end()
    if (start == 0 and not (opens and floor == 0)) or (start and piece[start - 1] in _NAME_CHARS):
        return None  # read back to the piece's start, or cut at the longest
    if start and piece[start - 1] == "{" and (start == 1 or piece[start - 2] == "$"):
        # A shell's ``${NAME…}`` (its ``$`` maybe just before the piece): its default is the
        # loop's to read.
        return None
    if end - start > 2 * _LONGEST_NAME or end >= size:
        return None  # cut at the longest, or it may go on past the piece
    name = piece[start:end].strip(".-")
    strength = strengths.get(name)
    if strength is None:
        strength = strengths[name] = name_strength(name)
    if not strength:
        return end, -1, -1
    sep = _SEP_BARE.match(piece, end)
    if sep is None:
        lead = _SEP_LEAD.match(piece, end)
        assert lead is not None  # it matches the empty string
        if piece.startswith("-", start):
            return None  # a flag's value
        if piece.startswith(":", lead.end()):
            # A colon before a bind parameter's name (_SEP_SOURCE), which may go on past the
            # piece to be none.
            return None
        if lead.end() + 3 >= size and (lead.end() >= size or piece[lead.end()] in "=:"):
            # A separator that may go on past the piece; after its lead (a quote, spacing)
            # any char but ``=`` or ``:`` opens none: ``<key>password</key>``'s ``</``.
            return None
        return end, -1, -1
    at, b = sep.end(1), sep.end(2)
    if b < 0 or piece[at] in _QUOTES or b - at > _LONGEST_VALUE or b >= size:
        return None  # not a short bare value, or one that may go on past the piece
    if _in_path(piece, start, sep):
        strength = WEAK  # a path's last part, a colon after it (_in_path)
    parts = reach.name_words(name)
    if parts[-1] in ("authorization", "cookie"):
        return None
    verdict = reach.verdict(name, parts, strength, "bare", piece[at:b])
    if verdict is False:
        return end, -1, -1
    if verdict is None or piece[b] not in " \t\r\n":
        # A message's words, read on past the piece; a char after the value that may open a
        # template (``<``, ``{{``: one that closes past the piece), which a space cannot.
        return None
    return end, at, b


#: Each window (``folding.LOWER_WINDOW`` chars: one long line lowered whole was a second copy
#: of it beside the text, ``url-token-closers``' 1 MB line: peak 2.0x the input, where a
#: text's target is 1.5x; issue 23) is read this far past its end: longer than any name word
#: (``authorization``) and any of ``COMMAND_GATES``, so a word that opens in a window
#: ends in its read.
_WORD_REACH = 16


def _lowered_windows(text: str) -> Iterator[tuple[int, str]]:
    """``text`` lower-cased a window at a time: where each window starts, and it lowered, read
    :data:`_WORD_REACH` chars past its end (a word that opens in it is whole there)."""
    step = folding.LOWER_WINDOW
    for at in range(0, max(len(text), 1), step):
        window = text[at : at + step + _WORD_REACH]
        low = window.lower()
        if len(low) != len(window):
            # U+0130 lowers to two chars, which would move every offset after it: fold it to
            # the one ASCII letter the scan folds it to (folding.FOLDS).
            low = fold(window).lower()
        yield at, low


# After a flag: spaces, or the quote, comma and quote of an argv written as a list.
_FLAG_GAP = lazy_compile(r"""(?:[ \t]|\\t)+|["'],[ \t]*(?=["'])""")
#: Words that follow a flag named in prose: "the --password flag", "--secret is read…".
_PROSE_AFTER_FLAG = frozenset({
    "flag", "flags", "option", "options", "argument", "arguments", "parameter", "parameters",
    "switch", "value", "values", "field", "setting", "is", "was", "are", "and", "or", "to",
    "of", "for", "in", "on", "with", "when", "if", "the", "a", "an", "that", "which", "must",
    "should", "can", "may", "will", "takes", "expects", "accepts", "sets", "requires",
    "prompts", "instead", "only", "also", "not", "then", "as", "from", "by", "at",
})


def _value_at(text: str, at: int) -> tuple[int, int, str] | None:
    """Where the value written at ``at`` starts and ends (inside its quotes), and how it was
    written: ``esc``, ``dq``, ``sq`` or ``bare``."""
    match = _VALUE.match(text, at)
    if match is None:
        return None
    # Each alternative is one named group with none inside it, but a value over lines, whose
    # opening quote is its first group: its value closes last.
    group = match.lastgroup
    assert group is not None
    a, b = match.span(group)
    return a, b, "bare" if group == "open" else group


def _flag_value(text: str, strength: int, at: int, found: list[Span], reach: _Reach) -> None:
    """The value after a credential flag: stubbed alone, the flag kept."""
    quoted = _written(text, at, found, reach)
    if quoted is None:
        return
    a, b, group = quoted
    value = text[a:b]
    if value.startswith("-") or placeholder(value) or (
        group == "bare" and TEMPLATE.match(text, b)
    ):
        return
    if value.rstrip(".,:;!?").lower() in _PROSE_AFTER_FLAG:
        return
    if (strength == STRONG and len(value) >= 3) or opaque(value):
        _withhold(a, b, group, found, reach)


def _bounded_value(text: str, a: int, b: int, found: list[Span]) -> None:
    """A password whose place says where it ends (Oracle's ``user/VALUE@host``)."""
    if b > a and not placeholder(text[a:b]):
        found.append(Span(a, b, ASSIGNMENT))


def _written(
    text: str, at: int, found: list[Span], reach: _Reach
) -> tuple[int, int, str] | None:
    """:func:`_value_at`, but ``None`` for a value that needs no judging: one that starts
    inside a bare value withheld already (it ends where that one does: no separator in it),
    and a bare value longer than :data:`_LONGEST_VALUE`, withheld unread (fail closed). A run
    of ``API_KEY=x_API_KEY=x_…`` with no separator was a value the length of the rest of the
    run at each name (found by ``bench/fuzz_linear.py``'s drawn units, in base64)."""
    if at < reach.bare_until:
        return None
    written = _value_at(text, at)
    if written is not None and written[2] == "bare" and written[1] - written[0] > _LONGEST_VALUE:
        _withhold(*written, found, reach)
        return None
    return written


def _withhold(a: int, b: int, group: str, found: list[Span], reach: _Reach) -> None:
    found.append(Span(a, b, ASSIGNMENT))
    if group == "bare":
        reach.bare_until = b


def _value(
    text: str, name: str, strength: int, at: int, found: list[Span], reach: _Reach
) -> None:
    parts = reach.name_words(name)
    last = parts[-1]
    if last in ("authorization", "cookie"):
        if text.startswith(("[", "{"), at) and not _STUB_AT.match(text, at):
            # A container's scalars: an authorization's each as a password's (no scheme or
            # token is read in it), a cookie map's or a jar's opaque strings as a weak plural's
            # (``"cookies": {"sid": S}`` in a log line, as the walk of parsed JSON reads it).
            _bracketed(text, name, STRONG if last == "authorization" else strength, at,
                       found, reach)
        elif last == "authorization":
            _authorization(text, at, found, reach)
        else:
            _cookies(text, at, found, reach)
        return
    if text.startswith(("[", "{"), at) and not _STUB_AT.match(text, at):
        _bracketed(text, name, strength, at, found, reach)
        return
    written = _written(text, at, found, reach)
    if written is None:
        return
    a, b, group = written
    value = text[a:b]
    if group == "wrapped" and "\n" in value:
        value = _lines_joined(value)
    verdict = reach.verdict(name, parts, strength, group, value)
    if verdict is False:
        return
    if group == "bare":
        if TEMPLATE.match(text, b):
            return
        if verdict is None and _bare_prose(text, a, b):
            return  # what a prompt, a validator or an error says next (Password: incorrect)
    _withhold(a, b, group, found, reach)


def _lines_joined(value: str) -> str:
    """A quoted value over lines as it is judged: a token wrapped over lines is its lines
    joined (each a word: a key cut at a width), words over lines are prose's (a space
    between)."""
    lines = [line.strip() for line in value.splitlines()]
    return ("" if not any(" " in line or "\t" in line for line in lines) else " ").join(lines)


def _authorization(text: str, at: int, found: list[Span], reach: _Reach) -> None:
    """The credential of an ``Authorization:`` header's value at ``at``: its first token, or
    its scheme's token or auth-params (:func:`authheader.credential`); what follows it on the
    line is shown. Bearer and Basic are their rules'. A credential that reaches the longest
    read is withheld to its line's end unread (fail closed)."""
    if text[at:at + 6].lower().startswith(_SCHEMES_OF_RULES):
        # Told first (no quote opens it, so none is skipped below): its line's end was
        # found for each header of a log of Bearer tokens, for nothing (issue 23).
        return
    quoted = _QUOTED.match(text, at) if text[at:at + 1] in _QUOTES else None
    if quoted is not None:  # "Authorization": "Token …" written as JSON or a string
        at, limit = quoted.span(1)
        end = limit
    else:
        # Many names on one line each read their own value, the longest at most; one inside
        # a value withheld to the line's end already is passed over.
        if at < reach.header_until:
            return
        end = reach.line_end(at)
        if text.startswith(_QUOTE_OPENS, at):  # a quote that does not close on its line
            at += 1 + (text[at] == "\\")
        limit = min(end, at + _LONGEST_HEADER)
    if text[at:at + 6].lower().startswith(_SCHEMES_OF_RULES):
        return
    got = authheader.credential(text, at, limit)
    if got is None:
        return
    a, b = got
    value = text[a:b]
    if _header_shown(value) or _STUB_AT.match(text, a):
        return
    if quoted is None and (b == limit < end or (
            ("=" in value or ":" in value) and _ASSIGNED_IN.search(value))):
        # Read to the longest, or a header's name assigned inside it (``…:authorization:…``
        # with no space): withheld to the line's end, and each name there is passed over, as
        # what its reading would withhold lies there (a run of them read the rest of the run
        # at each). A value that ends before its line's end holds no such name, so a name
        # after it is read: what that one withholds may reach past it.
        b = reach.header_until = end
    found.append(Span(a, b, AUTH_HEADER))


_QUOTE_OPENS = ('"', "'", '\\"', "\\'")
#: The schemes whose credentials are their own rules' (a header's value opening with one).
_SCHEMES_OF_RULES = ("bearer", "basic")


@kept
def _header_shown(value: str) -> bool:
    """Whether an ``Authorization:`` header's credential (:func:`_authorization`) is shown: a
    placeholder, a message's words, or too short and plain. A placeholder later on the line
    (``see <docs>``) does not make the credential one; a word of a message is none (one word
    that is not letters is no message's: :func:`prose`). Kept: a log's every line has its
    header, and the same credential (issue 23)."""
    spaced = " " in value
    if placeholder(value.split(None, 1)[0] if spaced else value) or (
            (spaced or value.strip(WORD_EDGE).isalpha()) and prose(value)):
        return True
    return len(value) < 8 and not (len(value) >= 4 and any(c.isdigit() for c in value))
#: A header's name and a separator with no space: one assigned inside a header's value, whose
#: own reading is long (a header's, the longest; a cookie's, its line). Another name's (a
#: SigV4 value's ``Credential=``) is read as anywhere: its bare value ends inside.
_ASSIGNED_IN = lazy_compile(r"(?i)(?:authorization|cookie)[A-Za-z0-9_.-]*[:=]")


#: What a header's name after a path and a colon may hold (:func:`_path_header`): a scheme,
#: then the credential as RFC 7235 writes one (``token68``), read no further than a bare
#: value is judged. No ``:`` is in it, so a run of ``/a/authorization:`` with no space reads
#: each name's value to the next name's colon (any char but a space read the rest of the
#: run, 4 KB at most, at each name: 9.4 s for 256 KB).
_PATH_HEADER = lazy_compile(
    rf"""\\?["']?([A-Za-z][A-Za-z0-9_-]*[ \t]+)?([A-Za-z0-9._~+/-]{{1,{_LONGEST_VALUE}}}=*)"""
)


def _in_path(text: str, start: int, sep: re.Match[str]) -> bool:
    """Whether the name at ``start`` is a path's or a URL's last part with a colon after it
    (``/etc/passwd: …``, ``GET /api/v1/password: 405 Method Not Allowed``): a file or an
    endpoint that a message names, read as a weak name (only a generated value after it is a
    credential: ``/x/api_key: 8f14e45f…``). An ``=`` after one assigns it still, at its own
    strength (``/DB_PASSWORD=hunter2``, ``path/API_KEY=…``). :func:`find_assignments` asks
    the same inline."""
    return start > 0 and text[start - 1] == "/" and "=" not in sep[1]


def _path_header(text: str, name: str, end: int, found: list[Span], reach: _Reach) -> bool:
    """Whether the name ending at ``end``, a path's last part, is a header's with a colon after
    it (``GET /x/Authorization: Token …``: a request line glued to its header, or an endpoint
    a message names, ``GET /api/authorization: 405 Method Not Allowed``), which is judged here
    (:func:`_in_path`): only a generated credential after the scheme is withheld, alone;
    Bearer and Basic are their rules'. One as long as the longest read is withheld as read
    (fail closed). Its separator is matched alone: the one of other names reads a bare value,
    which here is the rest of a run of ``/a/authorization:`` at each name."""
    if reach.name_words(name)[-1] != "authorization":
        return False
    sep = _SEP_ONLY.match(text, end)
    if sep is None or "=" in sep.group():
        return False
    match = _PATH_HEADER.match(text, sep.end())
    if match is None or (match[1] or "").lower().startswith(("bearer", "basic")):
        return True
    credential, a, b = match[2], match.start(2), match.end(2)
    word = (match[1] or "").rstrip()
    if word and (stamp := authheader.timestamp_at(text, a)) >= 0:
        credential = text[a:stamp]  # read whole: its ":" ends no value
    told = authheader.scheme(word, credential) if word else True
    if told is False:
        # A raw value, then a word (``GET /x/authorization: a8F3… more``): the first is it.
        credential, a, b = word, match.start(1), match.start(1) + len(word)
    elif told is None and authheader.generated(word):
        # A generated run of letters, then a value that may be a credential too: both.
        a = match.start(1)
    # A run of letters alone is the credential where it looks generated, whatever follows it
    # (nothing, a bracket, a stop: ``GET /x/authorization: qwertyuiopasdfgh [retry]``); a
    # message's word is too short or too plain (``forbidden``).
    if (told is not True and authheader.generated(word)) or len(credential) >= _LONGEST_VALUE or (
            _path_credential(credential)):
        found.append(Span(a, b, AUTH_HEADER))
    return True


@kept
def _path_credential(credential: str) -> bool:
    """Whether the value after a path's header (:func:`_path_header`) looks generated and is
    no placeholder. Kept: a run of ``/a/authorization:`` names judged the same value at each,
    three judgements' calls (issue 23)."""
    return (opaque(credential) or authheader.generated(credential.rstrip(".="))) and (
        not placeholder(credential))


_UNJUDGED = object()
#: The chars that open a value other than a bare one.
_QUOTES = frozenset("\\\"'")


def _assigned_bare(text: str, end: int) -> bool:
    """Whether the name ending at ``end`` is assigned a bare value, which ends on its line; told
    by the separator alone. Not an object or an array (``secret={…``, which
    :func:`_bracketed` reads past its line), nor a quoted value, nor a flag's."""
    sep = _SEP_ONLY.match(text, end)
    return sep is not None and not text.startswith(_OPENS_NO_BARE, sep.end())


#: What opens a value that is not bare: a container, a quote, an escaped quote.
_OPENS_NO_BARE = ("[", "{", '"', "'", "\\")


def _inside_withheld(text: str, end: int, name: str, reach: _Reach) -> bool:
    """Whether the value after a name ending at ``end`` opens inside a bare value withheld
    already, which neither :func:`_plain_bare` nor :func:`_value` judges (only a header's or
    a cookie's is read there). Told by the separator alone: :data:`_SEP_BARE` reads the value
    on to its end, which in a run of ``API_KEY=x_API_KEY=x_…`` with no space is the rest of
    the run, at every name in it (quadratic: 2.3 s for the base64 of 256 KB of it with the
    regex passes, which judge the decoded run; tests/redact/test_redact_linear_judgement.py)."""
    sep = _SEP_ONLY.match(text, end)
    if sep is None or sep.end() >= reach.bare_until:
        return False
    parts = reach.words.get(name)
    if parts is None:
        parts = reach.name_words(name)
    return parts[-1] not in ("authorization", "cookie")


def _plain_bare(
    text: str, name: str, strength: int, sep: re.Match[str], found: list[Span], reach: _Reach
) -> bool:
    """:func:`_value` for its commonest cases in one call, not six: a bare value after a name
    that is neither a header's nor a cookie's (``password=hunter2``, ``API_KEY=…``), read
    from ``sep``, a match of :data:`_SEP_BARE`, and a header's or a cookie's value that opens
    no container, handed to its reader. ``False`` for any other, which :func:`_value`
    judges; what it does is what :func:`_value` would. A name's words and a value's verdict,
    once known, are read here without a call: a MB of assignments just under the density
    bound is 25,000 of them (issue 23)."""
    at, b = sep.end(1), sep.end(2)
    if b < 0 or text[at] in _QUOTES:
        return False  # a quote, a bracket (a container), or no value
    parts = reach.words.get(name)
    if parts is None:
        parts = reach.name_words(name)
    last = parts[-1]
    if last == "cookie":  # a header's value, no container: read as _value reads it
        _cookies(text, at, found, reach)
        return True
    if last == "authorization":
        _authorization(text, at, found, reach)
        return True
    if at < reach.bare_until:
        return True  # inside a bare value withheld already (_written)
    if b - at > _LONGEST_VALUE:
        _withhold(at, b, "bare", found, reach)
        return True
    value = text[at:b]
    verdict = reach.verdicts.get((name, strength, "bare", value), _UNJUDGED)
    if verdict is _UNJUDGED:
        verdict = reach.verdict(name, parts, strength, "bare", value)
    if verdict is False or sep.start(3) >= 0 or (verdict is None and _bare_prose(text, at, b)):
        return True
    found.append(make_span((at, b, ASSIGNMENT)))
    reach.bare_until = b
    return True


def _verdict(parts: list[str], strength: int, group: str, value: str) -> bool | None:
    """Whether a value written after a name of these words is withheld, as far as the value
    alone tells: ``True`` or ``False``, or ``None`` for a bare value of letters, which the
    words after it on its line may make a message (:func:`_bare_prose`). A template right
    after a bare value (``pass${N}``) is the caller's to see."""
    if placeholder(value) or is_location(value):
        return False
    if group != "bare" and prose(value):
        return False
    if strength == STRONG:
        if (parts in (["pwd"], ["oldpwd"]) and _path(value)) or len(value) < 3:
            return False
    elif not opaque(value):
        return False
    if group != "bare":
        return True
    # A word that is not letters alone is no message's first word, and alone it is none of
    # PROSE_WORDS (all letters): _bare_prose says no whatever follows it.
    return None if value.strip(WORD_EDGE).lower().replace("-", "").isalpha() else True


#: How far an object or array under a credential's name is read (it may span lines).
_BRACKETED_LONGEST = 4096
#: How many chars the bracketed values of one text may be read for, in all: a text of many
#: credential names each followed by a bracket that never closes (``secret={"a": "b", …``)
#: read 4 KB at each (280 s a MB). Twice the text's length: nested containers read their
#: text twice or so, and one reach is never longer than the text; past this each is withheld
#: unread, over the whole of its reach (fail closed).
_BRACKETED_PER_CHAR = 2
#: Whether a container written again just as the last one read is told by that reading
#: (:attr:`_Reach.last_bracketed`); off, each is read (the slow path the tests compare with).
_BRACKETED_AGAIN = True
_SCALAR = lazy_compile(
    r"""\\?"(?P<dq>(?:[^"\\\n]|\\[^"\n])*)\\?"|'(?P<sq>[^'\n]*)'"""
    r"""|(?<![\w.-])(?P<num>-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)(?![\w.])|(?P<open>[\[{])|(?P<close>[\]}])"""
)
_KEY_AFTER = lazy_compile(r"[ \t]*:")
#: A stub elision wrote (``[credential withheld: …]``, ``[ref_k3f9] …``): never a container.
_STUB_AT = lazy_compile(
    r"\[(?:credential withheld: |withheld: |credential-dense text withheld: |ref_[a-z0-9]+\] )"
)


def _bracketed(
    text: str, name: str, strength: int, at: int, found: list[Span], reach: _Reach
) -> None:
    """The scalars of a JSON (or Python) object or array written after a credential's name
    (``"db_password": {"value": "…", "sensitive": true}``), read as
    :func:`elision.redact.fields.withhold_inside` reads a parsed one: under a strong name
    every string and number that is not a metadata member's, under a weak name only opaque
    strings; booleans and null stay."""
    stop = min(len(text), at + _BRACKETED_LONGEST)
    if reach.bracketed <= 0:
        found.append(Span(at, stop, ASSIGNMENT))  # fail closed: more than it may read
        return
    last = reach.last_bracketed
    if last is not None and last[0] == strength and text.startswith(last[1], at):
        # The container the last reading read, written again (a log's every line has its
        # ``cookies: [{"name": "sid", "value": S}]``): what that reading withheld, moved here.
        # A reading is a function of its container's chars alone (it opens at its bracket and
        # closed before its stop), so the same chars read the same (issue 23).
        found.extend([Span(at + a, at + b, ASSIGNMENT) for a, b in last[2]])
        reach.bracketed -= len(last[1])
        return
    before = len(found)
    end = _read_bracketed(text, strength, at, stop, found)
    reach.bracketed -= end - at
    if end < stop and _BRACKETED_AGAIN:
        reach.last_bracketed = (strength, text[at:end],
                                [(span.start - at, span.end - at) for span in found[before:]])


def _read_bracketed(text: str, strength: int, at: int, stop: int, found: list[Span]) -> int:
    """:func:`_bracketed`'s reading, up to ``stop``; returns where it stopped."""
    from elision.redact.fields import keeps_metadata

    depth = 0
    keys: list[str | None] = []
    pos = at
    while pos < stop:
        match = _SCALAR.search(text, pos, stop)
        if match is None:
            return stop
        pos = match.end()
        if match.group("open") is not None:
            depth += 1
            keys.append(None)
            continue
        if match.group("close") is not None:
            depth -= 1
            if keys:
                keys.pop()
            if depth <= 0:
                return pos
            continue
        group = next(g for g in ("dq", "sq", "num") if match.group(g) is not None)
        value = match.group(group)
        if group != "num" and _KEY_AFTER.match(text, pos):
            if keys:
                keys[-1] = value  # a member's key: it names what follows
            if opaque(value) and not is_location(value):
                # A key that looks generated is one of the credentials the name holds
                # ({"tokens": {S: "bob"}}), as fields.withhold_inside reads it.
                found.append(Span(match.start(group), match.end(group), ASSIGNMENT))
            continue
        if keys and keys[-1] is not None and keeps_metadata(strength, keys[-1]):
            continue
        if group == "num":
            secret = strength == STRONG
        else:
            secret = not placeholder(value) and not prose(value) and (
                strength == STRONG or opaque(value))
        if secret:
            found.append(Span(match.start(group), match.end(group), ASSIGNMENT))
    return pos


_MORE_WORDS = lazy_compile(r"[ \t]+[A-Za-z]")
#: A message's words up to one past the most :func:`prose` reads, on one line: a longer
#: message is no message whatever follows, so the rest of a long line is never read (a line of
#: ``password=hunter2 …`` read the rest of itself at each name: its length squared).
_MESSAGE = lazy_compile(rf"(?:\S+[^\S\n]*){{1,{_PROSE_LONGEST + 1}}}")


def _bare_prose(text: str, a: int, b: int) -> bool:
    """Whether a bare value and, when more words follow it on its line, the rest of that line
    are a message: it is judged whole (``passwd: Authentication token manipulation error``),
    so the first word of a passphrase is not taken for one. :func:`prose` says no to a message
    of several words that opens with one that is not plain (``hunter2 …``), and to one of more
    than :data:`_PROSE_LONGEST` words, so neither is read further."""
    value = text[a:b]
    if _MORE_WORDS.match(text, b) is None:
        return prose(value)
    if not value.strip(WORD_EDGE).lower().replace("-", "").isalpha():
        return False
    message = _MESSAGE.match(text, a)
    assert message is not None  # the value itself is a word
    return prose(message.group().rstrip("\r"))


#: Whether a cookie header's members are read once a text (a reading stops where an earlier
#: one read on, and a run of plain members is passed in one match); off, each name's reading
#: reads every member to its line's end (the slow path the tests compare with).
_COOKIES_ONCE = True


def _cookies(text: str, at: int, found: list[Span], reach: _Reach) -> None:
    """Each cookie's value on the line at ``at``: a value ends at a space, as RFC 6265 writes
    one (a quote around it is not its), so what follows it is shown; the next pair is read
    after the next ``;`` or comma before a name (:data:`_COOKIE_SEP`: ``a=b, sid=<value>``, a
    folded ``Set-Cookie``'s), up to the first that is none. A value with no name (``Cookie:
    <value>``, ``Cookie: a=b; <value>``, ``Set-Cookie``'s attributes' place) is withheld where
    it looks generated, and the pairs after it are read, as after a flag written among them
    (``HttpOnly;``) or words. After the first, a member or a pair's name with a ``:`` or a
    ``/`` is none of a cookie's (a header's name, a path or a URL, whose query was read as a
    pair): passed over unread, and the pairs after it read. ``Set-Cookie``'s pairs after its
    first are its attributes (named in :data:`_COOKIE_ATTRIBUTES`, never withheld) or read
    as a cookie's.

    Each member after the first is read once a text: every reading goes from separator to
    separator alike, so one that reaches a separator an earlier one read past stops there (a line of
    ``cookie: x; …`` names read on to its end at each name: its length squared, in Python)."""
    # The line's end found once for all its names (a search from each name to it read a long
    # line of cookie headers once a name: quadratic, in C).
    stop = reach.line_end(at)
    after_seen, seen = reach.cookies_read
    # Each member's separator found once for all the readings that ask (a line with none was
    # searched to its end at each); one at or past the line's end is none.
    separator = reach.separators.at_or_after
    pos = at
    # Where each member's first chars were last read from, and what was found before it
    # (:func:`_cookies_again`); only a reading's members past what any reading read.
    starts: dict[str, tuple[int, int]] | None = {} if _COOKIES_AGAIN else None
    while pos < stop:
        if starts is not None and pos > at and pos > seen:
            head = text[pos:pos + _COOKIE_HEAD]
            last = starts.get(head)
            if last is not None:
                pos = _cookies_again(text, last[0], pos, stop, last[1], found)
                starts.clear()
                if pos >= stop:
                    break
                head = text[pos:pos + _COOKIE_HEAD]
            elif len(starts) >= _COOKIE_HEADS:
                starts.clear()  # a few members back are enough to see a run repeat
            starts[head] = (pos, len(found))
        pair = _COOKIE_PAIR.match(text, pos, stop)
        if pair is not None:
            key, group = pair.group(1), 2 if pair.start(2) >= 0 else 3
            a, b = pair.start(group), pair.end(group)
            sep = separator(a)
            if sep is not None and sep.start() < b:
                # A comma and the next cookie's name with no space between (``Path=/,sid=…``):
                # the value ends before it (a comma is no cookie's char, RFC 6265).
                b = sep.start()
            elif b > a and text[b - 1] == ",":
                # No cookie's char (RFC 6265), a list's: before the next cookie's name
                # (``sid=<value>, theme=dark``), the search from it finds it.
                b -= 1
            value = text[a:b]
            if (pos == at or (":" not in key and "/" not in key)) and (
                key.lower() not in _COOKIE_ATTRIBUTES and len(value) >= 8
            ) and (
                entropy(value) >= 3.0 or _SESSIONISH.search(key) is not None
            ) and not placeholder(value) and not _STUB_AT.match(text, a):
                found.append(Span(a, b, COOKIE))
        else:
            bare = _COOKIE_BARE.match(text, pos, stop)
            if bare is None:
                break  # no pair and no value: the line holds no more of them
            value = bare.group(1)
            if (pos == at or (":" not in value and "/" not in value)) and opaque(value) and (
                not placeholder(value)
            ):
                found.append(Span(bare.start(1), bare.end(1), COOKIE))
            sep = separator(bare.end())
        if sep is None or sep.start() >= stop:
            break
        pos = sep.end()
        if not _COOKIES_ONCE:
            continue
        if after_seen < pos <= seen:
            # Read from here on by an earlier name's reading (:attr:`_Reach.cookies_read`).
            reach.cookies_read = (min(at, after_seen), seen)
            return
        if pos > seen:  # past what any reading read: a run of plain members passed at once
            plain = _COOKIE_PLAIN.match(text, pos, stop)
            assert plain is not None  # it matches the empty run
            pos = plain.end()
    reach.cookies_read = (at, pos)


#: Whether a cookie header's run of members written again and again is read once (its
#: reading's spans moved on to each copy, :func:`_cookies_again`); off, each member is read
#: (the slow path the tests compare with).
_COOKIES_AGAIN = True
#: The chars of a member's start a reading keeps to see it written again, and how many
#: members back it looks.
_COOKIE_HEAD = 24
_COOKIE_HEADS = 32


def _cookies_again(
    text: str, last: int, pos: int, stop: int, count: int, found: list[Span]
) -> int:
    """Where :func:`_cookies`' reading goes on from at ``pos``, a member's start, having
    read ``text[last:pos]`` from an earlier member's start (``count`` spans found before
    it) where the text from ``pos`` repeats those chars again and again: the spans that
    stretch's reading found, moved on to each copy after it but the last, which it reads as
    before (``pos`` itself where there are too few copies).

    The reading of a member reads no further than the first ``;`` at or after the next
    member's start (each of :data:`_COOKIE_PAIR`, :data:`_COOKIE_BARE`, :data:`_COOKIE_SEP`'s
    search and :data:`_COOKIE_PLAIN` stops at a ``;`` or on the char after a value that may
    be none), so where the stretch holds a ``;``, its reading read chars of it and of the copy
    after it alone: on any copy followed by another, the reading reads the same chars from the
    same offsets, and does the same, all of it past where any reading read and before the
    line's end (a copy holds no line break). The last copy's reading may read past it (a
    comma's name after it, a value that runs on), so it is read. A line of 1 MB of
    ``Set-Cookie: a=b; Path=/; <value>; `` headers was three Python steps a header, in its
    first reading (issue 23)."""
    size = pos - last
    if size > _LONGEST_COPY or pos + size > stop:
        return pos  # a stretch as long is no header's run written again: not copied
    unit = text[last:pos]
    if ";" not in unit or not text.startswith(unit, pos):
        return pos
    # Whole copies from ``last`` on, before the line's end, counted in C a block of copies at
    # a time (a block of a few KB at most).
    copies, at = 2, pos + size
    many = max(1, min(_COPIES_A_BLOCK, _BLOCK_CHARS // size))
    while many:
        block = unit * many
        while at + len(block) <= stop and text.startswith(block, at):
            at += len(block)
            copies += many
        many //= 2
    if copies < 3:
        return pos
    # The copies from ``pos`` on, but the last: their readings' spans are the first's.
    spans = found[count:]
    found.extend([make_span((span.start + shift, span.end + shift, span.rule))
                  for shift in range(size, (copies - 1) * size, size) for span in spans])
    return last + (copies - 1) * size


#: How many copies of a repeated stretch of cookie members are compared at once, in how
#: many chars at most; and the longest stretch compared.
_COPIES_A_BLOCK = 64
_BLOCK_CHARS = 4096
_LONGEST_COPY = 4096
