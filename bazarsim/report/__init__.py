"""Presentation: records (flat rows) rendered as a terminal table, JSON, CSV or Markdown,
and the reading form of the frequency tables. The CLI prints these; HTML reports will
build on the same records."""
