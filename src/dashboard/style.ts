// The dashboard's one stylesheet (served at /dashboard/style.css). A sidebar console on wide
// screens, a top bar with a scrolling nav row on phones; tables marked `cards` become one card
// per row below 48rem (cells carry data-label), other tables scroll inside their box. Colours
// keep at least 4.5:1 contrast for text; focus is always visible; no web fonts (no requests).
export const STYLE_CSS = `
:root {
  color-scheme: light;
  --ink: #14201f; --muted: #4d5b5a; --faint: #6a7776; --bg: #f3f6f5; --panel: #fff; --line: #dbe3e1; --line-strong: #b8c6c3;
  --brand: #0f3d3e; --brand-2: #155e5b; --accent: #0b6b66; --accent-ink: #fff; --accent-soft: #e3f2ef; --amber: #ffb454;
  --ok: #116b3a; --ok-bg: #e4f5ea; --bad: #b3261e; --bad-bg: #fdecea; --busy: #0b57a4; --busy-bg: #e6f0fb; --wait: #8a4b00; --wait-bg: #fff3df; --mute-bg: #eceff0;
  --radius: 10px; --shadow: 0 1px 2px rgba(16, 40, 38, .06), 0 2px 8px rgba(16, 40, 38, .05);
  --font: "Inter", "IBM Plex Sans", "Segoe UI Variable Text", "Segoe UI", "Helvetica Neue", "Nimbus Sans", Arial, sans-serif;
  --display: "Manrope", "Avenir Next", "URW Gothic", "Century Gothic", "Segoe UI", sans-serif;
  --mono: "JetBrains Mono", "IBM Plex Mono", ui-monospace, "SFMono-Regular", Menlo, Consolas, "DejaVu Sans Mono", monospace;
}
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; font: 15px/1.55 var(--font); color: var(--ink); background: var(--bg); font-feature-settings: "tnum" 1, "cv11" 1; }
a { color: var(--accent); text-underline-offset: 2px; }
a:hover { color: var(--brand); }
:focus-visible { outline: 3px solid #1a73e8; outline-offset: 2px; border-radius: 4px; }
.skip { position: absolute; left: -999px; top: .5rem; z-index: 10; }
.skip:focus { left: .5rem; background: var(--panel); padding: .5rem .75rem; }
.sr { position: absolute !important; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0; padding: 0; margin: -1px; }
.icon { width: 1.15em; height: 1.15em; flex: none; fill: none; stroke: currentColor; stroke-width: 2; stroke-linecap: round; stroke-linejoin: round; vertical-align: -.2em; }
h1, h2, h3, .brand { font-family: var(--display); letter-spacing: -.01em; }
h1 { font-size: 1.6rem; line-height: 1.2; margin: 0; }
h2 { font-size: 1.15rem; margin: 0 0 .75rem; }
h3 { font-size: 1rem; margin: 1rem 0 .5rem; }
code { font-family: var(--mono); font-size: .88em; overflow-wrap: anywhere; background: #eef3f2; padding: .05rem .3rem; border-radius: 4px; }
code.key { display: inline-block; font-size: 1rem; padding: .4rem .6rem; border: 1px dashed var(--line-strong); }

/* Frame: sidebar + content */
body.app { display: grid; grid-template-columns: 15.5rem minmax(0, 1fr); min-height: 100vh; background: linear-gradient(to right, var(--brand) 15.5rem, var(--bg) 15.5rem); }
.sidebar { background: var(--brand); color: #e9f3f1; display: flex; flex-direction: column; gap: 1rem; padding: 1rem .75rem; position: sticky; top: 0; height: 100vh; overflow-y: auto; }
.brand { display: inline-flex; align-items: center; gap: .6rem; color: inherit; text-decoration: none; font-weight: 800; font-size: 1.25rem; padding: .25rem .5rem; }
.brand .logo { border-radius: 8px; box-shadow: 0 0 0 1px rgba(255, 255, 255, .18); }
.nav ul { list-style: none; margin: 0; padding: 0; display: flex; flex-direction: column; gap: .15rem; }
.nav a { display: flex; align-items: center; gap: .7rem; padding: .55rem .75rem; border-radius: 8px; color: #d9ebe8; text-decoration: none; font-weight: 500; }
.nav a:hover { background: rgba(255, 255, 255, .08); color: #fff; }
.nav a[aria-current="page"] { background: #fff; color: var(--brand); font-weight: 700; box-shadow: inset 3px 0 0 var(--amber); }
.who { margin-top: auto; border-top: 1px solid rgba(255, 255, 255, .15); padding: .9rem .5rem 0; font-size: .9rem; }
.who p { margin: 0 0 .6rem; }
.who-account { display: flex; flex-direction: column; }
.who-label { font-size: .72rem; text-transform: uppercase; letter-spacing: .08em; color: #b5d3ce; }
.who-acct { color: #fff; overflow-wrap: anywhere; }
.who-num { font-family: var(--mono); font-size: .82rem; color: #cfe5e1; }
.who-user { display: flex; align-items: center; gap: .55rem; }
.who-user > span:last-child { display: flex; flex-direction: column; min-width: 0; }
.who-name { color: #fff; font-weight: 600; overflow-wrap: anywhere; }
.who-role { font-size: .8rem; color: #cfe5e1; }
.avatar { width: 2rem; height: 2rem; border-radius: 50%; background: var(--amber); color: #3a2300; display: inline-grid; place-items: center; font-weight: 800; font-size: .8rem; flex: none; }
.who .btn { color: #fff; border-color: rgba(255, 255, 255, .35); }
.who .btn:hover { background: rgba(255, 255, 255, .1); }
.content { min-width: 0; padding: 1.25rem clamp(1rem, 3vw, 2.5rem) 3rem; }
.titlebar { display: flex; flex-wrap: wrap; align-items: center; gap: .75rem 1rem; margin: .25rem 0 1.25rem; }
.titlebar h1 { flex: 1 1 auto; }
main { max-width: 76rem; }
main:focus { outline: none; }
body.public { display: block; }
.public-top { padding: 1rem clamp(1rem, 3vw, 2.5rem); background: var(--brand); color: #fff; }
body.public .content { max-width: 60rem; margin: 0 auto; }

/* Search */
.search { position: relative; flex: 0 1 22rem; min-width: 12rem; }
.search .icon { position: absolute; left: .7rem; top: 50%; transform: translateY(-50%); color: var(--faint); pointer-events: none; }
.search input { padding-left: 2.3rem; margin: 0; max-width: none; border-radius: 999px; background: var(--panel); }

/* Panels, sections */
.panel, section.panel { background: var(--panel); border: 1px solid var(--line); border-radius: var(--radius); box-shadow: var(--shadow); padding: 1.1rem 1.25rem; margin: 0 0 1.25rem; min-width: 0; }
.panel > h2:first-child { margin-top: 0; }
.grid-2 { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 26rem), 1fr)); gap: 0 1.25rem; align-items: start; }
.lead { color: var(--muted); margin-top: 0; }
.hint { color: var(--muted); font-size: .88rem; margin: .3rem 0 0; }
.notice, .error { display: flex; gap: .6rem; align-items: flex-start; border-radius: var(--radius); padding: .7rem 1rem; margin: 0 0 1.25rem; }
.notice { background: var(--ok-bg); color: #0c4a29; border: 1px solid #b6e0c4; }
.error { background: var(--bad-bg); color: #7d1a14; border: 1px solid #f3c3be; }
.notice .icon, .error .icon { margin-top: .15rem; }
.notice p { margin: .25rem 0; }

/* Forms */
label { display: block; font-weight: 600; margin: .9rem 0 .3rem; }
input, select, textarea, button, .btn { font: inherit; }
input, select, textarea { width: 100%; min-height: 2.6rem; padding: .5rem .7rem; border: 1px solid var(--line-strong); border-radius: 8px; background: #fff; color: var(--ink); }
input:hover, select:hover, textarea:hover { border-color: var(--faint); }
input:focus-visible, select:focus-visible, textarea:focus-visible { border-color: var(--accent); }
input[type="file"] { padding: .45rem; background: var(--bg); }
.form { max-width: 44rem; }
.form-grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 17rem), 1fr)); gap: 0 1.25rem; }
fieldset { border: 1px solid var(--line); border-radius: var(--radius); margin: 1.1rem 0 0; padding: .35rem 1rem 1rem; min-width: 0; }
legend { font-weight: 700; padding: 0 .35rem; }
.choice { display: flex; gap: .6rem; align-items: flex-start; margin: .5rem 0; }
.choice input { width: 1.15rem; min-height: 1.15rem; height: 1.15rem; margin: .2rem 0 0; flex: none; accent-color: var(--accent); }
.choice label { margin: 0; font-weight: 400; }
.filters { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: end; }
.filters > div { flex: 1 1 9rem; }
.filters label { margin: 0 0 .25rem; font-size: .85rem; }
.kept { display: flex; flex-wrap: wrap; gap: .4rem; margin: .4rem 0 0; padding: 0; list-style: none; }
.kept li { background: var(--accent-soft); color: var(--brand); border-radius: 999px; padding: .15rem .7rem; font-size: .88rem; }

/* Buttons: primary (the page's main action), secondary, ghost, danger (destructive) */
.btn { display: inline-flex; align-items: center; justify-content: center; gap: .45rem; min-height: 2.6rem; padding: .45rem 1rem; border-radius: 8px; border: 1px solid var(--line-strong); background: #fff; color: var(--ink); font-weight: 600; text-decoration: none; cursor: pointer; line-height: 1.2; }
.btn:hover { background: #f0f4f3; color: var(--ink); }
.btn.primary { background: var(--accent); border-color: var(--accent); color: var(--accent-ink); }
.btn.primary:hover { background: var(--brand-2); }
.btn.ghost { background: transparent; }
.btn.danger { background: #fff; border-color: #e4a9a4; color: var(--bad); }
.btn.danger:hover { background: var(--bad); border-color: var(--bad); color: #fff; }
.btn.danger.solid { background: var(--bad); border-color: var(--bad); color: #fff; }
.btn.small { min-height: 2.25rem; padding: .3rem .7rem; font-size: .88rem; }
.btn.wide { width: 100%; margin-top: 1.25rem; }
form.inline { display: inline; }
.actions { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; margin: 1rem 0; }
.row-actions { display: flex; flex-wrap: wrap; gap: .4rem; align-items: center; }
.row-actions form { display: inline-flex; gap: .4rem; align-items: center; }
.row-actions input, .row-actions select { width: auto; min-width: 9rem; min-height: 2.25rem; padding: .3rem .5rem; }

/* Status badges */
.badge { display: inline-flex; align-items: center; gap: .35rem; padding: .15rem .6rem .15rem .45rem; border-radius: 999px; font-size: .84rem; font-weight: 700; white-space: nowrap; border: 1px solid transparent; }
.badge .icon { width: 1em; height: 1em; stroke-width: 2.6; }
.t-ok { background: var(--ok-bg); color: var(--ok); border-color: #b6e0c4; }
.t-bad { background: var(--bad-bg); color: var(--bad); border-color: #f3c3be; }
.t-busy { background: var(--busy-bg); color: var(--busy); border-color: #bcd4f2; }
.t-wait { background: var(--wait-bg); color: var(--wait); border-color: #f5d6a6; }
.t-muted { background: var(--mute-bg); color: #444f51; border-color: #d4dadb; }
.t-busy .icon { animation: spin 2.4s linear infinite; }
@media (prefers-reduced-motion: reduce) { .t-busy .icon { animation: none; } }
@keyframes spin { to { transform: rotate(360deg); } }
.status-line { display: block; color: var(--muted); font-size: .86rem; margin-top: .2rem; }
.status-line.bad { color: var(--bad); }
.dir { display: inline-flex; align-items: center; gap: .25rem; font-size: .78rem; font-weight: 700; text-transform: uppercase; letter-spacing: .05em; color: var(--muted); }
.dir.in { color: #6b3fa0; }

/* Tables */
.table-box, .scroll { background: var(--panel); border: 1px solid var(--line); border-radius: var(--radius); box-shadow: var(--shadow); overflow-x: auto; margin: 0 0 1.25rem; }
.panel .table-box, .panel .scroll { box-shadow: none; }
table { border-collapse: collapse; width: 100%; }
caption { text-align: left; font-weight: 700; padding: .75rem 1rem; }
th, td { text-align: left; padding: .65rem .9rem; border-bottom: 1px solid var(--line); vertical-align: top; }
thead th { font-size: .78rem; text-transform: uppercase; letter-spacing: .06em; color: var(--muted); background: #f8faf9; font-weight: 700; }
tbody tr:last-child td { border-bottom: 0; }
tbody tr:hover { background: #fafcfb; }
.num { text-align: right; font-variant-numeric: tabular-nums; }
.who-col strong { display: block; }
.sub { display: block; color: var(--muted); font-size: .86rem; }
.mono { font-family: var(--mono); font-size: .9em; }
.fax-link { font-weight: 700; white-space: nowrap; }
td.first { white-space: nowrap; }
.empty { text-align: center; padding: 2.5rem 1rem; color: var(--muted); }
.empty .btn { margin-top: .75rem; }

/* Facts (definition lists) */
.facts { display: grid; grid-template-columns: minmax(8rem, max-content) 1fr; gap: .45rem 1.25rem; margin: 0; }
.facts dt { color: var(--muted); font-weight: 600; }
.facts dd { margin: 0; overflow-wrap: anywhere; }
.message { white-space: pre-wrap; }

/* Fax detail */
.hero { display: flex; flex-wrap: wrap; gap: 1rem 2rem; align-items: center; }
.hero .badge { font-size: 1rem; padding: .3rem .8rem .3rem .6rem; }
.hero-main { flex: 1 1 18rem; min-width: 0; }
.hero-main .status-line { font-size: .95rem; }
.hero-route { font-family: var(--mono); font-size: 1.05rem; overflow-wrap: anywhere; }
.steps { display: flex; list-style: none; padding: 0; margin: 1rem 0 0; gap: .25rem; flex-wrap: wrap; counter-reset: step; }
.steps li { flex: 1 1 6rem; font-size: .8rem; color: var(--faint); border-top: 4px solid var(--line); padding-top: .35rem; }
.steps li.done { color: var(--ok); border-color: #3f9e6a; }
.steps li.now { color: var(--busy); border-color: var(--busy); font-weight: 700; }
.steps li.failed { color: var(--bad); border-color: var(--bad); font-weight: 700; }
.thumbs { list-style: none; padding: 0; margin: 0; display: grid; grid-template-columns: repeat(auto-fill, minmax(9.5rem, 1fr)); gap: 1rem; }
.thumbs li { display: flex; flex-direction: column; gap: .35rem; }
.thumbs a.page { display: flex; align-items: center; justify-content: center; aspect-ratio: 210 / 297; background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: .35rem; box-shadow: var(--shadow); }
.thumbs img { max-width: 100%; max-height: 100%; width: auto; height: auto; object-fit: contain; display: block; }
.thumbs .cap { font-size: .8rem; color: var(--muted); text-align: center; }
details.transmission-log { margin: .5rem 0; border: 1px solid var(--line); border-radius: 8px; padding: .5rem .9rem; }
details.transmission-log summary { cursor: pointer; font-weight: 600; }
.attempts { margin: 0; padding-left: 1.2rem; }

/* Overview */
.kpis { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 11rem), 1fr)); gap: 1rem; margin: 0 0 1.25rem; padding: 0; list-style: none; }
.kpi { background: var(--panel); border: 1px solid var(--line); border-radius: var(--radius); box-shadow: var(--shadow); padding: .9rem 1.1rem; }
.kpi .k { display: block; font-size: .8rem; color: var(--muted); text-transform: uppercase; letter-spacing: .06em; font-weight: 700; }
.kpi .v { display: block; font-family: var(--display); font-size: 1.7rem; font-weight: 800; line-height: 1.25; }
.kpi .s { display: block; font-size: .85rem; color: var(--muted); }
.chart { width: 100%; height: auto; display: block; }
.chart .bar-f { fill: var(--accent); }
.chart .bar-p { fill: #9ccfc8; }
.chart .axis { stroke: var(--line-strong); stroke-width: 1; }
.chart text { fill: var(--muted); font: 11px var(--font); }
.legend { display: flex; gap: 1rem; flex-wrap: wrap; font-size: .85rem; color: var(--muted); margin: .5rem 0 0; padding: 0; list-style: none; }
.legend span.sw { display: inline-block; width: .8rem; height: .8rem; border-radius: 3px; margin-right: .35rem; vertical-align: -.05rem; }
.sw-f { background: var(--accent); } .sw-p { background: #9ccfc8; }
.start-steps { margin: 0; padding-left: 1.2rem; }
.start-steps li { margin: .35rem 0; }

/* Sign-in */
.signin { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 20rem), 1fr)); gap: 1.25rem; align-items: start; }
.hint-panel { background: var(--accent-soft); border-color: #bfe0da; }

/* Templates and API reference */
.templates { grid-template-columns: repeat(auto-fill, minmax(min(100%, 16rem), 1fr)); }
.templates li.template { background: var(--panel); border: 1px solid var(--line); border-radius: var(--radius); padding: .9rem; box-shadow: var(--shadow); }
.templates li.template img { aspect-ratio: auto; border: 1px solid var(--line); }
.endpoint h2 code { font-size: 1rem; }
ul.plain { list-style: none; padding: 0; margin: 0; }
.live-hint a { font-weight: 600; }
.caller-ids { padding-left: 1.1rem; }
.caller-ids li { margin: .35rem 0; }

/* Phones and narrow windows: the sidebar becomes a top bar; card tables */
@media (max-width: 56rem) {
  body.app { display: block; background: var(--bg); }
  .sidebar { position: static; height: auto; flex-direction: row; flex-wrap: wrap; align-items: center; gap: .5rem; padding: .6rem .75rem; }
  .brand { font-size: 1.1rem; }
  .nav { order: 3; flex: 1 0 100%; overflow-x: auto; margin: 0 -.75rem; padding: 0 .75rem .15rem; scrollbar-width: thin; }
  .nav ul { flex-direction: row; gap: .25rem; width: max-content; }
  .nav a { padding: .45rem .7rem; white-space: nowrap; }
  .nav a[aria-current="page"] { box-shadow: inset 0 -3px 0 var(--amber); }
  .who { margin: 0 0 0 auto; border: 0; padding: 0; display: flex; align-items: center; gap: .6rem; }
  .who p { margin: 0; }
  .who-account, .who-role { display: none !important; }
  .who-name { max-width: 9rem; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; font-size: .85rem; }
  .content { padding: 1rem .9rem 2.5rem; }
  .search { flex: 1 1 100%; }
}
@media (max-width: 48rem) {
  .facts { grid-template-columns: 1fr; gap: .1rem; }
  .facts dt { margin-top: .55rem; }
  table.cards, table.cards tbody, table.cards tr, table.cards td { display: block; width: 100%; }
  table.cards thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
  table.cards tr { padding: .75rem .9rem; border-bottom: 1px solid var(--line); display: grid; grid-template-columns: 1fr auto; gap: .2rem .75rem; }
  table.cards tbody tr:last-child { border-bottom: 0; }
  table.cards td { border: 0; padding: 0; min-width: 0; overflow-wrap: anywhere; grid-column: 1 / -1; }
  table.cards td.first { grid-column: 1; white-space: normal; }
  table.cards td[data-label]::before { content: attr(data-label) " "; color: var(--muted); font-size: .78rem; font-weight: 700; text-transform: uppercase; letter-spacing: .05em; margin-right: .35rem; }
  table.cards td.end { grid-column: 2; grid-row: 1; text-align: right; color: var(--muted); font-size: .86rem; }
  table.cards td.first .sub { display: inline; margin-left: .5rem; }
  table.cards td.end::before, table.cards td.first::before { content: none; }
  table.cards td.num { text-align: left; }
  .row-actions input, .row-actions select { min-width: 0; flex: 1 1 8rem; }
  h1 { font-size: 1.35rem; }
  .panel, section.panel { padding: .9rem 1rem; }
}
`;
