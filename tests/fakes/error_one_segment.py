#!/usr/bin/env python3
"""Fake implementation: answers error (TypeError) on any request of exactly one segment, as an in-graph metric that
squeezes every axis of size 1 loses the batch axis of a batch of one and iterates token ids as segments
(tensor2tensor's `tf.squeeze(outputs)` before compute_bleu, fixed by squeezing only `axis=[-1, -2]`); right on every
request of two segments or more, and at sentence level never right (a sentence request has one segment)."""
from fakebleu import serve

serve("error-one-segment")
