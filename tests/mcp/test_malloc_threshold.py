"""The proxy pins glibc's mmap threshold (elision._malloc): where glibc is, the call is taken;
where it is not, nothing breaks."""

from __future__ import annotations

import ctypes
import sys

import pytest

from elision import _malloc


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt is Linux's")
def test_glibc_takes_the_threshold() -> None:
    assert _malloc.pin_mmap_threshold() is True


def test_no_glibc_is_no_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing(*_: object, **__: object) -> None:
        raise OSError("no libc here")

    monkeypatch.setattr(ctypes, "CDLL", missing)
    assert _malloc.pin_mmap_threshold() is False
    monkeypatch.setattr(sys, "platform", "darwin")
    assert _malloc.pin_mmap_threshold() is False


def test_the_proxy_pins_it_before_serving(monkeypatch: pytest.MonkeyPatch) -> None:
    from elision.mcp import serve

    calls: list[str] = []
    monkeypatch.setattr(serve, "pin_mmap_threshold", lambda: calls.append("pinned") or True)

    def stop(*_: object, **__: object) -> None:
        calls.append("served")

    monkeypatch.setattr(serve.anyio, "run", stop)
    serve.run_proxy(object())  # type: ignore[arg-type]
    assert calls == ["pinned", "served"]
