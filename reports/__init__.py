"""Balance reports: read run directories (:mod:`reports.load`), aggregate them
(:mod:`reports.stats`), draw charts (:mod:`reports.charts`) and write one self-contained HTML
file (:func:`reports.html.build_report`)."""

from .html import build_report
from .load import Run, load_run

__all__ = ["Run", "build_report", "load_run"]
