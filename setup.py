"""The one compiled part of bleu-oracle, optional: the counting kernel (oracle/_counting.c, used by
oracle/counting.py). `optional=True`: where no C compiler is present, or the build fails, setuptools warns and
installs the rest; the pure-Python counting is then used. Everything else is in pyproject.toml."""

from setuptools import Extension, setup

setup(ext_modules=[Extension("oracle._counting", ["oracle/_counting.c"], optional=True)])
