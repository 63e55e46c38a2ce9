"""Presentation: records (flat rows) rendered as a terminal table, JSON, CSV or Markdown,
the reading form of the frequency tables, and the coach's self-contained HTML pages
(:mod:`~bazarsim.report.pages`, figures in :mod:`~bazarsim.report.figures`, checked in
headless Chromium by :mod:`~bazarsim.report.browser`) built from the same records."""
