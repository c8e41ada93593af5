"""Human-readable reports (text tables) and plots."""

from goeval.report.text import format_diagnostics, format_summary

__all__ = ["format_summary", "format_diagnostics"]
