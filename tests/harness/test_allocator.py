"""The allocator's threshold (`oracle.harness.allocator.bound_heap_growth`)."""

from __future__ import annotations

import ctypes
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
