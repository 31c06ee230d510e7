"""A body with a byte order mark is read in the encoding the mark names before redaction.

Issue 22: a text saved as UTF-16 (a PowerShell ``Out-File``, a Windows ``.env``) was read as
UTF-8 with a NUL between every letter, so no rule saw its token and the model was shown it.
Found by an attacker's corpus: the same ``.env`` in UTF-16LE, UTF-16BE and UTF-32 with their
marks. Whatever the mark, the token is withheld, and what the model is shown says the bytes it
reads are a re-encoding of the tool's.
"""

from __future__ import annotations

import base64
import codecs
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from elision import shape
from elision.cli import main
from elision.pipeline import Pipeline
from elision.redact import RedactStage
from elision.redact.families import FAMILIES, sample
from elision.redact.scan import redact_spans
from elision.shape.bom import from_bom

TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
ENV = f"HOME=/home/ada\nGITHUB_TOKEN={TOKEN}\nLANG=en_US.UTF-8\n"

#: Each encoding a mark names, with the mark written before the text.
MARKED = {
    "utf-8": codecs.BOM_UTF8,
    "utf-16-le": codecs.BOM_UTF16_LE,
    "utf-16-be": codecs.BOM_UTF16_BE,
    "utf-32-le": codecs.BOM_UTF32_LE,
    "utf-32-be": codecs.BOM_UTF32_BE,
}


def marked(text: str, encoding: str) -> bytes:
    return MARKED[encoding] + text.encode(encoding)


@pytest.mark.parametrize("encoding", sorted(MARKED))
def test_a_marked_env_file_never_shows_its_token(encoding: str) -> None:
    """The issue's case: a .env with a BOM, through shape() as bytes (the CLI's path)."""
    shaped = shape(marked(ENV, encoding), 4096)
    assert TOKEN not in shaped.text
    assert "credential withheld" in shaped.text
    # The rest of the file is readable text, not UTF-8 with NULs.
    assert "HOME=/home/ada" in shaped.text
    assert "\x00" not in shaped.text


@pytest.mark.parametrize("encoding", sorted(set(MARKED) - {"utf-8"}))
def test_a_reencoded_body_says_so(encoding: str) -> None:
    """A clean body that fits is not passed off as the tool's bytes: the bytes changed."""
    shaped = shape(marked("all good\n", encoding), 4096)
    assert "all good" in shaped.text
    assert not shaped.complete or shaped.envelope is not None
    assert "re-encoded" in shaped.text


def test_a_utf8_mark_changes_no_bytes_and_adds_no_note() -> None:
    body = marked("all good\n", "utf-8")
    shaped = shape(body, 4096)
    assert shaped.body == body
    assert shaped.complete


@pytest.mark.parametrize("encoding", sorted(MARKED))
def test_a_marked_json_document_is_read_as_json(encoding: str) -> None:
    doc = {"db_password": "hunter2-not-a-real-one", "rows": [1, 2]}
    shaped = shape(marked(orjson.dumps(doc).decode(), encoding), 4096)
    assert "hunter2" not in shaped.text
    assert "[1,2]" in shaped.text.replace(" ", "")


def test_the_pipeline_stores_and_redacts_the_decoded_text() -> None:
    pipeline = Pipeline()
    capture = pipeline.capture(marked(ENV, "utf-16-le"))
    assert capture.body == ENV.encode()
    assert len(capture.notes) == 1 and "UTF-16LE" in capture.notes[0]
    assert TOKEN not in str(RedactStage().redact(capture).value)


def test_bytes_that_are_not_the_named_encoding_are_replaced_and_said() -> None:
    # An odd byte count cannot be UTF-16: the last byte is replaced, and the note says so.
    body, note = from_bom(codecs.BOM_UTF16_LE + "ab".encode("utf-16-le") + b"\x00")
    assert body == "ab\ufffd".encode()
    assert note is not None and "UTF-16LE" in note and "replaced" in note


def test_no_mark_no_change() -> None:
    body = b"plain \x00 bytes \xff"
    assert from_bom(body) == (body, None)


