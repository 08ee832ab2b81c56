// T.30 timers on an injected clock: a session over a recording front end, the far end
// scripted by the test. Nothing sleeps; the manual clock is moved to just before and just
// after each expiry.

import { describe, expect, it } from 'vitest';
import { encodeMH, encodeMMR } from '../../src/codecs/index.js';
import { ManualClock } from '../../src/shared/clock.js';
import { DIS_DEFAULTS, encodeDcs, encodeDis, type Dcs } from '../../src/t30/dis.js';
import { ecmBlocks, ppsFrame } from '../../src/t30/ecm.js';
import { buildFrame, Fcf, fcfByte } from '../../src/t30/fcf.js';
import { holdLimitMs } from '../../src/t30/hold.js';
import { T30Session } from '../../src/t30/session.js';
import type { T30Config } from '../../src/t30/types.js';
import { textPage } from '../vectors/synthetic-pages.js';
import { FakeFrontEnd } from './harness.js';
import { tsb } from './tsb85.js';

const PAGE = textPage(1728, 60, 5);

function setup(config: T30Config): { clock: ManualClock; fe: FakeFrontEnd; session: T30Session } {
  const clock = new ManualClock();
  const fe = new FakeFrontEnd();
  const session = new T30Session({ config, frontEnd: fe, clock });
  return { clock, fe, session };
}

const caller = (extra: Partial<Extract<T30Config, { role: 'caller' }>> = {}): T30Config => ({
  role: 'caller',
  source: { count: 1, get: () => PAGE },
  ...extra,
});

const hdlc = (frame: Uint8Array | string): { kind: 'hdlc'; frame: Uint8Array; crcOk: true } => ({
  kind: 'hdlc',
  frame: typeof frame === 'string' ? tsb(frame) : frame,
  crcOk: true,
});

describe('TM-01 T4 (3 s): the caller repeats DCS/TCF, then gives up', () => {
  it('repeats at 3 s and 6 s, disconnects at 9 s with −3105', async () => {
    const { clock, fe, session } = setup(caller());
    session.start();
    fe.emit(hdlc('FF C8 01 00 50 00'));
    await clock.advance(0);
    expect(fe.sent(), 'TM-01.01 DCS sent once').toEqual(['DCS+']);
    await clock.advance(2999);
    expect(fe.sent(), 'TM-01.02 nothing before T4').toHaveLength(1);
    await clock.advance(1);
    expect(fe.sent(), 'TM-01.03 DCS again at T4').toHaveLength(2);
    await clock.advance(3000);
    expect(fe.sent(), 'TM-01.04 a third time').toHaveLength(3);
    await clock.advance(3000);
    expect(fe.sent().at(-1), 'TM-01.05 then DCN').toBe('DCN+');
    const result = await session.result;
    expect(result, 'TM-01.06').toMatchObject({ completion: 'T30_ERR_TX_PHBDEAD', code: -3105, pages: 0 });
    expect(fe.commands.filter((c) => c.kind === 'send-tcf'), 'TM-01.07 TCF after each DCS').toHaveLength(3);
    expect(clock.pending(), 'TM-01.08 no timer left behind').toBe(0);
  });
});

describe('TM-02 T1 (35 s): nobody answers', () => {
  it('the caller gives up at 35 s with −3103', async () => {
    const { clock, fe, session } = setup(caller());
    session.start();
    await clock.advance(34_999);
    expect(session.finished).toBe(false);
    await clock.advance(1);
    expect(await session.result, 'TM-02.01').toMatchObject({ completion: 'T30_ERR_T1_EXPIRED', code: -3103 });
    expect(fe.commands.at(-1), 'TM-02.02 no DCN to nobody').toEqual({ kind: 'hangup' });
  });

  it('the answerer repeats DIS every 3 s and gives up at 35 s with −3103', async () => {
    const { clock, fe, session } = setup({ role: 'answerer' });
    session.start();
    await clock.advance(34_999);
    // CED, DIS at 0, then DIS every 3 s: 0, 3, … 33
    expect(fe.sent().filter((s) => s === 'DIS'), 'TM-02.03').toHaveLength(12);
    await clock.advance(1);
    expect(fe.sent().at(-1)).toBe('DCN');
    expect(await session.result, 'TM-02.04').toMatchObject({ completion: 'T30_ERR_T1_EXPIRED', code: -3103 });
  });
});

