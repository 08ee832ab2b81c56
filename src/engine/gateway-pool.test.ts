import { describe, expect, it } from 'vitest';
import { settle } from '../shared/clock.js';
import type { FaxPages } from '../documents/index.js';
import type { CallProgress, CallRequest, CallResult, FaxLine } from './line.js';
import { parseGateways, type Gateway } from './gateways.js';
import { GatewayPool, isSlotted, type SharedChannels } from './gateway-pool.js';

/** A gateway line whose calls stay up until the test hangs them up; it counts calls at once. */
class HeldLine implements FaxLine {
  readonly name: string;
  active = 0;
  peak = 0;
  calls: CallRequest[] = [];
  private readonly hangups: ((r: Partial<CallResult>) => void)[] = [];
  constructor(readonly gateway: Gateway) {
    this.name = gateway.name;
  }
  call(req: CallRequest, _p: CallProgress, signal: AbortSignal): Promise<CallResult> {
    this.calls.push(req);
    this.active++;
    this.peak = Math.max(this.peak, this.active);
    return new Promise((resolve) => {
      const end = (r: Partial<CallResult>) => {
        this.active--;
        resolve({ code: 0, message: 'Fax delivered', lastConfirmedPage: req.totalPages, aborted: false, detail: { media: 't38', bitRate: 14400 }, ...r });
      };
      signal.addEventListener('abort', () => end({ code: -3108, aborted: true }), { once: true });
      this.hangups.push(end);
    });
  }
  /** Ends the oldest call in progress. */
  hangUp(r: Partial<CallResult> = {}): void {
    this.hangups.shift()!(r);
  }
}

const config = parseGateways({
  gateways: [
    { name: 'nanp', address: 'a', channels: 2, prefixes: ['+1'], callerId: '+14155559999', rewrite: [{ match: '^\\+1', replace: '1' }] },
    { name: 'uk', address: 'b', channels: 1, prefixes: ['+44'] },
  ],
});

function pool() {
  const lines = new Map<string, HeldLine>();
  const p = new GatewayPool(config, (g) => {
    const l = new HeldLine(g);
    lines.set(g.name, l);
    return l;
  });
  return { p, nanp: lines.get('nanp')!, uk: lines.get('uk')! };
}

let nextJob = 1;
const req = (toNumber: string): CallRequest => ({
  jobId: nextJob++, fromNumber: '+14155550100', toNumber, quality: 'Standard', totalPages: 2, firstPage: 1, ident: '+14155550100', pages: {} as FaxPages,
});
const progress: CallProgress = { stage: () => {}, pageConfirmed: () => {} };

