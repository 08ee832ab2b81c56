// Dashboard overview (/dashboard/home, where sign-in lands): this month's faxes, pages, spend and
// balance, faxes and pages per day over 14 days (UTC days), the latest faxes. Read from the
// store's job list (bounded) and the ledger (charges of the month).
import type { JobRecord } from '../../store/index.js';
import { caller, type Dashboard } from '../kit.js';
import { homePage } from '../views-home.js';
import { sendAction } from '../views.js';
import type { DayCount } from '../chart.js';

const DAY_MS = 86_400_000;
const CHART_DAYS = 14;
/** Jobs read for the overview at most (a busy account's month is summed from its first ones). */
const MAX_JOBS = 5000;

export function registerHomePage(d: Dashboard): void {
  d.route('GET', '/dashboard/home', async (c) => {
    const now = d.o.clock.now();
    const today = Math.floor(now / DAY_MS) * DAY_MS;
    const first = new Date(now);
    const monthStart = Date.UTC(first.getUTCFullYear(), first.getUTCMonth(), 1);
    const chartStart = today - (CHART_DAYS - 1) * DAY_MS;
    const since = Math.min(monthStart, chartStart);
    const [jobs, ledger, recent] = await Promise.all([
      d.o.service.list(caller(c.account), { limit: MAX_JOBS, fromMs: since }),
      d.o.store.ledger(c.account.id),
      d.o.service.list(caller(c.account), { limit: 5 }),
    ]);
    const inMonth = jobs.filter((j) => j.createdAtMs >= monthStart);
    const finished = inMonth.filter((j) => j.status === 'delivered' || j.status === 'failed');
    const month = {
      label: new Date(monthStart).toLocaleString('en', { month: 'long', timeZone: 'UTC' }),
      faxes: inMonth.length,
      pages: inMonth.reduce((s, j) => s + j.transferredPages, 0),
      delivered: finished.filter((j) => j.status === 'delivered').length,
      finished: finished.length,
      spendCents: ledger.filter((e) => e.kind === 'charge' && e.atMs >= monthStart).reduce((s, e) => s + Math.abs(e.amountCents), 0),
      inProgress: jobs.filter((j) => j.status === 'sending').length,
    };
    return d.page(c, 200, 'Overview', 'home', homePage({ account: c.account, primary: c.user.role === 'primary', month, days: perDay(jobs, chartStart), recent }), { live: recent.some((j) => j.status === 'sending'), actions: sendAction() });
  });
}

function perDay(jobs: JobRecord[], startMs: number): DayCount[] {
  const days: DayCount[] = Array.from({ length: CHART_DAYS }, (_, i) => ({ day: new Date(startMs + i * DAY_MS).toISOString().slice(0, 10), faxes: 0, pages: 0 }));
  for (const j of jobs) {
    const i = Math.floor((j.createdAtMs - startMs) / DAY_MS);
    if (i < 0 || i >= CHART_DAYS) continue;
    days[i]!.faxes += 1;
    days[i]!.pages += j.transferredPages;
  }
  return days;
}