describe('TM-03 T2 (6 s): the receiver waits for the page', () => {
  it('disconnects 6 s after CFR when no page comes: −3107', async () => {
    const { clock, fe, session } = setup({ role: 'answerer' });
    session.start();
    await clock.advance(0);
    const dcs = encodeDcs({
      receive: true,
      modem: { modulation: 'v29', bitRate: 9600 },
      resolution: 'R8_FINE',
      coding: 'mh',
      width: 'a4',
      length: 'a4',
      scanLineMs: 0,
      ecm: false,
      ecmFrameSize: 256,
      subaddress: false,
      senderId: false,
    });
    fe.emit(hdlc(buildFrame(fcfByte('DCS', 1), dcs)));
    fe.emit({ kind: 'carrier', on: true });
    fe.emit({ kind: 'image-data', data: new Uint8Array(1800) });
    fe.emit({ kind: 'image-end' });
    await clock.advance(0);
    expect(fe.sent().at(-1), 'TM-03.01 CFR').toBe('CFR');
    await clock.advance(5_999);
    expect(session.finished).toBe(false);
    await clock.advance(1);
    expect(fe.sent().at(-1), 'TM-03.02 DCN at T2').toBe('DCN');
    expect(await session.result, 'TM-03.03').toMatchObject({ completion: 'T30_ERR_RX_T2EXPFAX', code: -3107 });
  });

  it('a page that starts before T2 keeps it from expiring however long it lasts', async () => {
    const { clock, fe, session } = setup({ role: 'answerer' });
    session.start();
    await clock.advance(0);
    fe.emit(hdlc('FF C8 C1 00 50 00'));
    fe.emit({ kind: 'carrier', on: true });
    fe.emit({ kind: 'image-data', data: new Uint8Array(900) });
    fe.emit({ kind: 'image-end' });
    await clock.advance(1_000);
    fe.emit({ kind: 'carrier', on: true });
    await clock.advance(60_000);
    expect(session.finished, 'TM-03.04').toBe(false);
    session.abort();
    expect(await session.result).toMatchObject({ completion: 'T30_ERR_CALLDROPPED', code: -3108 });
  });
});

describe('TM-04 T5 (60 s): RNR for too long', () => {
  it('keeps sending RR while the receiver says RNR, and gives up at 60 s with −3107', async () => {
    const { clock, fe, session } = setup(caller());
    // The far end answers each RR with RNR one second later.
    const inner = fe.command.bind(fe);
    fe.command = (cmd) => {
      inner(cmd);
      if (cmd.kind === 'send-hdlc' && cmd.frames.some((f) => (f[2]! & 0xfe) === Fcf.RR)) clock.setTimer(1000, () => fe.emit(hdlc('FF C8 37')));
    };
    session.start();
    const dis = encodeDis({ ...DIS_DEFAULTS, readyToReceive: true, modems: { v27ter: true, v29: true, v17: true }, ecm: true, t6: true });
    fe.emit(hdlc(buildFrame(Fcf.DIS, dis)));
    await clock.advance(0);
    fe.emit(hdlc('FF C8 21')); // CFR
    await clock.advance(0);
    fe.emit(hdlc('FF C8 37')); // RNR to the PPS
    await clock.advance(59_999);
    expect(session.finished).toBe(false);
    expect(fe.sent().filter((s) => s === 'RR+').length, 'TM-04.01 an RR per RNR').toBe(60);
    await clock.advance(1);
    expect(fe.sent().at(-1), 'TM-04.02').toBe('DCN+');
    expect(await session.result, 'TM-04.03').toMatchObject({ completion: 'T30_ERR_TX_T5EXP', code: -3107 });
  });
});

/** A DCS from the caller (V.27ter 4800, no ECM unless `d` says so). */
const dcs = (d: Partial<Dcs>): Uint8Array =>
  buildFrame(fcfByte('DCS', 1), encodeDcs({
    receive: true, modem: { modulation: 'v27ter', bitRate: 4800 }, resolution: 'R8_STANDARD', coding: 'mh', width: 'a4', length: 'a4',
    scanLineMs: 0, ecm: false, ecmFrameSize: 256, subaddress: false, senderId: false, ...d,
  }));

/** An answerer past CFR, listening for the page. */
async function toPage(dcsFrame: Uint8Array): Promise<ReturnType<typeof setup>> {
  const t = setup({ role: 'answerer' });
  t.session.start();
  await t.clock.advance(0);
  t.fe.emit(hdlc(dcsFrame));
  t.fe.emit({ kind: 'carrier', on: true });
  t.fe.emit({ kind: 'image-data', data: new Uint8Array(900) });
  t.fe.emit({ kind: 'image-end' });
  await t.clock.advance(0);
  expect(t.fe.sent().at(-1)).toBe('CFR');
  return t;
}

