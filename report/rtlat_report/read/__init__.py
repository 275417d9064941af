# SPDX-License-Identifier: GPL-2.0-or-later
"""Readers: every input format into the typed model (model.py). rtlat's
JSON of every subcommand with its long-run keys, the foreign formats
(rt-tests, rtla, jitterdebugger), the schema and the checks of every
value. Nothing past this package sees a raw JSON dict."""
