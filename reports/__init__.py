"""Balance reports: render what :mod:`meeplab.analysis` computes as one self-contained HTML file
(:func:`reports.build.build_report`): section builders return plain data (:mod:`reports.runs`,
:mod:`reports.compare`, ...), Jinja2 templates in ``templates/`` render it, charts come from
:mod:`reports.charts`."""

from .build import build_report

__all__ = ["build_report"]