describe('TM-05 T2 after a page whose high-speed carrier was lost: the rest of the page holds it', () => {
  // The receiver's fast carrier drops 1 s into the page (a jitter buffer run dry, docs/benchmarks.md
  // audio-hog); the far end goes on sending its page for 20 s (V.21's detector hears it), then
  // its command. T2 (6 s) must count from the end of that signal, not from the carrier loss.

  /** The rest of the page on the line for `ms`, then the gap before the command. */
  async function restOfPage(t: ReturnType<typeof setup>, ms: number): Promise<void> {
    t.fe.emit({ kind: 'carrier', on: true });
    await t.clock.advance(ms);
    t.fe.emit({ kind: 'carrier', on: false });
    await t.clock.advance(75);
  }

  it('non-ECM: the command 20 s after the carrier loss is answered with RTN: the page came without RTC, cut short', async () => {
    const t = await toPage(dcs({}));
    const coded = encodeMH(PAGE); // form 'fax': ends in RTC
    t.fe.emit({ kind: 'carrier', on: true });
    t.fe.emit({ kind: 'image-data', data: coded.subarray(0, coded.length >> 1) });
    t.fe.emit({ kind: 'image-end' });
    t.fe.emit({ kind: 'carrier', on: false });
    await restOfPage(t, 20_000);
    expect(t.fe.sent().at(-1), 'TM-05.01 no DCN while the page still came').toBe('CFR');
    t.fe.emit({ kind: 'carrier', on: true });
    t.fe.emit(hdlc('FF C8 F4')); // EOP
    t.fe.emit({ kind: 'carrier', on: false });
    await t.clock.advance(0);
    // The lines that came are all good, but half a page is not the page: the sender is asked
    // to send it again rather than told it was received (spandsp's copy_quality() would say MCF).
    expect(t.fe.sent().at(-1), 'TM-05.02 the command answered').toBe('RTN');
    t.session.abort();
    expect(await t.session.result, 'TM-05.03 no page kept').toMatchObject({ pages: 0 });
  });

  it('non-ECM: a whole page (RTC) followed by a stray signal is confirmed as usual', async () => {
    const t = await toPage(dcs({}));
    t.fe.emit({ kind: 'carrier', on: true });
    t.fe.emit({ kind: 'image-data', data: encodeMH(PAGE) });
    t.fe.emit({ kind: 'image-end' });
    t.fe.emit({ kind: 'carrier', on: false });
    await restOfPage(t, 2_000);
    t.fe.emit({ kind: 'carrier', on: true });
    t.fe.emit(hdlc('FF C8 F4')); // EOP
    t.fe.emit({ kind: 'carrier', on: false });
    await t.clock.advance(0);
    expect(t.fe.sent().at(-1), 'TM-05.09').toBe('MCF');
    t.fe.emit(hdlc('FF C8 DF'));
    expect(await t.session.result, 'TM-05.10').toMatchObject({ completion: 'T30_ERR_OK', pages: 1 });
  });

  it('ECM: PPS 20 s after the burst lost its carrier is answered with PPR for the frames missed', async () => {
    const t = await toPage(dcs({ coding: 'mmr', ecm: true }));
    const block = ecmBlocks(encodeMMR(textPage(1728, 400, 6)), 256)[0]!;
    expect(block.length).toBeGreaterThan(4);
    t.fe.emit({ kind: 'carrier', on: true });
    for (const f of block.slice(0, 3)) t.fe.emit(hdlc(f));
    t.fe.emit({ kind: 'carrier', on: false }); // no RCP: the carrier was lost
    await restOfPage(t, 20_000);
    expect(t.fe.sent().at(-1), 'TM-05.04 no DCN while the burst still came').toBe('CFR');
    t.fe.emit({ kind: 'carrier', on: true });
    t.fe.emit(hdlc(ppsFrame({ fcf2: 'EOP', page: 0, block: 0, frames: block.length }, 1)));
    await t.clock.advance(0);
    expect(t.fe.sent().at(-1), 'TM-05.05').toBe('PPR');
    t.session.abort();
    await t.session.result;
  });

  it('T2 still runs out 6 s after the line went quiet: −3107', async () => {
    const t = await toPage(dcs({}));
    t.fe.emit({ kind: 'carrier', on: true });
    t.fe.emit({ kind: 'image-data', data: encodeMH(PAGE).subarray(0, 400) });
    t.fe.emit({ kind: 'image-end' });
    t.fe.emit({ kind: 'carrier', on: false });
    await restOfPage(t, 20_000);
    await t.clock.advance(5_999 - 75);
    expect(t.session.finished, 'TM-05.06').toBe(false);
    await t.clock.advance(1);
    expect(t.fe.sent().at(-1), 'TM-05.07 DCN at T2').toBe('DCN');
    expect(await t.session.result, 'TM-05.08').toMatchObject({ completion: 'T30_ERR_RX_T2EXPMPS', code: -3107 });
  });
});

