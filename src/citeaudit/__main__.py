import sys

from citeaudit.cli import main

sys.exit(main())
