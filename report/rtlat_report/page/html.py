# SPDX-License-Identifier: GPL-2.0-or-later
"""The document as one self-contained HTML page: styles inline, every
figure an SVG data URI, no script, nothing fetched."""
import base64
from html import escape

from .document import Alert, Figure, Note, Table

CSS = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 0 auto; max-width: 1100px;
       padding: 0 16px 40px; color: #222; }
h1 { margin-bottom: 0; } .meta { color: #666; margin-top: 2px; }
nav { margin: 12px 0; } nav a { margin-right: 12px; }
h2 { border-bottom: 2px solid #ddd; margin-top: 36px; }
table { border-collapse: collapse; margin: 8px 0 16px; font-size: 12.5px; }
caption { text-align: left; font-weight: 600; padding: 4px 0; }
th, td { border: 1px solid #ddd; padding: 3px 7px; vertical-align: top; }
th { background: #f3f3f3; } td.n { text-align: right;
  font-variant-numeric: tabular-nums; white-space: nowrap; }
tr.differs td { background: #fff7d6; } tr.warn td { background: #fde2e1; }
tr.ratio td { color: #555; font-style: italic; background: #f7f9fc; }
tr.total td { font-weight: 600; }
td { max-width: 520px; overflow-wrap: anywhere; }
.note, .warn { padding: 6px 10px; margin: 6px 0; border-radius: 4px; }
.note { background: #eef4fb; } .warn { background: #fde2e1; }
.warn::before { content: "warning: "; font-weight: 700; }
.figs { display: grid; grid-template-columns: 1fr 1fr; gap: 10px; }
figure.wide { grid-column: 1 / -1; }
figure { margin: 6px 0 12px; } figure img { width: 100%; height: auto;
  display: block; border: 1px solid #eee; }
figcaption { color: #555; font-size: 12px; }
details summary { cursor: pointer; color: #555; }
h3 { margin-top: 28px; color: #333; }
td.v-ok { color: #1e7b34; font-weight: 600; }
td.v-latency { background: #fff2cc; color: #7a5200; font-weight: 600; }
td.v-prevents { background: #fde2e1; color: #a61b1b; font-weight: 700; }
tr td.v-regression { background: #fde2e1; color: #a61b1b; font-weight: 700; }
tr td.v-improvement { background: #e3f4e6; color: #1e6b2e; }
tr td.v-noise { color: #555; } tr td.v-few { color: #999; }
tr td.v-regression, tr td.v-improvement, tr td.v-noise, tr td.v-few {
  white-space: normal; overflow-wrap: normal; font-style: normal;
  font-size: 11.5px; }
.alert { border: 2px solid #c62828; background: #fde2e1; border-radius: 4px;
  padding: 6px 12px; margin: 10px 0; }
.alert strong { display: block; margin: 2px 0 4px; font-size: 15px;
  color: #a61b1b; }
.alert ul { margin: 0; padding-left: 20px; }
.alert.fail strong { font-size: 19px; }
.alert.pass { border-color: #2e7d32; background: #e6f4e7; }
.alert.pass strong { color: #1b5e20; font-size: 19px; }
.alert.none { border-color: #777; background: #f2f2f2; }
.alert.none strong { color: #333; font-size: 17px; }
.verdicts { border: 1px solid #bbb; padding: 6px 12px; margin: 10px 0;
  border-radius: 4px; }
@media print { * { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  .alert { border-style: double; border-width: 4px; } }
"""


def render(doc):
    body = [f"<h1>{escape(doc.title)}</h1>",
            f'<p class="meta">generated {escape(doc.generated)} by '
            "rtlat-report</p>", nav(doc)]
    for s in doc.sections:
        body.append(f'<section id="{escape(s.id)}">'
                    f"<h{s.level}>{escape(s.title)}</h{s.level}>")
        body += blocks(s.blocks)
        body.append("</section>")
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{escape(doc.title)}</title>"
            '<meta name="viewport" content="width=device-width">'
            f"<style>{CSS}</style></head><body>\n" + "\n".join(body) +
            "\n</body></html>\n")


def nav(doc):
    links = [f'<a href="#{escape(s.id)}">{escape(s.title)}</a>'
             for s in doc.sections]
    return "<nav>" + "".join(links) + "</nav>"


def blocks(bs):
    """Consecutive figures share a grid, two to a row (wide ones span)."""
    out, figs = [], []
    for b in bs + [None]:
        if isinstance(b, Figure):
            figs.append(figure(b))
            continue
        if figs:
            out.append('<div class="figs">' + "".join(figs) + "</div>")
            figs = []
        if b is not None:
            out.append(block(b))
    return out


def block(b):
    if isinstance(b, Table):
        return table(b)
    if isinstance(b, Figure):
        return figure(b)
    if isinstance(b, Note):
        return f'<div class="{b.level}">{escape(b.text)}</div>'
    if isinstance(b, Alert):
        return alert(b)
    raise TypeError(b)


def alert(a):
    items = "".join(f"<li>{escape(x)}</li>" for x in a.items)
    aid = f' id="{escape(a.id)}"' if a.id else ""
    cls = f"alert {a.level}" if a.level else "alert"
    word = f"{escape(a.word)}: " if a.word else ""
    return (f'<div class="{cls}" role="alert"{aid}><strong>{word}'
            f"{escape(a.title)}</strong><ul>{items}</ul></div>")


def figure(f):
    data = base64.b64encode(f.svg.encode("utf-8")).decode("ascii")
    wide = ' class="wide"' if f.wide else ""
    return (f'<figure id="fig-{escape(f.id)}"{wide}><img alt="{escape(f.title)}" '
            f'src="data:image/svg+xml;base64,{data}">'
            f"<figcaption>{escape(f.title)}</figcaption></figure>")


def td_class(t, i, j):
    names = ["n"] if j >= t.numeric_from else []
    if i < len(t.cell_class) and j < len(t.cell_class[i]) and \
            t.cell_class[i][j]:
        names.append(t.cell_class[i][j])
    return f' class="{" ".join(names)}"' if names else ""


def table(t):
    head = "".join(f"<th>{escape(h)}</th>" for h in t.header)
    rows = []
    for i, row in enumerate(t.rows):
        cls = t.row_class[i] if i < len(t.row_class) else ""
        tds = "".join(f"<td{td_class(t, i, j)}>{escape(c)}</td>"
                      for j, c in enumerate(row))
        rows.append(f'<tr class="{cls}">{tds}</tr>' if cls else
                    f"<tr>{tds}</tr>")
    html = (f"<table><caption>{escape(t.caption)}</caption>"
            f"<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}"
            "</tbody></table>")
    if t.collapsed:
        return f"<details><summary>{escape(t.caption)}</summary>{html}</details>"
    return html
