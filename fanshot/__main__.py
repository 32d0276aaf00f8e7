import sys

from fanshot.cli import main

sys.exit(main())
