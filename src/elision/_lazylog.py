"""A logger that imports :mod:`logging` only when a record is emitted (issue 24).

``logging`` (with ``traceback``, ``string`` and ``threading`` behind it) is ~3% of a hook's
start, and a small result logs nothing: the modules on the hook's path hold a :class:`LazyLogger`
in its place. Until something imports ``logging`` no handler or level was set, so the root's
``WARNING`` rules: a debug or info record is dropped unread, as ``logging`` would drop it; a
warning or worse imports ``logging`` and goes to the named logger as usual. Once ``logging`` is
loaded (an application set it up), every call goes to the real logger.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import logging

DEBUG = 10
INFO = 20
WARNING = 30


class LazyLogger:
    """``logging.getLogger(name)``, fetched on the first record that can be emitted."""

    __slots__ = ("_real", "name")

    def __init__(self, name: str) -> None:
        self.name = name
        self._real: logging.Logger | None = None

    def __repr__(self) -> str:
        return f"LazyLogger({self.name!r})"

    def logger(self) -> logging.Logger:
        """The real logger (this imports ``logging``), looked up once: ``getLogger`` takes
        the module's lock each call, and every redaction asks ``isEnabledFor``."""
        real = self._real
        if real is None:
            import logging

            real = self._real = logging.getLogger(self.name)
        return real

    def isEnabledFor(self, level: int) -> bool:
        if "logging" not in sys.modules:
            return level >= WARNING
        return self.logger().isEnabledFor(level)

    def log(self, level: int, msg: str, *args: Any, **kwargs: Any) -> None:
        if self.isEnabledFor(level):
            kwargs.setdefault("stacklevel", 2)
            self.logger().log(level, msg, *args, **kwargs)

    def debug(self, msg: str, *args: Any, **kwargs: Any) -> None:
        if self.isEnabledFor(DEBUG):
            kwargs.setdefault("stacklevel", 2)
            self.logger().debug(msg, *args, **kwargs)

    def info(self, msg: str, *args: Any, **kwargs: Any) -> None:
        if self.isEnabledFor(INFO):
            kwargs.setdefault("stacklevel", 2)
            self.logger().info(msg, *args, **kwargs)

    def warning(self, msg: str, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("stacklevel", 2)
        self.logger().warning(msg, *args, **kwargs)

    def error(self, msg: str, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("stacklevel", 2)
        self.logger().error(msg, *args, **kwargs)

    def exception(self, msg: str, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("stacklevel", 2)
        self.logger().exception(msg, *args, **kwargs)


def get_logger(name: str) -> LazyLogger:
    """A stand-in for ``logging.getLogger(name)`` that imports ``logging`` when it must."""
    return LazyLogger(name)


__all__ = ["DEBUG", "INFO", "WARNING", "LazyLogger", "get_logger"]
