import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DOCUMENT_BASE_MS, hardStopMs, PAGE_CPU_BUDGET_MS, PAGE_WALL_BUDGET_MS, RenderBudget, RenderTimeout, threadClock, type BudgetClock } from './render-budget.js';
import { renderDocumentInThread } from './render-document.js';
import { fromWire, toWire } from './render-wire.js';

/** Readings set by the test. */
class FakeClock implements BudgetClock {
  cpu = 0;
  wall = 0;
  constructor(readonly threadCpu = true) {}
  cpuMs(): number {
    return this.cpu;
  }
  wallMs(): number {
    return this.wall;
  }
}

describe('RenderBudget', () => {
  it('is within budget until a page has used its CPU time', () => {
    const c = new FakeClock();
    const b = new RenderBudget(c, { pageCpuMs: 1000, pageWallMs: 5000 });
    c.cpu = 500;
    b.startPage(3);
    c.cpu = 1500;
    c.wall = 4000;
    expect(b.check()).toBeNull();
    c.cpu = 1501;
    const over = b.check();
    expect(over).toBeInstanceOf(RenderTimeout);
    expect(over).toMatchObject({ page: 3, reason: 'cpu', transient: false, code: -3109 });
    expect(over!.message).toMatch(/page 3 needed more than 1 s of processor time/);
  });

  it('gives each page its own budget', () => {
    const c = new FakeClock();
    const b = new RenderBudget(c, { pageCpuMs: 1000, pageWallMs: 5000 });
    b.startPage(1);
    for (let page = 2; page <= 40; page++) {
      c.cpu += 900;
      c.wall += 4900;
      expect(b.check()).toBeNull();
      b.startPage(page);
    }
  });

  it('calls a page that ran out of wall-clock time under its CPU budget transient (a busy node)', () => {
    const c = new FakeClock();
    const b = new RenderBudget(c, { pageCpuMs: 1000, pageWallMs: 5000 });
    b.startPage(7);
    c.cpu = 300;
    c.wall = 5001;
    expect(b.check()).toMatchObject({ page: 7, reason: 'wall', transient: true, code: -3109 });
  });

  it('calls a CPU overrun transient when the CPU reading is only a wall-clock stand-in', () => {
    const c = new FakeClock(false);
    const b = new RenderBudget(c, { pageCpuMs: 1000, pageWallMs: 5000 });
    b.startPage(2);
    c.cpu = 2000;
    expect(b.check()).toMatchObject({ reason: 'cpu', transient: true });
  });

  it('validates its options', () => {
    expect(() => new RenderBudget(new FakeClock(), { pageCpuMs: 0 })).toThrow(/pageCpuMs/);
    expect(() => new RenderBudget(new FakeClock(), { pageCpuMs: 2000, pageWallMs: 1000 })).toThrow(/pageWallMs/);
  });

  it('scales the hard stop with the pages', () => {
    expect(hardStopMs(1)).toBe(DOCUMENT_BASE_MS + PAGE_WALL_BUDGET_MS);
    expect(hardStopMs(40)).toBe(DOCUMENT_BASE_MS + 40 * PAGE_WALL_BUDGET_MS);
    expect(hardStopMs(40, { pageWallMs: 1000 })).toBe(DOCUMENT_BASE_MS + 40_000);
    expect(PAGE_WALL_BUDGET_MS).toBeGreaterThanOrEqual(PAGE_CPU_BUDGET_MS);
  });

  it("reads this thread's CPU time on Linux (process.cpuUsage() in a worker would count every thread)", () => {
    const c = threadClock();
    if (process.platform === 'linux') expect(c.threadCpu).toBe(true);
    const cpu0 = c.cpuMs();
    let x = 0;
    for (let i = 0; i < 2e7; i++) x += i & 1;
    expect(x).toBe(1e7);
    expect(c.cpuMs()).toBeGreaterThan(cpu0);
    if (process.platform === 'linux') {
      // The same number as the file read as text (it only grows between the two readings).
      const text = Number(readFileSync('/proc/thread-self/schedstat', 'latin1').split(' ', 1)[0]) / 1e6;
      const ours = c.cpuMs();
      expect(ours).toBeGreaterThanOrEqual(text);
      expect(ours - text).toBeLessThan(1000);
    }
  });

  it('crosses the worker boundary as a RenderTimeout', () => {
    const back = fromWire(toWire(new RenderTimeout(12, 'wall', true, 60_000)));
    expect(back).toBeInstanceOf(RenderTimeout);
    expect(back).toMatchObject({ page: 12, reason: 'wall', transient: true, limitMs: 60_000, code: -3109 });
    expect(back.message).toMatch(/page 12 was not rendered within 60 s/);
  });
});

describe('renderDocumentInThread with a budget', () => {
  const text = Buffer.from(Array.from({ length: 6 }, (_, i) => `page ${i + 1}`).join('\f'));

  it('renders a long document whose every page is within its budget', async () => {
    // Each reading advances: the whole document uses far more than one page's budget, no page does.
    const c = new FakeClock();
    const tick = { cpuMs: () => (c.cpu += 100), wallMs: () => (c.wall += 400), threadCpu: true };
    const pages = await renderDocumentInThread(text, 'text', { pages: [1, 2, 3, 4, 5, 6], quality: 'Low', budgetClock: tick, budget: { pageCpuMs: 1000, pageWallMs: 2000 } });
    expect(pages).toHaveLength(6);
    expect(c.cpu).toBeGreaterThan(1000);
  });

  it('stops at the page that is over budget and says which', async () => {
    const c = new FakeClock();
    let readings = 0;
    // Pages 1 and 2 are cheap; from the third start on, every reading costs 5 s of CPU.
    const slow = { cpuMs: () => (c.cpu += ++readings > 4 ? 5000 : 10), wallMs: () => c.wall, threadCpu: true };
    const err = await renderDocumentInThread(text, 'text', { pages: [1, 2, 3, 4], quality: 'Low', budgetClock: slow, budget: { pageCpuMs: 1000, pageWallMs: 2000 } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RenderTimeout);
    expect(err).toMatchObject({ page: 3, reason: 'cpu', transient: false });
  });
});
