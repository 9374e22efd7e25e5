"""The report's page shell and stylesheet (inline: the report is one self-contained file)."""

from __future__ import annotations

CSS = """
:root { --ink:#22262d; --muted:#5f6670; --line:#e2e5ea; --bg:#f5f6f8; --card:#fff; --accent:#3b6fb6;
        --warn-bg:#fff4e5; --warn-line:#f0a040; --bad:#b3261e; --good:#2e7d32; }
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin:0; background:var(--bg); color:var(--ink);
       font: 15px/1.5 -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "DejaVu Sans", sans-serif; }
main { max-width: 1180px; margin: 0 auto; padding: 28px 28px 60px; }
header.top { background: linear-gradient(120deg, #22324d, #3b6fb6); color:#fff; padding: 26px 0 22px; }
header.top .inner { max-width:1180px; margin:0 auto; padding: 0 28px; }
header.top h1 { margin:0 0 4px; font-size: 27px; font-weight: 650; letter-spacing: -0.01em; }
header.top .sub { opacity: .85; font-size: 14px; }
nav.toc { margin: 18px 0 6px; font-size: 14px; }
nav.toc a { display:inline-block; margin: 0 6px 6px 0; padding: 3px 10px; border-radius: 14px;
            background:#fff; border:1px solid var(--line); color: var(--accent); text-decoration:none; }
nav.toc a:hover { border-color: var(--accent); }
section.run, section.block { background: var(--card); border:1px solid var(--line); border-radius: 10px;
            padding: 22px 26px 10px; margin: 22px 0; box-shadow: 0 1px 2px rgba(20,30,50,.04); }
h2 { font-size: 22px; margin: 0 0 2px; letter-spacing: -0.01em; }
h2 .game { color: var(--muted); font-weight: 400; font-size: 16px; margin-left: 8px; }
h3 { font-size: 17px; margin: 28px 0 8px; padding-top: 14px; border-top: 1px solid var(--line); }
h4 { font-size: 15px; margin: 18px 0 6px; }
p { margin: 6px 0 10px; }
.muted { color: var(--muted); }
.badge { display:inline-block; font-size: 12px; font-weight:600; padding: 1px 9px; border-radius: 10px;
         vertical-align: middle; margin-left: 8px; }
.badge.ok { background:#e6f4ea; color: var(--good); }
.badge.warn { background:#fde7e4; color: var(--bad); }
.badge.info { background:#e8eef8; color: var(--accent); }
.warning { background: var(--warn-bg); border-left: 4px solid var(--warn-line); padding: 10px 14px;
           border-radius: 6px; margin: 12px 0; }
.warning strong { color: #9a4f00; }
.facts { display:grid; grid-auto-flow: dense; grid-template-columns: repeat(auto-fill, minmax(205px, 1fr)); gap: 8px 18px;
         margin: 14px 0 6px; }
.fact { border-left: 3px solid var(--line); padding: 2px 0 2px 10px; }
.fact.wide { grid-column: span 2; }
.fact .k { font-size: 12px; text-transform: uppercase; letter-spacing: .05em; color: var(--muted); }
.fact .v { font-size: 15px; font-weight: 550; overflow-wrap: anywhere; }
.findings { background: #f3f7fd; border: 1px solid #d7e3f4; border-radius: 8px; padding: 10px 16px 8px 16px;
            margin: 14px 0; }
.findings h4 { margin: 2px 0 6px; }
.findings ul { margin: 0; padding-left: 20px; }
.findings li { margin: 3px 0; }
.warnmark { color: var(--bad); font-weight: 600; }
table { border-collapse: collapse; margin: 8px 0 14px; font-size: 13.5px; min-width: 40%; }
th, td { padding: 5px 11px; border-bottom: 1px solid var(--line); text-align: left; white-space: nowrap; }
th { background: #f0f2f5; font-weight: 600; font-size: 12.5px; color: #3c434d; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
tbody tr:nth-child(even) td { background: #fafbfc; }
tr.group td { border-top: 2px solid #d5d9df; }
.tablewrap { overflow-x: auto; }
figure { margin: 10px 0 6px; }
figure img { max-width: 100%; height: auto; display:block; }
figcaption, .how { font-size: 13.5px; color: var(--muted); margin: 4px 0 12px; }
.how::before { content: "How to read: "; font-weight: 600; color: #4a515b; }
.sig { color: var(--bad); font-weight: 600; }
.nsig { color: var(--muted); }
.pos { color: var(--good); }
.neg { color: var(--bad); }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12.5px;
       background: #f0f2f5; padding: 1px 5px; border-radius: 4px; overflow-wrap: anywhere; }
details { margin: 6px 0 12px; }
details summary { cursor: pointer; color: var(--accent); font-size: 14px; }
ul.notes { margin: 6px 0 10px; padding-left: 20px; }
footer { color: var(--muted); font-size: 12.5px; text-align: center; margin-top: 30px; }
@media print { body { background: #fff; } section.run, section.block { box-shadow:none; break-inside: auto; } }
"""


def page(title: str, subtitle: str, toc: str, body: str, footer: str) -> str:
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{title}</title>\n<style>{CSS}</style>\n</head>\n<body>\n"
        f'<header class="top"><div class="inner"><h1>{title}</h1><div class="sub">{subtitle}</div>'
        "</div></header>\n"
        f"<main>\n{toc}\n{body}\n<footer>{footer}</footer>\n</main>\n</body>\n</html>\n"
    )
