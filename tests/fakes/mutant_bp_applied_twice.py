#!/usr/bin/env python3
"""Fake implementation: the brevity penalty squared when c < r, e^(2 (1 - r/c)): the brevity penalty applied twice.

Until the score stage had `brevity-penalty-applied-twice` this was a control that no explanation named
(`mutant_unnamed_bp_squared`); `mutant_unnamed_score_power` and `mutant_unnamed_trigram_scaled` stay unnamed."""
from fakebleu import serve

serve("bp-squared-when-short")
