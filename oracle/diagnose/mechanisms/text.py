"""Departures from a tokenizer's rules (`oracle.diagnose.textrules.DEPARTURES`): each a mechanism of its own, found
by the tokens it makes on a text request, and also tried as a computation
(`mechanisms.computations.SPECIFIC_COMPUTATIONS`)."""

from __future__ import annotations

from oracle.diagnose.textrules import DEPARTURES

from .model import COUNT_LAYERS, RECOMPUTE, SCORE, TEXT, Mechanism, Route

MECHANISMS = [Mechanism(name, TEXT, departure.description, COUNT_LAYERS | SCORE, RECOMPUTE,
                        (Route("departure", departure, departure.description),))
              for name, departure in DEPARTURES.items()]

__all__ = ["MECHANISMS"]
