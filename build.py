"""Build the lessons in content/ into dist/: `python build.py --help`."""

import sys

from deck.cli import main

if __name__ == "__main__":
    sys.exit(main())