@pytest.mark.parametrize("encoding", sorted(MARKED))
def test_a_base64_blob_with_a_mark_is_decoded_and_scanned(encoding: str) -> None:
    """A base64 ``.env`` in a result (a resource's blob) decoded per its mark."""
    blob = base64.b64encode(marked(ENV, encoding)).decode()
    new, spans = redact_spans(f"data: {blob}")
    assert spans, new
    assert blob not in new


TEXT_FAMILIES = [f for f in FAMILIES if f.finder != "field"]


@settings(max_examples=60, deadline=None)
@given(
    family=st.sampled_from(TEXT_FAMILIES),
    seed=st.integers(0, 10**6),
    encoding=st.sampled_from(sorted(MARKED)),
    before=st.text(st.characters(codec="utf-8", exclude_categories=["Cs", "Cc"]), max_size=20),
    blob=st.booleans(),
)
def test_any_seeded_token_in_any_marked_encoding_never_shows(
    family: object, seed: int, encoding: str, before: str, blob: bool
) -> None:
    """Property: a fake of any family, in a text in any encoding a mark names, as the body or
    as a base64 blob inside one, never comes out in any of its values."""
    text, values = sample(family, 0, seed)  # type: ignore[arg-type]
    body = marked(f"{before}\n{text}\n", encoding)
    if blob:
        body = ("blob " + base64.b64encode(body).decode() + "\n").encode()
    shown = shape(body, 1 << 16).text
    for value in values:
        assert value not in shown


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-32-be"])
def test_elision_shape_reads_a_marked_file_by_its_mark(tmp_path: Path, encoding: str) -> None:
    """`elision shape .env` on a UTF-16 file printed NULs and the token."""
    source = tmp_path / ".env"
    source.write_bytes(marked(ENV, encoding))
    out = CliRunner().invoke(main, ["shape", str(source), "--no-store"])
    assert out.exit_code == 0, out.output
    assert TOKEN not in out.output
    assert "\x00" not in out.output
    assert "re-encoded as UTF-8" in out.output


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be", "utf-32-le"])
@pytest.mark.parametrize("misread", ["latin-1", "utf-8-replace"])
def test_a_marked_text_an_upstream_already_misread_is_read_by_its_mark(
    encoding: str, misread: str
) -> None:
    """A tool that read a UTF-16 file as 8-bit text (``errors="replace"``, or Latin-1) hands
    the proxy a string with a NUL between every letter, its mark shown as two U+FFFD or as
    ``ÿþ``: the same .env, the same token. It is read by the mark it shows."""
    raw = marked(ENV, encoding)
    text = raw.decode("latin-1") if misread == "latin-1" else raw.decode("utf-8", "replace")
    shaped = shape(text, 4096)
    assert TOKEN not in shaped.text.replace("\x00", "")
    assert "credential withheld" in shaped.text
    assert "HOME=/home/ada" in shaped.text
    assert "re-encoded" in shaped.text


@pytest.mark.parametrize(
    "text",
    [
        "\u00ff\u00fe plain Latin-1 text that opens with those two letters",
        "\ufffd\ufffd two replaced bytes, then ordinary text",
        "\u00ff\u00fe",
    ],
)
def test_text_that_only_opens_like_a_misread_mark_is_left_alone(text: str) -> None:
    body = text.encode()
    assert from_bom(body) == (body, None)


@pytest.mark.parametrize("misread", ["latin-1", "utf-8-replace"])
def test_the_proxy_reads_a_misread_text_block_by_its_mark(misread: str) -> None:
    """The proxy's own path: an upstream's text block holding a misread UTF-16 .env."""
    import mcp_types as types

    from elision.mcp.gate.results import ResultShaper
    from elision.store import MemoryStore

    raw = marked(ENV, "utf-16-le")
    text = raw.decode("latin-1") if misread == "latin-1" else raw.decode("utf-8", "replace")
    rs = ResultShaper(Pipeline(store=MemoryStore()))
    out = rs.shape(types.CallToolResult(content=[types.TextContent(text=text)]), scope="a")
    shown = orjson.dumps(out.model_dump(mode="json")).decode()
    assert TOKEN not in shown.replace("\\u0000", "")
    assert "HOME=/home/ada" in shown
