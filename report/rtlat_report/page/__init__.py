# SPDX-License-Identifier: GPL-2.0-or-later
"""The page: a document of sections, tables, notes and figures built
from the model and the judgements, drawn (matplotlib) and rendered as
HTML or markdown."""
