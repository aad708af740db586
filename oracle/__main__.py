import sys

from oracle.cli import main

if __name__ == "__main__":  # `python -m oracle`; importing the module (doctest collection) runs nothing
    sys.exit(main())
