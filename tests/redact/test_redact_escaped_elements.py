"""An XML element whose ``<`` and ``>`` HTML escapes: ``&lt;password&gt;S&lt;/password&gt;``.

Found on docs/design.md's "Not yet" list ("an element whose ``<`` is escaped (``\\u003c``,
``&lt;``)"; the leakmisc helper): an XML config shown in an HTML page, or in a JSON string
that holds one, showed its password by every route, as text and in JSON, and so did its JSON
spelling ``\\u0026lt;password\\u0026gt;``. The ``\\u003c`` spelling of a real element was
withheld already (a piece's escapes are read decoded); it is pinned here. Each case marked
red was red on the code before.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elision import shape
from elision.redact import redact_text, redact_value

S = "Xk9mQ2zT7vLp4RwB8nYc3HdF"  # a random 24-char secret (opaque)
PLAIN = "hunter2xyz"  # not opaque: only a strong name withholds it


def routes_showing(text: str, secret: str) -> list[str]:
    body = json.dumps({"out": text})
    escaped = body.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    out = {
        "text": redact_text(text).value,
        "log line": redact_text(f"2026-12-05 INFO page: {text}\n").value,
        "value": json.dumps(redact_value(json.loads(body), body=body.encode()).value),
        "json as text": redact_text(body).value,
        "escaped json": json.dumps(redact_value(json.loads(escaped),
                                                body=escaped.encode()).value),
        "escaped json as text": redact_text(escaped).value,
        "shape": shape(body).text,
    }
    return [route for route, shown in out.items() if secret in shown]


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        (f"&lt;password&gt;{PLAIN}&lt;/password&gt;", PLAIN),  # the brief's: red before
        (f"&lt;password&gt; {S} &lt;/password&gt;", S),  # spaced: red before
        (f"&lt;db:password&gt;{PLAIN}&lt;/db:password&gt;", PLAIN),  # a namespace: red
        (f'&lt;password encrypted=&quot;false&quot;&gt;{PLAIN}&lt;/password&gt;', PLAIN),  # red
        ("&lt;server&gt;&lt;id&gt;x&lt;/id&gt;&lt;password&gt;" + PLAIN
         + "&lt;/password&gt;&lt;/server&gt;", PLAIN),  # Maven's settings, escaped: red
        (f"&lt;apiKey&gt;{S}&lt;/apiKey&gt;", S),  # red before
        (f"<password>{PLAIN}</password>", PLAIN),  # as before
        (f"<password>a&lt;{PLAIN}</password>", PLAIN),  # a real element's text holds &lt;
    ],
)
def test_an_escaped_element_withholds_its_text(text: str, secret: str, each_engine: Any) -> None:
    assert routes_showing(text, secret) == []


@pytest.mark.parametrize(
    "text",
    [
        "&lt;password&gt;${DB_PASSWORD}&lt;/password&gt;",  # a placeholder
        "&lt;password&gt;********&lt;/password&gt;",  # a mask
        "&lt;password_policy&gt;strict1234&lt;/password_policy&gt;",  # no credential's name
        "&lt;password&gt;&lt;/password&gt;",  # empty
        "Use &lt;password&gt; to set it, &lt;/password&gt; closes it.",  # prose about tags
        "&lt;b&gt;bold&lt;/b&gt; and &lt;token&gt;",  # an open tag never closed
    ],
)
def test_what_names_or_holds_no_credential_stays_shown(text: str, each_engine: Any) -> None:
    assert redact_text(text).value == text
    body = json.dumps({"out": text})
    assert redact_value(json.loads(body), body=body.encode()).withheld == ()


@pytest.mark.parametrize(
    ("text", "withheld"),
    [
        (f"&lt;password&gt;{PLAIN}&lt;/password&gt;", "&lt;password&gt;{}&lt;/password&gt;"),
        (f"&lt;password&gt;  {S}\n&lt;/password&gt;", "&lt;password&gt;  {}\n&lt;/password&gt;"),
    ],
)
def test_only_the_text_is_withheld_the_escaped_tags_kept(text: str, withheld: str) -> None:
    out = redact_text(text).value
    stub = out[len(withheld.split("{}")[0]):len(out) - len(withheld.split("{}")[1])]
    assert out == withheld.format(stub)
    assert stub.startswith("[credential withheld")


_NAMES = st.sampled_from(["password", "api_key", "client_secret", "db:password", "apiKey",
                          "AUTH_TOKEN", "passphrase"])
_SECRETS = st.text("abcdefghjkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789", min_size=20,
                   max_size=32).filter(lambda s: len(set(s)) > 12)


@settings(max_examples=40, deadline=None)
@given(name=_NAMES, secret=_SECRETS,
       before=st.sampled_from(["", "x ", "&lt;a&gt;1&lt;/a&gt;", "&amp; ", "<p>", "\n  "]),
       pad=st.sampled_from(["", " ", "\n    "]),
       attrs=st.sampled_from(["", ' id="1"', " id=&quot;1&quot;"]))
def test_any_escaped_element_withholds_as_its_plain_form(
    name: str, secret: str, before: str, pad: str, attrs: str
) -> None:
    """A random credential element, HTML-escaped, after random text, its text padded and its
    tag given random attributes: withheld wherever its plain form is, and its tags kept."""
    plain = f"{before}<{name}{attrs.replace('&quot;', chr(34))}>{pad}{secret}{pad}</{name}>"
    text = (f"{before}&lt;{name}{attrs}&gt;{pad}{secret}{pad}&lt;/{name}&gt;")
    out = redact_text(text).value
    assert (secret in out) == (secret in redact_text(plain).value)
    assert out.endswith(f"{pad}&lt;/{name}&gt;")


# The leaks helper (docs/design.md's "Not yet" for escaped elements): the other spellings of
# HTML's escapes of ``<`` and ``>`` were shown by every route. Each case was red before.
_SPELLINGS = [
    ("&LT;", "&GT;"),  # upper case
    ("&Lt;", "&Gt;"),  # mixed case
    ("&#60;", "&#62;"),  # decimal references
    ("&#x3c;", "&#x3e;"),  # hexadecimal
    ("&#X3C;", "&#X3E;"),  # hexadecimal, upper case
    ("&amp;lt;", "&amp;gt;"),  # escaped twice: a page that shows a page's source
]
# Not found alone (docs/design.md's "Not yet": no trigger literal for them, each a regex
# passes' cost): ``&#060;``, ``&amp;#60;``, ``&amp;amp;lt;``. Read where a trigger is near.


@pytest.mark.parametrize(("lt", "gt"), _SPELLINGS)
@pytest.mark.parametrize(
    ("element", "secret"),
    [
        ("{lt}password{gt}" + PLAIN + "{lt}/password{gt}", PLAIN),
        ("{lt}apiKey{gt} " + S + " {lt}/apiKey{gt}", S),
        ("{lt}server{gt}{lt}id{gt}x{lt}/id{gt}{lt}db:password{gt}" + PLAIN
         + "{lt}/db:password{gt}{lt}/server{gt}", PLAIN),
    ],
)
def test_every_spelling_of_an_escaped_element_withholds_its_text(
    lt: str, gt: str, element: str, secret: str, each_engine: Any
) -> None:
    assert routes_showing(element.format(lt=lt, gt=gt), secret) == []


@pytest.mark.parametrize(("lt", "gt"), _SPELLINGS)
@pytest.mark.parametrize(
    "element",
    [
        "{lt}password{gt}${{DB_PASSWORD}}{lt}/password{gt}",  # a placeholder
        "{lt}password_policy{gt}strict1234{lt}/password_policy{gt}",  # no credential's name
        "{lt}b{gt}bold{lt}/b{gt} and {lt}token{gt}",  # an open tag never closed
        "a &amp; b, 3 &#60; 4, {lt}p{gt}x{lt}/p{gt}",  # escapes naming nothing
    ],
)
def test_other_spellings_naming_or_holding_no_credential_stay_shown(
    lt: str, gt: str, element: str
) -> None:
    text = element.format(lt=lt, gt=gt)
    assert redact_text(text).value == text
    body = json.dumps({"out": text})
    assert redact_value(json.loads(body), body=body.encode()).withheld == ()


@settings(max_examples=40, deadline=None)
@given(name=_NAMES, secret=_SECRETS, spelling=st.sampled_from(_SPELLINGS),
       before=st.sampled_from(["", "x ", "&amp; ", "&#38; ", "\n  "]),
       pad=st.sampled_from(["", " ", "\n    "]))
def test_any_spelling_withholds_as_the_plain_element_and_keeps_its_tags(
    name: str, secret: str, spelling: tuple[str, str], before: str, pad: str
) -> None:
    """A random credential element in a random spelling of HTML's escapes: withheld wherever
    its plain form is, as text and in a JSON string, and its escaped close tag kept."""
    lt, gt = spelling
    text = f"{before}{lt}{name}{gt}{pad}{secret}{pad}{lt}/{name}{gt}"
    plain = f"{before}<{name}>{pad}{secret}{pad}</{name}>"
    withheld = secret not in redact_text(plain).value
    out = redact_text(text).value
    assert (secret not in out) == withheld
    assert out.endswith(f"{pad}{lt}/{name}{gt}")
    body = json.dumps({"out": text})
    assert (secret not in json.dumps(
        redact_value(json.loads(body), body=body.encode()).value)) == withheld
