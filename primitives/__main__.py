"""``python -m primitives``: the tour (see :mod:`primitives.tour`)."""

import sys

from .tour import main

if __name__ == "__main__":
    sys.exit(main())
