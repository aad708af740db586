"""Clipped n-gram matches per order, by a compiled kernel where one was built, else by the literal counting.

The kernel (`oracle/_counting.c`, built by `bash scripts/setup` where a C compiler is present, optional: its
absence fails nothing) counts each order's n-grams in a hash table of positions, with no Python object per
n-gram. The literal counting, `bleu.clipped_matches` over `bleu.count` (`oracle.formulas`), stays the reference:
tests/doctor/test_counting_kernel.py holds the two equal on every segment the search's strategies draw, and
tests/diagnose/test_expect_kernel.py the oracle's expectation with and without it on the search's own inputs under
every profile. Its callers: `doctor`'s stream table, `score`, and the oracle's expectation
(`oracle.diagnose.expect.oracle_result`), the last two by passing `kernel_clipped_matches()` to the formulas as
`count_matches` (the formulas, pure stdlib, never import it). Setting the environment variable
`BLEU_ORACLE_KERNEL=0` turns the kernel off (every caller then counts in Python).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from types import ModuleType

from oracle.formulas import bleu


def _load() -> ModuleType | None:
    if os.environ.get("BLEU_ORACLE_KERNEL", "1") == "0":
        return None
    try:
        from oracle import _counting  # type: ignore[attr-defined]  # compiled where setup could build it
    except ImportError:
        return None
    return _counting


_KERNEL = _load()
#: Whether the compiled kernel is in use (built, and not turned off).
KERNEL = _KERNEL is not None


def literal_clipped_matches(hypothesis: Sequence, references: Sequence[Sequence], max_order: int) -> tuple[int, ...]:
    """Count_clip summed per order (section 2.1), as the oracle's formulas count it: the reference."""
    counts = [bleu.count(reference, max_order) for reference in references]
    return tuple(bleu.clipped_matches(bleu.count(hypothesis, max_order), counts, max_order))


def kernel_clipped_matches() -> Callable[[Sequence, Sequence[Sequence], int], tuple[int, ...]] | None:
    """The compiled kernel's `clipped_matches(hypothesis, references, max_order)`, or None where it is not in use."""
    return None if _KERNEL is None else _KERNEL.clipped_matches


def clipped_matches(hypothesis: Sequence, references: Sequence[Sequence], max_order: int) -> tuple[int, ...]:
    """Count_clip summed per order: by the kernel where it is in use, else literally (the same numbers)."""
    if _KERNEL is not None:
        return _KERNEL.clipped_matches(hypothesis, references, max_order)
    return literal_clipped_matches(hypothesis, references, max_order)
