# SPDX-License-Identifier: GPL-2.0-or-later
"""Judgements on the model: verdicts against thresholds and between
runs, the alerts of a comparison, where a run ran, and whether it
finished."""
