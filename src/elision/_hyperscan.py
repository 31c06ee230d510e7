"""hyperscan, where it is installed and usable: every user of it has a regex fallback."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


def built_with_hyperscan(build: Callable[[Any], T], log: logging.Logger, fallback: str) -> T | None:
    """``build(hyperscan)``, or ``None`` when hyperscan is missing or cannot be used here
    (a CPU it does not support, say); then ``fallback`` says, once in ``log``, what runs
    instead."""
    try:
        import hyperscan
    except ImportError:
        return None
    try:
        return build(hyperscan)
    except Exception as exc:
        log.warning("hyperscan is installed but unusable here (%s); %s", type(exc).__name__,
                    fallback)
        return None
