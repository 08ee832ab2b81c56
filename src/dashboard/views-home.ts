// The overview page: the month at a glance (faxes, pages, delivered share, spend, balance), a
// chart of faxes and pages per day over two weeks, the latest faxes, and for a new account the
// first steps (send a free test fax, take an API key, set a webhook).
import type { Account, JobRecord } from '../store/index.js';
import { html, type Safe } from './html.js';
import { barChart, type DayCount } from './chart.js';
import { icon } from './icons.js';
import { faxTable } from './views-faxes.js';
import { money } from './views.js';

interface HomeView {
  account: Account;
  primary: boolean;
  month: { label: string; faxes: number; pages: number; delivered: number; finished: number; spendCents: number; inProgress: number };
  days: DayCount[];
  recent: JobRecord[];
}

export function homePage(v: HomeView): Safe {
  const m = v.month;
  const rate = m.finished === 0 ? '—' : `${Math.round((m.delivered / m.finished) * 100)}%`;
  const totalFaxes = v.days.reduce((s, d) => s + d.faxes, 0);
  return html`<ul class="kpis" aria-label="${m.label}">
<li class="kpi"><span class="k">Faxes · ${m.label}</span><span class="v">${m.faxes}</span><span class="s">${m.inProgress} in progress now</span></li>
<li class="kpi"><span class="k">Pages · ${m.label}</span><span class="v">${m.pages}</span><span class="s">pages transmitted</span></li>
<li class="kpi"><span class="k">Delivered</span><span class="v">${rate}</span><span class="s">${m.delivered} of ${m.finished} finished</span></li>
<li class="kpi"><span class="k">Spend · ${m.label}</span><span class="v spend">${money(m.spendCents)}</span><span class="s">balance <span class="balance">${money(v.account.balanceCents)}</span></span></li>
</ul>
<div class="grid-2">
<section class="panel" aria-labelledby="activity"><h2 id="activity">Faxes and pages per day</h2>
${barChart(v.days, 'Faxes and pages per day')}
<ul class="legend" aria-hidden="true"><li><span class="sw sw-f"></span>Faxes</li><li><span class="sw sw-p"></span>Pages</li><li>Last ${v.days.length} days (UTC)</li></ul>
<div class="sr"><table><caption>Faxes and pages per day, last ${v.days.length} days (UTC)</caption><thead><tr><th scope="col">Day</th><th scope="col">Faxes</th><th scope="col">Pages</th></tr></thead>
<tbody>${v.days.map((d) => html`<tr><th scope="row">${d.day}</th><td>${d.faxes}</td><td>${d.pages}</td></tr>`)}</tbody></table></div>
${totalFaxes === 0 ? html`<p class="hint">No faxes in the last ${v.days.length} days.</p>` : ''}
</section>
<section class="panel" aria-labelledby="start"><h2 id="start">${v.recent.length === 0 ? 'Get started' : 'Quick actions'}</h2>
<ol class="start-steps">
<li><a href="/dashboard/send">Send a fax</a>: choose the <strong>test</strong> line to try it for free, the pages are previewed exactly as transmitted.</li>
${v.primary ? html`<li><a href="/dashboard/settings">Take an API key</a> and send from your own software (<a href="/dashboard/api">API reference</a>).</li>
<li><a href="/dashboard/webhooks">Set a webhook</a> to hear when a fax is delivered.</li>` : html`<li><a href="/dashboard/settings">Your own API keys</a> and the <a href="/dashboard/api">API reference</a>.</li>`}
</ol>
<p class="actions"><a class="btn primary" href="/dashboard/send">${icon('send')}<span>Send a fax</span></a> <a class="btn secondary" href="/dashboard/faxes">${icon('faxes')}<span>All faxes</span></a></p>
</section>
</div>
<section aria-labelledby="recent"><h2 id="recent">Latest faxes</h2>
${v.recent.length === 0 ? html`<div class="panel empty"><p>No faxes yet: your first one appears here, page by page.</p></div>` : faxTable(v.recent)}
</section>`;
}
