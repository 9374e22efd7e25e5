"""Analysis: pure functions over result frames (win rates, seat model, SPRT, ladder findings, option values).

The layer between the strategies and the reports: it reads run directories and computes; it draws and writes
nothing (see ``docs/architecture.md``).
"""
