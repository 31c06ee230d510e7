"""glibc's allocator, told to give every block of 1 MiB or more its own mapping.

glibc serves a large block from the heap until the block is over its mmap threshold, and that
threshold grows (to 32 MiB) as large blocks are freed. A buffer of a few MB that grows on the
heap is copied at each ``realloc``, so for a moment it is held twice, and what a result freed
stays in the process. Pinned at 1 MiB, such a buffer is a mapping that ``mremap`` grows in
place and ``munmap`` hands back: one 10 MB result raised the proxy's peak by 3.9x its size,
2.6x pinned (``bench/proxy.py --peak 10``; at 100 MB the threshold was already passed).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys

#: mallopt's parameter number for the mmap threshold (malloc.h: M_MMAP_THRESHOLD).
_M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 1 << 20


def pin_mmap_threshold(size: int = MMAP_THRESHOLD) -> bool:
    """Fix glibc's mmap threshold at ``size`` bytes; ``False`` where there is no glibc (macOS,
    musl) or it refuses, and then nothing changes."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    return bool(mallopt(_M_MMAP_THRESHOLD, size))