describe('GatewayPool', () => {
  it('is a slotted line', () => {
    expect(isSlotted(pool().p)).toBe(true);
  });

  it('routes, rewrites, presents the gateway caller id, and reports the gateway in the attempt detail', async () => {
    const { p, nanp } = pool();
    const r = p.call(req('+14155550123'), progress, new AbortController().signal);
    await settle();
    expect(nanp.calls[0]).toMatchObject({ toNumber: '14155550123', fromNumber: '+14155559999', ident: '+14155550100' });
    nanp.hangUp();
    expect((await r).detail).toEqual({ gateway: 'nanp', dialed: '14155550123', media: 't38', bitRate: 14400 });
  });

  it('fails a number no gateway serves with -3104 without taking a channel', async () => {
    const { p } = pool();
    const r = await p.call(req('+33142000000'), progress, new AbortController().signal);
    expect(r).toMatchObject({ code: -3104, aborted: false, lastConfirmedPage: 0 });
    expect(r.message).toMatch(/no gateway serves \+33142000000/);
    expect(p.freeSlots()).toBe(3);
  });

  it('never carries more calls than a gateway has channels; calls wait their turn; other gateways are unaffected', async () => {
    const { p, nanp, uk } = pool();
    const signal = new AbortController().signal;
    const us = Array.from({ length: 5 }, (_, i) => p.call(req(`+1415555010${i}`), progress, signal));
    const gb = p.call(req('+442071234567'), progress, signal);
    await settle();
    expect([nanp.active, uk.active, p.busy('nanp'), p.freeSlots()]).toEqual([2, 1, 2, 0]);
    uk.hangUp(); // the UK channel frees: no US call may take it
    await gb;
    expect([nanp.active, uk.active, p.freeSlots()]).toEqual([2, 0, 1]);
    for (let done = 0; done < 5; done++) {
      nanp.hangUp();
      await settle();
      expect(nanp.active).toBe(Math.min(2, 5 - done - 1));
    }
    await Promise.all(us);
    expect([nanp.peak, uk.peak, nanp.calls.length, p.freeSlots()]).toEqual([2, 1, 5, 3]);
  });

  it('a waiting call aborted by shutdown gives up without a channel', async () => {
    const { p, uk } = pool();
    const first = p.call(req('+442071234567'), progress, new AbortController().signal);
    const stop = new AbortController();
    const waiting = p.call(req('+442071234568'), progress, stop.signal);
    await settle();
    stop.abort();
    expect(await waiting).toMatchObject({ aborted: true, lastConfirmedPage: 0 });
    uk.hangUp();
    await first;
    expect([uk.calls.length, p.freeSlots()]).toEqual([1, 3]);
  });

  it('reservations count against the channels and are given back once', async () => {
    const { p, uk } = pool();
    expect(p.reserve(1001, '+442071234567')).toBe('reserved');
    expect(p.reserve(1001, '+442071234567')).toBe('reserved'); // the same job: still one channel
    expect(p.reserve(1002, '+442071234568')).toBe('full');
    expect(p.reserve(1003, '+33142000000')).toBe('no-route');
    expect(p.freeSlots()).toBe(2);
    // The reserved call uses its channel, and gives it back when it ends.
    const r = p.call({ ...req('+442071234567'), jobId: 1001 }, progress, new AbortController().signal);
    await settle();
    expect(uk.active).toBe(1);
    uk.hangUp();
    await r;
    p.release(1001);
    expect([p.busy('uk'), p.freeSlots()]).toEqual([0, 3]);
    expect(p.reserve(1004, '+442071234567')).toBe('reserved');
    p.release(1004);
    p.release(1004);
    expect(p.busy('uk')).toBe(0);
  });

  it('overflows to the next gateway serving the number when the best one is full', async () => {
    const c = parseGateways({ gateways: [{ name: 'primary', address: 'a', channels: 1, prefixes: ['+1'] }, { name: 'backup', address: 'b', channels: 1 }] });
    const lines: HeldLine[] = [];
    const p = new GatewayPool(c, (g) => (lines.push(new HeldLine(g)), lines.at(-1)!));
    const a = p.call(req('+14155550001'), progress, new AbortController().signal);
    const b = p.call(req('+14155550002'), progress, new AbortController().signal);
    await settle();
    expect(lines.map((l) => l.active)).toEqual([1, 1]);
    lines.forEach((l) => l.hangUp());
    expect([(await a).detail.gateway, (await b).detail.gateway]).toEqual(['primary', 'backup']);
  });

  it('closes the gateway lines that can be closed', async () => {
    const closed: string[] = [];
    const p = new GatewayPool(config, (g) => (g.name === 'uk' ? { name: g.name, call: () => Promise.reject(new Error('x')), close: async () => void closed.push(g.name) } as FaxLine : new HeldLine(g)));
    await p.close();
    expect(closed).toEqual(['uk']);
  });

  it('a gateway line that throws becomes an internal error of that call and frees the channel', async () => {
    const p = new GatewayPool(config, (g) => ({ name: g.name, call: () => Promise.reject(new Error('socket closed')) }));
    const r = await p.call(req('+442071234567'), progress, new AbortController().signal);
    expect(r).toMatchObject({ code: -3199, aborted: false, detail: { gateway: 'uk' } });
    expect(r.message).toMatch(/gateway uk: socket closed/);
    expect(p.freeSlots()).toBe(3);
  });
});

/** Channels shared by several pools ("daemons"), as the store's coordination facet keeps them. */
class FakeShared {
  readonly holds = new Map<string, Set<number>>();
  releases = 0;
  view(): SharedChannels {
    const set = (g: string) => this.holds.get(g) ?? (this.holds.set(g, new Set()), this.holds.get(g)!);
    return {
      acquire: async (gateway, channels, jobId) => {
        const s = set(gateway);
        if (s.size >= channels) return { acquired: false, busy: s.size };
        s.add(jobId);
        return { acquired: true, busy: s.size };
      },
      renew: async (gateway, jobId) => set(gateway).has(jobId),
      release: async (gateway, jobId) => void (set(gateway).delete(jobId), this.releases++),
      busy: async () => Object.fromEntries([...this.holds].map(([g, s]) => [g, s.size])),
    };
  }
}

