#include "report/html/html_style.h"

namespace trainready {

// System fonts only: the page must not fetch a web font. Colours are variables so the charts'
// classes follow the scheme; the series colours are Okabe-Ito's, readable by colour-blind eyes.
const char* html_report_css() {
  return R"CSS(
:root { color-scheme: light dark;
  --bg: #ffffff; --fg: #1b1f24; --muted: #57606a; --line: #d0d7de; --panel: #f6f8fa;
  --error: #b42318; --warning: #9a6700; --info: #0969da; --ok: #1a7f37;
  --c0: #0072b2; --c1: #e69f00; --c2: #cc79a7; --c3: #009e73; --c4: #56b4e9; --c5: #d55e00;
  --ref: #57606a; --good: #1a7f37; --bad: #cf222e; }
@media (prefers-color-scheme: dark) { :root {
  --bg: #0d1117; --fg: #e6edf3; --muted: #9198a1; --line: #30363d; --panel: #161b22;
  --error: #ff7b72; --warning: #d29922; --info: #58a6ff; --ok: #3fb950;
  --c0: #56b4e9; --c1: #f0b400; --c2: #e08cc0; --c3: #2ec4a0; --c4: #9ad0f5; --c5: #ff8c42;
  --ref: #9198a1; --good: #3fb950; --bad: #ff7b72; } }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 1100px; padding: 24px 28px 48px; background: var(--bg);
  color: var(--fg); font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
h1 { font-size: 1.5em; margin: 0 0 4px; }
h2 { font-size: 1.2em; margin: 32px 0 10px; padding-bottom: 4px; border-bottom: 1px solid var(--line); }
h3 { font-size: 1em; margin: 0 0 6px; }
a { color: var(--info); }
code, .mono { font: 0.88em/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.meta { color: var(--muted); font-size: 0.9em; }
.verdict { margin: 16px 0; padding: 14px 18px; border-radius: 8px; border-left: 8px solid;
  background: var(--panel); font-size: 1.15em; font-weight: 600; white-space: pre-line; }
.verdict.ready { border-color: var(--ok); } .verdict.warnings { border-color: var(--warning); }
.verdict.incomplete { border-color: var(--info); } .verdict.not-ready { border-color: var(--error); }
.verdict .status { display: inline-block; margin-right: 10px; padding: 1px 8px; border-radius: 4px;
  color: var(--bg); font-size: 0.8em; letter-spacing: 0.04em; text-transform: uppercase; }
.ready .status { background: var(--ok); } .warnings .status { background: var(--warning); }
.incomplete .status { background: var(--info); } .not-ready .status { background: var(--error); }
.counts { display: flex; flex-wrap: wrap; gap: 10px; margin: 0; padding: 0; list-style: none; }
.counts li { padding: 6px 12px; border: 1px solid var(--line); border-radius: 6px; background: var(--panel); }
.counts b { font-size: 1.2em; margin-right: 4px; }
.finding { margin: 12px 0; padding: 12px 16px; border: 1px solid var(--line);
  border-left: 5px solid; border-radius: 6px; break-inside: avoid; }
.finding.error { border-left-color: var(--error); } .finding.warning { border-left-color: var(--warning); }
.finding.info { border-left-color: var(--info); }
.fleet-nodes tr.ready .badge { background: var(--ok); } .fleet-nodes tr.warning .badge { background: var(--warning); }
.fleet-nodes tr.error .badge { background: var(--error); }
.fleet-causes li { margin: 4px 0; } .fleet-causes .badge { color: #fff; }
.badge { display: inline-block; padding: 0 6px; border-radius: 4px; font-size: 0.75em;
  font-weight: 700; color: var(--bg); vertical-align: 1px; }
.error .badge { background: var(--error); } .warning .badge { background: var(--warning); }
.info .badge { background: var(--info); }
.finding .title { color: var(--muted); font-weight: 400; }
.finding p { margin: 4px 0 8px; white-space: pre-line; }
dl.parts { display: grid; grid-template-columns: 80px 1fr; gap: 4px 12px; margin: 0; }
dl.parts dt { color: var(--muted); } dl.parts dd { margin: 0; white-space: pre-line; overflow-wrap: anywhere; }
dl.parts ul { margin: 0; padding-left: 18px; }
table { border-collapse: collapse; margin: 8px 0; font-size: 0.92em; width: 100%; }
th, td { border: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top;
  overflow-wrap: break-word; }
td { overflow-wrap: anywhere; }  /* long paths and NCCL settings break instead of overflowing */
tbody th { min-width: 9em; }
thead th { background: var(--panel); }
figure { margin: 16px 0; break-inside: avoid; }
figcaption { color: var(--muted); font-size: 0.9em; margin-top: 2px; }
details.data summary { cursor: pointer; color: var(--muted); font-size: 0.85em; }
svg.chart { width: 100%; height: auto; max-width: 760px; display: block; }
svg.chart text { font: 12px system-ui, sans-serif; fill: var(--fg); }
svg.chart .axis-title { fill: var(--muted); }
svg.chart .grid { stroke: var(--line); stroke-width: 1; }
svg.chart .frame, svg.chart .tick { stroke: var(--muted); stroke-width: 1; }
svg.chart .ref { stroke: var(--ref); stroke-width: 2; stroke-dasharray: 6 4; }
svg.chart .ref-label { fill: var(--ref); font-weight: 600; }
svg.chart path.series { fill: none; stroke-width: 2.5; }
svg.chart path.dashed { stroke-dasharray: 5 3; }
svg.chart path.c0 { stroke: var(--c0); } svg.chart path.c1 { stroke: var(--c1); }
svg.chart path.c2 { stroke: var(--c2); } svg.chart path.c3 { stroke: var(--c3); }
svg.chart path.c4 { stroke: var(--c4); } svg.chart path.c5 { stroke: var(--c5); }
svg.chart .c0:not(path) { fill: var(--c0); } svg.chart .c1:not(path) { fill: var(--c1); }
svg.chart .c2:not(path) { fill: var(--c2); } svg.chart .c3:not(path) { fill: var(--c3); }
svg.chart .c4:not(path) { fill: var(--c4); } svg.chart .c5:not(path) { fill: var(--c5); }
svg.chart .ok { fill: var(--good); } svg.chart .bad { fill: var(--bad); }
svg.chart rect.missing { stroke: var(--ref); stroke-dasharray: 2 2; }
.empty { color: var(--muted); font-style: italic; }
footer { margin-top: 40px; color: var(--muted); font-size: 0.85em; }
@media print {
  body { max-width: none; padding: 0; font-size: 11pt; }
  .verdict, .finding, thead th, .counts li { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  details.data { display: none; }
  a { color: inherit; text-decoration: none; }
  h2 { break-after: avoid; }
}
)CSS";
}

}  // namespace trainready
