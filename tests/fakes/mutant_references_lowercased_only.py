#!/usr/bin/env python3
"""Fake implementation: where the request folds case, folds the references only (the hypothesis keeps its case)."""
from fakebleu import serve

serve("references-lowercased-only")
