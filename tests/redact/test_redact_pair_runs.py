"""A window of name/value records adds its stubbed values' entries a run at a time, and
judges a strong name's pairs with no call a value.

Found by the perfpairs session (issue 23, bench class ``json-pairs``: a MB of
``{"name": "DB_PASSWORD_i", "value": "v{i}x"}``, 126 ms alone, 167x prose): each withheld
value was an entry added by a call (``PathEntries.add``), each value asked whether it was a
stub and then ``named_credential`` by a call, and each record's members looped over in Python
though the window's pass had told all of its strings clean: 8 Python calls a pair. Now 3
(the trigger search's match handler and ``keep``, the record's ``paired_value``). What is
withheld, and the order of the entries, is unchanged
(``test_redact_pair_windows.py``'s differentials, records walked alone).
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from elision.redact import redact_value
from elision.shape.jsonparse import parse_json
from elision.withheld import PathEntries
from support.calls import counted, python_calls


def _pairs(count: int) -> tuple[Any, bytes]:
    body = orjson.dumps([{"name": f"DB_PASSWORD_{i}", "value": f"v{i}x"}
                         for i in range(count)])
    return parse_json(body), body


def test_a_window_of_pairs_adds_its_entries_a_run_at_a_time(monkeypatch: Any) -> None:
    added = counted(monkeypatch, PathEntries, "add")
    value, body = _pairs(3000)
    done = redact_value(value, body=body)
    assert len(done.withheld) == 3000
    assert list(done.withheld)[7] == {"path": "$[7].value", "reason": "credential-field"}
    assert len(added) == 0  # was one a pair


def test_a_pair_costs_three_python_calls() -> None:
    value, body = _pairs(200)
    redact_value(value, body=body)  # warmed: the databases and tables built
    value, body = _pairs(3000)
    calls, done = python_calls(lambda: redact_value(value, body=body))
    assert len(done.withheld) == 3000
    assert calls < 4 * 3000  # was 8.1 a pair


@pytest.mark.parametrize(("record", "withheld"), [
    # a strong name: withheld whatever the value (a stub-like value is asked as before)
    ({"name": "DB_PASSWORD", "value": "v1x"}, True),
    ({"name": "DB_PASSWORD", "value": "[v1x"}, True),
    # the working directory, a scheme's header, a cookie: the value decides, as before
    ({"name": "PWD", "value": "/home/me"}, False),
    ({"name": "Authorization", "value": "Bearer abcdefghijklmnop"}, False),
    ({"name": "cookie", "value": "sid=q7Vh2LmX9pR4sT8wK3nZ6bY1cD5fG0jA"}, True),
    # a weak name: an opaque value withheld, a word shown
    ({"name": "token", "value": "q7Vh2LmX9pR4sT8wK3nZ6bY1cD5fG0jA"}, True),
    ({"name": "token", "value": "hello"}, False),
])
def test_each_name_judges_a_window_of_pairs_as_before(
    record: dict[str, str], withheld: bool,
) -> None:
    doc = [{"name": f"user_{i}", "value": f"u{i}"} for i in range(40)] + [record] * 40
    body = orjson.dumps(doc)
    done = redact_value(parse_json(body), body=body)
    paths = {entry["path"] for entry in done.withheld}
    assert ("$[60].value" in paths) is withheld


def test_the_entries_of_a_window_stay_in_the_order_of_its_records() -> None:
    """A record's other string withheld (its entry made as it is judged) comes after its
    pair's stubbed value and before the next record's: the run is added before it."""
    secret = "sk-q7Vh2LmX9pR4sT8wK3nZ6bY1cD5fG0jA"
    doc = [{"name": f"DB_PASSWORD_{i}", "value": f"v{i}x", "note": f"n{i}"} for i in range(400)]
    for i in (30, 31, 200):
        doc[i]["note"] = secret
    body = orjson.dumps(doc)
    done = redact_value(parse_json(body), body=body)
    expected = [path for i in range(400)
                for path in (f"$[{i}].value", f"$[{i}].note")
                if path.endswith("value") or i in (30, 31, 200)]
    assert [entry["path"] for entry in done.withheld] == expected
