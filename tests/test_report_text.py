"""The visible text of the reports stays what it was: every number, heading and sentence of reports on the
synthetic runs of test_reports.py, against the text recorded in tests/data/report_text.json.

The record was made by the report code before it moved onto Jinja2 templates (reports/html.py, string
building), on the same synthetic runs; markup and whitespace may change, the text may not. After an intended
change of a report's wording or numbers, record again: ``python tests/test_report_text.py --write``.
"""

from __future__ import annotations

import difflib
import json
import re
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from test_reports import make_run

from meeplab.reports import build_report

RECORD = Path(__file__).parent / "data" / "report_text.json"

#: report name -> the runs it covers (keys of :func:`synth_runs`)
CASES = {
    "single": ["base"],
    "interrupted": ["interrupted"],
    "paired_sweep": ["base", "variant"],
    "unpaired": ["base", "other_seed"],
}

BLOCK = {
    *("p", "div", "li", "ul", "tr", "td", "th", "h1", "h2", "h3", "h4", "br", "section", "table", "figure"),
    *("figcaption", "summary", "details", "nav", "a", "footer", "header", "thead", "tbody", "main"),
}


class _Text(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skip = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self.skip += 1
        if tag == "img":
            self.parts.append(f"\n[image: {dict(attrs).get('alt')}]\n")
        if tag in BLOCK:
            self.parts.append("\n")

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self.skip -= 1
        if tag in BLOCK:
            self.parts.append("\n")

    def handle_data(self, data):
        if not self.skip:
            self.parts.append(data)


def visible_text(doc: str, root: str) -> list[str]:
    """The report's text, one line per block (cell, paragraph, heading, list item, image), whitespace
    normalised; the runs' directory reads ``<runs>`` and the time of generation ``<time>``."""
    p = _Text()
    p.feed(doc)
    raw = "".join(p.parts).replace(root, "<runs>")
    raw = re.sub(r"generated \d{4}-\d\d-\d\d \d\d:\d\d", "generated <time>", raw)
    lines = (re.sub(r"\s+", " ", line).strip() for line in raw.split("\n"))
    return [line for line in lines if line]


def synth_runs(root: Path) -> dict[str, Path]:
    return {
        "base": make_run(root / "base", label="base rules"),
        "variant": make_run(root / "variant", bonus=5, label="bonus 5"),
        "other_seed": make_run(root / "seed2", seed=2, bonus=5),
        "interrupted": make_run(root / "intr", status="interrupted", chunks=3, games=300, games_done=120, players=(3,)),
    }


def report_texts(root: Path, out: Path) -> dict[str, list[str]]:
    runs = synth_runs(root)
    return {
        name: visible_text(build_report([runs[k] for k in keys], out / f"{name}.html").read_text(), str(root))
        for name, keys in CASES.items()
    }


@pytest.fixture(scope="module")
def texts(tmp_path_factory):
    return report_texts(tmp_path_factory.mktemp("runs"), tmp_path_factory.mktemp("reports"))


@pytest.mark.parametrize("name", sorted(CASES))
def test_report_text_unchanged(texts, name):
    want = json.loads(RECORD.read_text(encoding="utf-8"))[name]
    got = texts[name]
    diff = "\n".join(difflib.unified_diff(want, got, "recorded", "now", lineterm="", n=1))
    assert got == want, f"the visible text of the {name!r} report changed:\n{diff[:6000]}"
    assert sum(line.startswith("[image: ") for line in got) == sum(line.startswith("[image: ") for line in want)


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        rec = report_texts(Path(d) / "runs", Path(d) / "reports")
    RECORD.write_text(json.dumps(rec, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"recorded {RECORD}")
