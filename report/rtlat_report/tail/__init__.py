# SPDX-License-Identifier: GPL-2.0-or-later
"""How bad will it get: spike rates, the tail fit and its return
levels, how long to run (plan), and the gate between two runs."""
