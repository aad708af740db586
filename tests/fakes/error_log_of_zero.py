#!/usr/bin/env python3
"""Fake implementation: answers error where it takes the logarithm of a precision of 0 (an order with n-grams none
of which matches: ValueError, math domain error) or divides by an order's 0 n-grams (ZeroDivisionError), as BLEU's
sum of w_n log p_n computed over every order with no guard does; right on every other input."""
from fakebleu import serve

serve("error-log-of-zero")
