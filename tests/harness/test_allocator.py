"""The allocator's threshold (`oracle.harness.allocator.bound_heap_growth`)."""

from __future__ import annotations

import ctypes
import gc
import subprocess
import sys

import pytest

from oracle.harness import allocator


def _glibc() -> bool:
    try:
        return ctypes.CDLL(None).gnu_get_libc_version is not None
    except (OSError, AttributeError):
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux") or not _glibc(), reason="mallopt's threshold: glibc only")
def test_sets_the_threshold_on_glibc():
    # glibc's mallopt returns 1 when it accepts M_MMAP_THRESHOLD (a value up to HEAP_MAX/2), 0 otherwise
    assert allocator.bound_heap_growth() is True


def test_a_users_own_setting_is_left_alone(monkeypatch):
    monkeypatch.setenv("MALLOC_MMAP_THRESHOLD_", "65536")
    assert allocator.bound_heap_growth() is False


@pytest.mark.skipif(not sys.platform.startswith("linux") or not _glibc(), reason="mallopt's threshold: glibc only")
def test_a_freed_large_block_does_not_raise_the_threshold():
    """Without the fixed threshold, glibc raises it to the size of a freed mmapped block, and the next block of that
    size comes from the heap (sbrk: the program break moves); with it, the block is mapped again (the break stays)."""
    program = """
import ctypes, sys
libc = ctypes.CDLL(None)
libc.sbrk.restype = ctypes.c_void_p
libc.malloc.restype = ctypes.c_void_p
libc.free.argtypes = (ctypes.c_void_p,)
if sys.argv[1] == "fixed":
    from oracle.harness.allocator import bound_heap_growth
    assert bound_heap_growth()
size = 4 * 1024 * 1024
libc.free(libc.malloc(size))          # mapped (over 128 KiB); freeing it raises the dynamic threshold to 4 MiB
before = libc.sbrk(0)
block = libc.malloc(size - 4096)      # under the raised threshold: from the heap, the break moves
print(libc.sbrk(0) - before >= size // 2)
"""
    moved = {mode: subprocess.run([sys.executable, "-c", program, mode], capture_output=True, text=True,
                                  check=True).stdout.strip() for mode in ("dynamic", "fixed")}
    assert moved == {"dynamic": "True", "fixed": "False"}


def test_the_objects_alive_on_entry_are_frozen_within_and_put_back_on_exit():
    """`start_up_objects_frozen` (issue 39: the imports' objects not traversed again by each full collection of a
    run): within, the objects alive on entry are in the permanent generation; after, none is (a test process that
    calls `check` collects them as before), also when the run raises."""
    assert gc.get_freeze_count() == 0
    with allocator.start_up_objects_frozen():
        assert gc.get_freeze_count() > 1000  # (pytest and this package's modules alone hold tens of thousands)
    assert gc.get_freeze_count() == 0
    with pytest.raises(RuntimeError), allocator.start_up_objects_frozen():
        raise RuntimeError("a run that stops with an error")
    assert gc.get_freeze_count() == 0