describe('GatewayPool with channels shared across processes', () => {
  function sharedPools() {
    const shared = new FakeShared();
    const make = () => {
      const lines = new Map<string, HeldLine>();
      const p = new GatewayPool(config, (g) => (lines.set(g.name, new HeldLine(g)), lines.get(g.name)!), { shared: shared.view() });
      return { p, nanp: lines.get('nanp')! };
    };
    return { shared, a: make(), b: make() };
  }

  it('two pools never take more of a gateway than its channels together; a freed channel is taken by the other', async () => {
    const { shared, a, b } = sharedPools();
    const [r1, r2, r3] = [req('+14155550001'), req('+14155550002'), req('+14155550003')];
    // Reserving is local (at lease time); the store is asked when the call is about to start.
    expect(a.p.reserve(r1.jobId, r1.toNumber)).toBe('reserved');
    expect(a.p.reserve(r2.jobId, r2.toNumber)).toBe('reserved');
    expect(b.p.reserve(r3.jobId, r3.toNumber)).toBe('reserved');
    expect(shared.holds.size).toBe(0);
    expect(await a.p.confirm(r1.jobId)).toBe(true);
    expect(await b.p.confirm(r3.jobId)).toBe(true);
    // nanp's 2 channels are taken over both pools; uk does not serve +1: a gives r2 back.
    expect(await a.p.confirm(r2.jobId)).toBe(false);
    expect(a.p.busy('nanp')).toBe(1);
    expect(shared.holds.get('nanp')).toEqual(new Set([r1.jobId, r3.jobId]));
    // The store's answers updated a's view: nanp is full for a as well, until b's call ends.
    expect(a.p.freeSlots()).toBe(1);
    expect(a.p.reserve(r2.jobId, r2.toNumber)).toBe('full');

    // b's call ends: the channel stays busy there until the store has it back; a sees it once it looks again.
    const call = b.p.call(r3, progress, new AbortController().signal);
    await settle();
    expect(b.nanp.active).toBe(1);
    expect(await b.p.renew(r3.jobId)).toBe(true);
    b.nanp.hangUp();
    expect((await call).code).toBe(0);
    await settle();
    expect(shared.releases).toBe(1);
    expect(b.p.busy('nanp')).toBe(0);
    expect(await b.p.renew(r3.jobId)).toBe(true); // nothing held any more: nothing to lose
    expect(a.p.freeSlots()).toBe(1);
    await a.p.refresh();
    expect(a.p.freeSlots()).toBe(2);
    expect(a.p.reserve(r2.jobId, r2.toNumber)).toBe('reserved');
    expect(await a.p.confirm(r2.jobId)).toBe(true);
    expect(shared.holds.get('nanp')).toEqual(new Set([r1.jobId, r2.jobId]));
  });

  it('a call without a reservation takes a shared channel itself, or fails as interrupted when all are taken', async () => {
    const { shared, a, b } = sharedPools();
    const [r1, r2, r3] = [req('+14155550001'), req('+14155550002'), req('+14155550003')];
    for (const r of [r1, r2]) expect(b.p.reserve(r.jobId, r.toNumber) === 'reserved' && (await b.p.confirm(r.jobId))).toBe(true);
    const refused = await a.p.call(r3, progress, new AbortController().signal);
    expect(refused).toMatchObject({ code: -3108, aborted: true });
    expect(a.nanp.calls).toHaveLength(0);
    b.p.release(r1.jobId);
    await settle();
    await a.p.refresh();
    const call = a.p.call(r3, progress, new AbortController().signal);
    await settle();
    expect(shared.holds.get('nanp')).toEqual(new Set([r2.jobId, r3.jobId]));
    a.nanp.hangUp();
    expect((await call).code).toBe(0);
  });

  it('a hold the store no longer has is reported lost', async () => {
    const { shared, a } = sharedPools();
    const r = req('+14155550004');
    expect(a.p.reserve(r.jobId, r.toNumber)).toBe('reserved');
    expect(await a.p.confirm(r.jobId)).toBe(true);
    shared.holds.get('nanp')!.delete(r.jobId); // expired: the daemon missed its renewals
    expect(await a.p.renew(r.jobId)).toBe(false);
  });

  it('a store error while taking a channel leaves nothing taken', async () => {
    const lines = new Map<string, HeldLine>();
    const failing: SharedChannels = {
      acquire: async () => { throw new Error('connection lost'); },
      renew: async () => true, release: async () => {}, busy: async () => ({}),
    };
    const p = new GatewayPool(config, (g) => (lines.set(g.name, new HeldLine(g)), lines.get(g.name)!), { shared: failing });
    const r = req('+14155550005');
    expect(p.reserve(r.jobId, r.toNumber)).toBe('reserved');
    expect(await p.confirm(r.jobId)).toBe(false);
    expect(p.busy('nanp')).toBe(0);
    expect(p.freeSlots()).toBe(3);
  });
});
