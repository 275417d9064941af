# SPDX-License-Identifier: GPL-2.0-or-later
"""The document as markdown for CI logs and pull-request comments: the
same tables and warnings; figures as links to the PNG files when --png
wrote them."""
import os

from .document import Alert, Figure, Note, Table


def render(doc, base_dir=None):
    out = [f"# {doc.title}", "", f"generated {doc.generated} by rtlat-report",
           ""]
    for s in doc.sections:
        out += [f"{'#' * s.level} {s.title}", ""]
        for b in s.blocks:
            out += block(b, base_dir)
    return "\n".join(out).rstrip() + "\n"


def block(b, base_dir):
    if isinstance(b, Table):
        return [] if b.collapsed else table(b)
    if isinstance(b, Note):
        prefix = "**warning:** " if b.level == "warn" else "note: "
        return [f"- {prefix}{esc(b.text)}", ""]
    if isinstance(b, Alert):
        word = f"{b.word}: " if b.word else ""
        return [f"> **{esc(word + b.title)}**", ">"] + \
            [f"> - {esc(x)}" for x in b.items] + [""]
    if isinstance(b, Figure):
        if not b.png_path:
            return []
        path = os.path.relpath(b.png_path, base_dir) if base_dir else \
            b.png_path
        return [f"![{esc(b.title)}]({path})", ""]
    raise TypeError(b)


def esc(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def table(t):
    lines = [f"**{esc(t.caption)}**", "",
             "| " + " | ".join(esc(h) or " " for h in t.header) + " |",
             "|" + "|".join("---:" if j >= t.numeric_from else "---"
                            for j in range(len(t.header))) + "|"]
    for i, row in enumerate(t.rows):
        cls = t.row_class[i] if i < len(t.row_class) else ""
        cells = [esc(c) for c in row]
        if cls in ("differs", "warn") and cells:
            cells[0] = f"**{cells[0]}**"
        marks = t.cell_class[i] if i < len(t.cell_class) else []
        cells = [f"**{c}**" if j < len(marks) and marks[j] in
                 ("v-prevents", "v-regression") else c
                 for j, c in enumerate(cells)]
        lines.append("| " + " | ".join(cells) + " |")
    return lines + [""]
