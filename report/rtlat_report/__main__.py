# SPDX-License-Identifier: GPL-2.0-or-later
"""python -m rtlat_report"""
import sys

from .cli.main import main

sys.exit(main())
