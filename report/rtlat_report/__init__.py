# SPDX-License-Identifier: GPL-2.0-or-later
"""rtlat-report: pictures and comparisons of rtlat results."""
__version__ = "0.1.0"
