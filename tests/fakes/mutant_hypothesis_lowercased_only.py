#!/usr/bin/env python3
"""Fake implementation: where the request folds case, folds the hypothesis only (the references keep theirs)."""
from fakebleu import serve

serve("hypothesis-lowercased-only")
