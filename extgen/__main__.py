"""`python -m extgen`: the same command as `extgen`."""

import sys

from extgen.cli import main

sys.exit(main())
