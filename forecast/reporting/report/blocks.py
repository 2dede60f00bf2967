"""The blocks a report is made of, rendered as HTML and as Markdown.

A report is a list of blocks (:class:`Heading`, :class:`Paragraph`, :class:`Table`,
:class:`Image`) rendered twice (:meth:`Report.html`, :meth:`Report.markdown`). Every key
number of a table is a :class:`Cell` with a key and its full-precision value: the HTML carries
them as ``data-key`` and ``data-value`` attributes and :attr:`Report.numbers` holds the same
values, so the numbers can be checked against the API. The HTML has no scripts and no
external resources. :class:`ReportBuilder` collects blocks and numbers while sections are
laid out.
"""

from __future__ import annotations

import base64
import html
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from forecast.core.errors import ForecastError
from forecast.core.presentation import format_number


@dataclass(frozen=True)
class Cell:
    """A table cell; a numeric one carries its key and full-precision value."""

    text: str
    key: str | None = None
    value: float | None = None


@dataclass(frozen=True)
class Heading:
    """A heading: level 1 is the title, level 2 a section (listed in the HTML's navigation)."""

    level: int
    text: str


@dataclass(frozen=True)
class Paragraph:
    """A paragraph of plain text."""

    text: str


@dataclass(frozen=True)
class Table:
    """A table with a header row and an optional caption."""

    columns: list[str]
    rows: list[list[Cell]]
    caption: str = ""


@dataclass(frozen=True)
class Image:
    """A PNG image: its file name (for the Markdown), alternative text and bytes."""

    name: str
    alt: str
    png: bytes


Block = Heading | Paragraph | Table | Image


@dataclass
class Report:
    """A built report: its blocks, the numbers it shows and how long each part took."""

    scenario: str
    blocks: list[Block]
    numbers: dict[str, float] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def images(self) -> dict[str, bytes]:
        """PNG bytes by file name."""
        return {b.name: b.png for b in self.blocks if isinstance(b, Image)}

    @property
    def stem(self) -> str:
        """File name stem of the written report, ``report_<scenario>``."""
        return f"report_{self.scenario}"

    def html(self) -> str:
        """One self-contained HTML page (images as base64 data URIs, inline CSS, no JS)."""
        title = next((b.text for b in self.blocks if isinstance(b, Heading)), self.stem)
        sections = [b.text for b in self.blocks if isinstance(b, Heading) and b.level == 2]
        nav = ("<nav><ul>" + "".join(f'<li><a href="#{_anchor(text)}">{html.escape(text)}'
                                     "</a></li>" for text in sections) + "</ul></nav>")
        body = []
        for block in self.blocks:
            if isinstance(block, Heading):
                body.append(f'<h{block.level} id="{_anchor(block.text)}">'
                            f"{html.escape(block.text)}</h{block.level}>")
                if block.level == 1 and sections:
                    body.append(nav)
            elif isinstance(block, Paragraph):
                body.append(f"<p>{html.escape(block.text)}</p>")
            elif isinstance(block, Table):
                body.append(_table_html(block))
            else:
                data = base64.b64encode(block.png).decode("ascii")
                body.append(f'<figure><img src="data:image/png;base64,{data}" '
                            f'alt="{html.escape(block.alt)}" data-name="{block.name}">'
                            f"<figcaption>{html.escape(block.alt)}</figcaption></figure>")
        return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                f"<title>{html.escape(title)}</title>\n<style>{_CSS}</style>\n</head>\n"
                "<body>\n<main>\n" + "\n".join(body) + "\n</main>\n</body>\n</html>\n")

    def markdown(self, image_dir: str = "") -> str:
        """The same report as Markdown; images are referenced as ``image_dir/name``."""
        lines: list[str] = []
        for block in self.blocks:
            if isinstance(block, Heading):
                lines += ["#" * block.level + " " + block.text, ""]
            elif isinstance(block, Paragraph):
                lines += [block.text, ""]
            elif isinstance(block, Table):
                lines += _table_markdown(block) + [""]
            else:
                path = f"{image_dir}/{block.name}" if image_dir else block.name
                lines += [f"![{block.alt}]({path})", ""]
        return "\n".join(lines)

    def write(self, out_dir: str | Path) -> list[Path]:
        """Write ``report_<scenario>.html``, ``.md`` and the Markdown's PNG files.

        Raises
        ------
        ForecastError
            If the directory cannot be created or written.
        """
        directory = Path(out_dir)
        images = directory / f"{self.stem}_images"
        try:
            images.mkdir(parents=True, exist_ok=True)
            written = []
            for name, png in self.images.items():
                (images / name).write_bytes(png)
                written.append(images / name)
            page = directory / f"{self.stem}.html"
            page.write_text(self.html(), encoding="utf-8")
            text = directory / f"{self.stem}.md"
            text.write_text(self.markdown(images.name), encoding="utf-8")
        except OSError as exc:
            raise ForecastError(f"cannot write the report to {directory}: "
                                f"{exc.strerror or exc}") from None
        return [page, text, *written]


