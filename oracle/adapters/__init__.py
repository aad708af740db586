"""Built-in implementations behind `serve --impl NAME`: thin translations of protocol v1
to a library's API and back. See `base.py` for the interface."""
