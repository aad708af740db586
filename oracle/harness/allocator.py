"""The C allocator's heap kept from growing with a long run (`bound_heap_growth`), and the objects a process has
once it has started kept out of the cyclic collector's way while it runs (`start_up_objects_frozen`).

glibc raises its mmap threshold each time a large block served by mmap is freed; later large blocks (a
65,600-token input's lists, a 2,000-segment corpus's request) then come from the heap, whose top it cannot give
back while smaller objects sit above them, so `check`'s peak memory grew with the number of examples though
nothing was kept (benchmarks/README.md, "`check --jobs 2` by wall clock, and `check`'s memory": a third of the
growth to 5,000 examples). A fixed threshold keeps every block over it in its own mapping, returned when freed.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import os
import sys
from collections.abc import Iterator

#: mallopt's parameter number for the mmap threshold (glibc's malloc.h: M_MMAP_THRESHOLD).
M_MMAP_THRESHOLD = -3
#: glibc's own default before it adjusts it (128 KiB): blocks at least this large are mapped on their own.
THRESHOLD_BYTES = 128 * 1024
#: glibc's variable for the same setting: a user who sets it chose their own, and it is left alone.
USER_SETTING = "MALLOC_MMAP_THRESHOLD_"


def bound_heap_growth() -> bool:
    """Fix glibc's mmap threshold at its default (setting it turns its dynamic adjustment off); whether it was set.

    Only on Linux with a C library that has `mallopt` and accepts the setting, and only where the user has not set
    MALLOC_MMAP_THRESHOLD_ themselves; anywhere else nothing changes (it is a saving, never a requirement)."""
    if not sys.platform.startswith("linux") or USER_SETTING in os.environ:
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    return mallopt(M_MMAP_THRESHOLD, THRESHOLD_BYTES) == 1  # mallopt returns 1 on success


@contextlib.contextmanager
def start_up_objects_frozen() -> Iterator[None]:
    """Within: every object alive on entry (the modules a `check` process or a `--jobs` worker imported, their
    classes, functions and tables: about 35,000 to 45,000 objects) is left out of the cyclic collector's
    generations (`gc.freeze`); on exit they are put back (`gc.unfreeze`), so that a process that goes on (a test
    calling the command) collects them as before. They live as long as the run, and each full collection of the
    run traversed them all again: in a 1000-example `check --jobs 2`, the collector's CPU over the parent and its
    two workers fell from about 0.24 s to 0.14-0.16 s (benchmarks/README.md, "What `check`'s processes import and
    collect"). Nothing is freed later than before but a reference cycle among those objects, which the run does
    not make."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


__all__ = ["bound_heap_growth", "start_up_objects_frozen"]
