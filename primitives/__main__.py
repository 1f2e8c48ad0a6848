"""``python -m primitives``: the tour (see :mod:`primitives._tour`)."""

import sys

from ._tour import main

if __name__ == "__main__":
    sys.exit(main())