def _anchor(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


_CSS = """
body { font-family: system-ui, -apple-system, 'Segoe UI', sans-serif; color: #1d1d1f;
       background: #fff; margin: 0; }
main { max-width: 1100px; margin: 0 auto; padding: 1.5rem 2rem 4rem; }
h1 { font-size: 1.7rem; } h2 { margin-top: 2.2rem; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; margin: 0.8rem 0 1.4rem; font-size: 0.85rem; }
caption { text-align: left; font-weight: 600; padding: 0.3rem 0; }
th, td { border: 1px solid #ddd; padding: 0.25rem 0.5rem; vertical-align: top; }
th { background: #f4f4f6; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.text { max-width: 38rem; }
figure { margin: 1rem 0; } figure img { max-width: 100%; height: auto; }
figcaption { font-size: 0.8rem; color: #555; }
nav ul { display: flex; flex-wrap: wrap; gap: 0.4rem 1.2rem; list-style: none; padding: 0; }
nav a { color: #0b57d0; text-decoration: none; }
"""


def _table_html(table: Table) -> str:
    head = "".join(f"<th>{html.escape(c)}</th>" for c in table.columns)
    rows = []
    for row in table.rows:
        cells = []
        for cell in row:
            if cell.key is not None:
                cells.append(f'<td class="num" data-key="{html.escape(cell.key)}" '
                             f'data-value="{cell.value!r}">{html.escape(cell.text)}</td>')
            else:
                cells.append(f'<td class="text">{html.escape(cell.text)}</td>')
        rows.append("<tr>" + "".join(cells) + "</tr>")
    caption = f"<caption>{html.escape(table.caption)}</caption>" if table.caption else ""
    return (f"<table>{caption}<thead><tr>{head}</tr></thead><tbody>"
            + "".join(rows) + "</tbody></table>")


def _md_escape(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _table_markdown(table: Table) -> list[str]:
    lines = [f"*{table.caption}*", ""] if table.caption else []
    lines.append("| " + " | ".join(_md_escape(c) for c in table.columns) + " |")
    lines.append("|" + "|".join("---:" if any(r[i].key for r in table.rows) else "---"
                                for i in range(len(table.columns))) + "|")
    for row in table.rows:
        lines.append("| " + " | ".join(_md_escape(cell.text) for cell in row) + " |")
    return lines


class ReportBuilder:
    """Collects blocks and the numbers shown."""

    def __init__(self) -> None:
        self.blocks: list[Block] = []
        self.numbers: dict[str, float] = {}

    def heading(self, level: int, text: str) -> None:
        """Append a heading (level 1 is the title, 2 a section)."""
        self.blocks.append(Heading(level, text))

    def paragraph(self, text: str) -> None:
        """Append a paragraph."""
        self.blocks.append(Paragraph(text))

    def number(self, key: str, value: float, unit: str = "") -> Cell:
        """A numeric cell, formatted by unit, its value recorded under ``key``.

        Raises
        ------
        AssertionError
            If ``key`` was already shown with another value.
        """
        value = float(value)
        if key in self.numbers and not (self.numbers[key] == value
                                        or (np.isnan(value) and np.isnan(self.numbers[key]))):
            raise AssertionError(f"report key {key} shown with two values")
        self.numbers[key] = value
        return Cell(format_number(value, unit), key, value)

    def table(self, columns: list[str], rows: list[list[Cell | str]], caption: str = "") -> None:
        """Append a table; plain strings become text cells."""
        cells = [[c if isinstance(c, Cell) else Cell(str(c)) for c in row] for row in rows]
        self.blocks.append(Table(columns, cells, caption))

    def image(self, name: str, alt: str, figure: tuple[Any, Any]) -> None:
        """Append a Matplotlib ``(fig, ax)`` as a PNG image."""
        from forecast.reporting.plots import png_bytes

        self.blocks.append(Image(name, alt, png_bytes(figure[0])))
