// The dashboard's one stylesheet (served at /dashboard/style.css): readable contrast, visible
// focus, tables that scroll sideways on a phone instead of breaking the layout.
export const STYLE_CSS = `
:root { color-scheme: light; --fg: #1b1f24; --muted: #4a5360; --bg: #fff; --line: #d0d7de; --accent: #0b57d0; --ok: #116329; --bad: #a40e26; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
header { display: flex; flex-wrap: wrap; gap: .5rem 1.25rem; align-items: center; padding: .75rem 1rem; border-bottom: 1px solid var(--line); }
header nav { display: flex; gap: 1rem; flex-wrap: wrap; }
header nav a[aria-current="page"] { font-weight: 700; text-decoration-thickness: 3px; }
.brand { font-size: 1.1rem; }
main { max-width: 64rem; margin: 0 auto; padding: 1rem; }
h1 { font-size: 1.5rem; margin: .5rem 0 1rem; }
h2 { font-size: 1.2rem; margin: 1.5rem 0 .5rem; }
a { color: var(--accent); }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
.skip { position: absolute; left: -999px; }
.skip:focus { left: 1rem; top: 1rem; background: var(--bg); padding: .5rem; }
.sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
label { display: block; font-weight: 600; margin: .75rem 0 .25rem; }
input, select, button, .button { font: inherit; min-height: 2.75rem; }
input, select { width: 100%; max-width: 32rem; padding: .5rem; border: 1px solid var(--muted); border-radius: 4px; }
button, .button { display: inline-block; padding: .5rem 1rem; margin: .25rem .25rem .25rem 0; border: 1px solid var(--accent); border-radius: 4px; background: var(--accent); color: #fff; text-decoration: none; cursor: pointer; }
header button { background: transparent; color: var(--accent); }
form.inline { display: inline; }
.card { max-width: 32rem; }
.card button { margin-top: 1rem; }
.filters { display: flex; flex-wrap: wrap; gap: .25rem .75rem; align-items: end; }
.filters label { margin: 0; }
.filters input, .filters select { width: auto; }
.notice { border-left: 4px solid var(--ok); background: #eef8f0; padding: .5rem 1rem; }
.error { border-left: 4px solid var(--bad); background: #fdeef0; padding: .5rem 1rem; }
.hint { color: var(--muted); font-size: .9rem; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .4rem .6rem; border-bottom: 1px solid var(--line); vertical-align: top; }
.num { text-align: right; font-variant-numeric: tabular-nums; }
.facts { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; }
.facts dt { font-weight: 600; }
.facts dd { margin: 0; overflow-wrap: anywhere; }
code { font-family: ui-monospace, Menlo, Consolas, monospace; overflow-wrap: anywhere; }
code.key { font-size: 1.05rem; background: #f3f5f7; padding: .25rem .5rem; }
.status { font-weight: 600; }
.s-delivered { color: var(--ok); } .s-failed { color: var(--bad); }
.attempts { margin: 0; padding-left: 1.2rem; }
.thumbs { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: .75rem; }
.thumbs img { border: 1px solid var(--line); max-width: 100%; height: auto; }
textarea { font: inherit; width: 100%; max-width: 32rem; padding: .5rem; border: 1px solid var(--muted); border-radius: 4px; }
fieldset { border: 1px solid var(--line); border-radius: 4px; margin: 1rem 0 0; padding: .25rem 1rem .75rem; max-width: 32rem; }
legend { font-weight: 600; padding: 0 .25rem; }
.choice { display: flex; gap: .5rem; align-items: center; margin: .35rem 0; }
.choice input { width: 1.25rem; min-height: 1.25rem; height: 1.25rem; flex: none; }
.choice label { margin: 0; font-weight: 400; }
input[type="file"] { padding: .4rem; }
.button.secondary, button.secondary { background: transparent; color: var(--accent); }
ul.plain { list-style: none; padding: 0; margin: 0; }
caption { text-align: left; font-weight: 600; padding: .5rem 0; }
.endpoint h2 code { font-size: 1.05rem; }
.message { white-space: pre-wrap; }
.live-hint a { font-weight: 600; }
@media (max-width: 40rem) { .facts { grid-template-columns: 1fr; } .facts dt { margin-top: .5rem; } }
`;
