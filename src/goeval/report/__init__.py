"""Human-readable reports: text tables, figures, a self-contained HTML page.

* :mod:`goeval.report.text` - terminal tables and the diagnostics in words;
* :mod:`goeval.report.plots` - matplotlib figures (Clark & Radivojac 2013
  Fig. 3 and Fig. 4, coverage, optima with bootstrap intervals, TAP vs
  cutoff), returned as Figures; needs ``goeval[plot]``;
* :mod:`goeval.report.html` - the HTML page and the Markdown summary, both
  rendered from the sections of :mod:`goeval.report.outline` (headline
  matrix first, each section with its figures), whose tables
  :mod:`goeval.report.tables` writes as text and whose paired comparison
  :mod:`goeval.report.comparison` computes from ``protein_stats.npz``;
* :mod:`goeval.report.style` - their shared look: method colours, the Fig. 4
  panels, measure labels and directions;
* :func:`save_plots`, :func:`save_report` - both, rendered and written for
  a results directory.

matplotlib is imported only when a figure is drawn.
"""

from goeval.report.save import render_figures, save_plots, save_report
from goeval.report.text import format_diagnostics, format_summary

__all__ = ["format_summary", "format_diagnostics", "render_figures", "save_plots", "save_report"]
