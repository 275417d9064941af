# SPDX-License-Identifier: GPL-2.0-or-later
"""The report as a format-free document: sections of tables, figures and
notes. build.py fills it, html.py and markdown.py write it, so the two
formats always say the same thing."""
from dataclasses import dataclass, field
from typing import List, Optional


@dataclass
class Table:
    caption: str
    header: List[str]
    rows: List[List[str]]
    row_class: List[str] = field(default_factory=list)  # "", differs, warn
    collapsed: bool = False     # HTML: folded; markdown: left out
    numeric_from: int = 1       # columns from here are right-aligned
    cell_class: List[List[str]] = field(default_factory=list)  # v-ok ...


@dataclass
class Figure:
    id: str
    title: str
    fig: object                  # a matplotlib Figure until rendered
    wide: bool = False           # spans the page instead of half of it
    svg: str = ""
    png_path: Optional[str] = None


@dataclass
class Note:
    text: str
    level: str = "note"          # note or warn


@dataclass
class Alert:
    """A boxed list the Overview puts before everything else: a title and
    one line per finding."""
    title: str
    items: List[str]
    id: str = ""
    word: str = "warning"       # what the title starts with
    level: str = ""             # "", fail, pass: its colours (HTML)


@dataclass
class Section:
    id: str
    title: str
    blocks: list = field(default_factory=list)
    level: int = 2
    # What the section judged (the gate's verdict): the page's verdict
    # box lists it (build.with_section)
    judged: list = field(default_factory=list)


@dataclass
class Document:
    title: str
    generated: str
    sections: List[Section] = field(default_factory=list)
    runs: list = field(default_factory=list)    # what it was made of

    def figures(self):
        return [b for s in self.sections for b in s.blocks
                if isinstance(b, Figure)]