describe('TM-06 T2 while listening for a page whose training was missed: the burst holds it, within a bound', () => {
  // Under load the receiver can miss a burst's training (docs/benchmarks.md audio-hog): its fast
  // receiver reports nothing while the burst plays, the audio front end reports the signal as
  // 'line-signal'. T2 must count from the end of it; then the far end's command after the burst
  // is answered as for a page or block that did not come. And an endless signal must not hold
  // T2 for ever: holdLimitMs (src/t30/hold.ts), 140 s at 4800 bit/s.
  const HOLD_MS = holdLimitMs(4800);

  /** A burst we did not train on: `ms` of signal, then the gap before the command. */
  async function missedBurst(t: ReturnType<typeof setup>, ms: number): Promise<void> {
    t.fe.emit({ kind: 'line-signal', on: true });
    await t.clock.advance(ms);
    t.fe.emit({ kind: 'line-signal', on: false });
    await t.clock.advance(75);
  }

  it('the bound is one ECM block of 256 frames of 256 octets at the rate', () => {
    expect(HOLD_MS).toBeGreaterThan(130_000); // 4800 bit/s
    expect(holdLimitMs(14_400)).toBeLessThan(HOLD_MS / 2);
  });

  it('ECM: PPS after a 30 s burst we missed is answered with PPR for every frame, not T2', async () => {
    const t = await toPage(dcs({ coding: 'mmr', ecm: true }));
    await missedBurst(t, 30_000);
    expect(t.fe.sent().at(-1), 'TM-06.01 no DCN while the burst played').toBe('CFR');
    t.fe.emit({ kind: 'line-signal', on: true }); // the PPS's own V.21 signal
    t.fe.emit(hdlc(ppsFrame({ fcf2: 'EOP', page: 0, block: 0, frames: 12 }, 1)));
    await t.clock.advance(0);
    expect(t.fe.sent().at(-1), 'TM-06.02').toBe('PPR');
    const ppr = t.fe.commands.filter((c) => c.kind === 'send-hdlc').at(-1)!;
    const map = ppr.kind === 'send-hdlc' ? ppr.frames[0]!.subarray(3) : new Uint8Array();
    expect([...map], 'TM-06.03 every frame asked for').toEqual(new Array(32).fill(0xff));
    t.session.abort();
    await t.session.result;
  });

  it('non-ECM: MPS after a page we missed is answered RTN, not our MCF to the page before repeated', async () => {
    const t = await toPage(dcs({}));
    t.fe.emit({ kind: 'carrier', on: true });
    t.fe.emit({ kind: 'image-data', data: encodeMH(PAGE) });
    t.fe.emit({ kind: 'image-end' });
    t.fe.emit({ kind: 'carrier', on: false });
    t.fe.emit(hdlc('FF C8 F2')); // MPS
    await t.clock.advance(0);
    expect(t.fe.sent().at(-1)).toBe('MCF');
    await missedBurst(t, 20_000);
    expect(t.fe.sent().at(-1), 'TM-06.04 no DCN while the page played').toBe('MCF');
    t.fe.emit({ kind: 'line-signal', on: true });
    t.fe.emit(hdlc('FF C8 F2')); // MPS after page 2
    await t.clock.advance(0);
    expect(t.fe.sent().at(-1), 'TM-06.05 the missed page is asked for again').toBe('RTN');
    t.session.abort();
    expect(await t.session.result, 'TM-06.06 only the first page kept').toMatchObject({ pages: 1 });
  });

  it('non-ECM: MPS repeated with no page before it (our MCF was lost) is answered MCF again', async () => {
    const t = await toPage(dcs({}));
    t.fe.emit({ kind: 'carrier', on: true });
    t.fe.emit({ kind: 'image-data', data: encodeMH(PAGE) });
    t.fe.emit({ kind: 'image-end' });
    t.fe.emit({ kind: 'carrier', on: false });
    t.fe.emit(hdlc('FF C8 F2')); // MPS
    await t.clock.advance(0);
    await t.clock.advance(3_000);
    t.fe.emit({ kind: 'line-signal', on: true }); // the repeated MPS's own signal
    t.fe.emit(hdlc('FF C8 F2'));
    await t.clock.advance(0);
    expect(t.fe.sent().slice(-2), 'TM-06.07').toEqual(['MCF', 'MCF']);
    t.session.abort();
    expect(await t.session.result).toMatchObject({ pages: 1 });
  });

  it('non-ECM: a command we could not read (flags heard) before the repeated MPS is no missed page: MCF again', async () => {
    const t = await toPage(dcs({}));
    t.fe.emit({ kind: 'carrier', on: true });
    t.fe.emit({ kind: 'image-data', data: encodeMH(PAGE) });
    t.fe.emit({ kind: 'image-end' });
    t.fe.emit({ kind: 'carrier', on: false });
    t.fe.emit(hdlc('FF C8 F2')); // MPS
    await t.clock.advance(0);
    await t.clock.advance(3_000);
    t.fe.emit({ kind: 'line-signal', on: true }); // MPS again, corrupt: not passed on
    await t.clock.advance(1_500);
    t.fe.emit({ kind: 'line-signal', on: false, flags: true });
    await t.clock.advance(3_000);
    t.fe.emit({ kind: 'line-signal', on: true });
    t.fe.emit(hdlc('FF C8 F2')); // and a third time
    await t.clock.advance(0);
    expect(t.fe.sent().slice(-2), 'TM-06.18').toEqual(['MCF', 'MCF']);
    t.session.abort();
    expect(await t.session.result).toMatchObject({ pages: 1 });
  });

  it('T2 still runs out 6 s after a missed burst ends: −3107', async () => {
    const t = await toPage(dcs({ coding: 'mmr', ecm: true }));
    await missedBurst(t, 30_000);
    await t.clock.advance(5_999 - 75);
    expect(t.session.finished, 'TM-06.08').toBe(false);
    await t.clock.advance(1);
    expect(await t.session.result, 'TM-06.09').toMatchObject({ completion: 'T30_ERR_RX_T2EXPFAX', code: -3107 });
  });

  it('an endless signal holds T2 for the bound only, then T2 counts: −3107 at bound + 6 s', async () => {
    const t = await toPage(dcs({ coding: 'mmr', ecm: true }));
    t.fe.emit({ kind: 'line-signal', on: true });
    await t.clock.advance(HOLD_MS + 5_999);
    expect(t.session.finished, 'TM-06.10').toBe(false);
    await t.clock.advance(1);
    expect(t.fe.sent().at(-1), 'TM-06.11 DCN').toBe('DCN');
    expect(await t.session.result, 'TM-06.12').toMatchObject({ completion: 'T30_ERR_RX_T2EXPFAX', code: -3107 });
    expect(t.clock.pending(), 'TM-06.13 no timer left behind').toBe(0);
  });

  it('signals that come and go hold T2 for the bound in all, counted from the first', async () => {
    const t = await toPage(dcs({}));
    for (let ms = 0; ms < HOLD_MS; ms += 5_000) {
      t.fe.emit({ kind: 'line-signal', on: true });
      await t.clock.advance(4_000);
      t.fe.emit({ kind: 'line-signal', on: false });
      await t.clock.advance(1_000);
    }
    t.fe.emit({ kind: 'line-signal', on: true });
    await t.clock.advance(6_000);
    expect(await t.session.result, 'TM-06.14').toMatchObject({ completion: 'T30_ERR_RX_T2EXPFAX' });
  });

  it('after a page: an endless signal ends the wait for the command at bound + 6 s: −3107', async () => {
    const t = await toPage(dcs({}));
    t.fe.emit({ kind: 'carrier', on: true });
    t.fe.emit({ kind: 'image-data', data: encodeMH(PAGE).subarray(0, 400) });
    t.fe.emit({ kind: 'image-end' });
    t.fe.emit({ kind: 'carrier', on: false });
    t.fe.emit({ kind: 'carrier', on: true }); // V.21's detector: the rest of the page, for ever
    await t.clock.advance(HOLD_MS + 5_999);
    expect(t.session.finished, 'TM-06.15').toBe(false);
    await t.clock.advance(1);
    expect(await t.session.result, 'TM-06.16').toMatchObject({ completion: 'T30_ERR_RX_T2EXPMPS', code: -3107 });
  });

  it('a page that trains after a stray signal is not cut off by the bound however long it lasts', async () => {
    const t = await toPage(dcs({}));
    await missedBurst(t, 1_000);
    t.fe.emit({ kind: 'carrier', on: true });
    for (let s = 0; s < 3 * HOLD_MS; s += 10_000) {
      t.fe.emit({ kind: 'image-data', data: new Uint8Array(100) });
      await t.clock.advance(10_000);
    }
    expect(t.session.finished, 'TM-06.17').toBe(false);
    t.session.abort();
    await t.session.result;
  });
});
