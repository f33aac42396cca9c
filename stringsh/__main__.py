import sys

from stringsh.cli import main

sys.exit(main())
