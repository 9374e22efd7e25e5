"""Balance reports: render what :mod:`meeplab.analysis` computes as one self-contained HTML file
(:func:`reports.build.build_report`): section builders (:mod:`reports.runs`, :mod:`reports.compare`, ...) fill the
view models of :mod:`reports.views`, Jinja2 templates in ``templates/`` render them, charts come from
:mod:`reports.charts`."""

from .build import build_report

__all__ = ["build_report"]
