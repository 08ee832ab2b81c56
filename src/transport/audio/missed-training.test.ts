// A burst whose training the receiver never hears (its start lost, as a loaded machine loses it:
// docs/benchmarks.md audio-hog): the answerer's fast receiver reports nothing for it, V.21's
// detector reports it as 'line-signal', and T.30 holds T2 while it plays (src/t30/hold.ts).
// Two AudioFrontEnds back to back in line time; the first 1.5 s of one ECM burst toward the
// answerer are silenced. The block is asked for again (PPR) and the page arrives whole.
import { describe, expect, it } from 'vitest';
import { V21Tx } from '../../../native-free-dsp/index.js';
import { firstDifference } from '../../codecs/index.js';
import { ManualClock } from '../../shared/clock.js';
import { T30Session, type FrontEndEvent, type ReceivedPage } from '../../t30/index.js';
import { textPage } from '../../../test/vectors/synthetic-pages.js';
import { AudioFrontEnd } from './front-end.js';

const BLOCK = 160;
/** Silence in place of the burst's start: the 75 ms gap and V.27 ter's training, with room. */
const LOST_MS = 1_500;

describe('a high-speed burst whose training was lost', () => {
  it('holds T2 while it plays: PPS is answered PPR for the whole block, and the page arrives', async () => {
    const clock = new ManualClock();
    const a = new AudioFrontEnd();
    const b = new AudioFrontEnd();
    // Dense enough that one block at 4800 bit/s plays for well over T2 (6 s).
    const page = textPage(1728, 1100, 3);
    const received: ReceivedPage[] = [];
    const events: string[] = [];
    b.onEvent((e: FrontEndEvent) => {
      if (e.kind === 'line-signal' || e.kind === 'carrier') events.push(`${e.kind} ${e.on ? 'on' : 'off'}`);
    });
    const answerer = new T30Session({ config: { role: 'answerer', ecm: true }, frontEnd: b, clock, onProgress: (p) => p.kind === 'page-received' && received.push(p.page) });
    const caller = new T30Session({ config: { role: 'caller', ecm: true, maxBitRate: 4800, source: { count: 1, get: () => page } }, frontEnd: a, clock });
    // The caller's bursts: silence the start of the first one on its way to the answerer.
    let bursts = 0;
    let loseFrom = -1;
    const command = a.command.bind(a);
    a.command = (cmd) => {
      if (cmd.kind === 'send-hdlc' && cmd.modem !== 'v21' && ++bursts === 1) loseFrom = clock.now();
      command(cmd);
    };
    let aOut = new Int16Array(BLOCK);
    let bOut = new Int16Array(BLOCK);
    let aIn = new Int16Array(BLOCK);
    let bIn = new Int16Array(BLOCK);
    answerer.start();
    caller.start();
    const t0 = clock.now();
    let burstMs = 0;
    while (!(caller.finished && answerer.finished) && clock.now() - t0 < 600_000) {
      a.process(aIn, aOut);
      b.process(bIn, bOut);
      [aIn, bOut] = [bOut, aIn];
      [bIn, aOut] = [aOut, bIn];
      if (loseFrom >= 0 && clock.now() - loseFrom < LOST_MS) bIn.fill(0);
      if (events.at(-1) === 'line-signal on') burstMs += BLOCK / 8;
      await clock.advance(BLOCK / 8);
    }
    const [rc, ra] = [await caller.result, await answerer.result];
    expect(ra.completion, ra.message).toBe('T30_ERR_OK');
    expect(rc.completion, rc.message).toBe('T30_ERR_OK');
    expect(bursts, 'the block was sent again').toBeGreaterThanOrEqual(2);
    expect(burstMs, 'the lost burst outlasted T2').toBeGreaterThan(6_000);
    expect(events, 'the lost burst came as a line signal, the resent one as a carrier').toEqual(expect.arrayContaining(['line-signal on', 'line-signal off', 'carrier on']));
    expect(received).toHaveLength(1);
    expect(firstDifference(received[0]!.bitmap!, page)).toBeNull();
  });
});

describe("'line-signal' while listening for a page", () => {
  /** The events of an answerer's front end listening for V.27 ter 4800 that hears `ms` of V.21 flags, then silence. */
  function hear(ms: number): string[] {
    const fe = new AudioFrontEnd();
    const events: string[] = [];
    fe.onEvent((e) => events.push(e.kind === 'line-signal' || e.kind === 'carrier' ? `${e.kind} ${e.on ? 'on' : 'off'}${e.kind === 'line-signal' && e.flags ? ' flags' : ''}` : e.kind));
    fe.command({ kind: 'set-rx', mode: { kind: 'image-hdlc', modem: { modulation: 'v27ter', bitRate: 4800 } } });
    let n = 0;
    const v21 = new V21Tx({ getBit: () => (0x7e >> (n++ & 7)) & 1, levelDbm0: -20 });
    const rx = new Int16Array(BLOCK);
    const tx = new Int16Array(BLOCK);
    for (let t = 0; t < ms + 1_000; t += BLOCK / 8) {
      if (t < ms) v21.tx(rx);
      else rx.fill(0);
      fe.process(rx, tx);
    }
    return events;
  }

  it('an echo tail or a click (60 ms) is no signal', () => {
    expect(hear(60)).toEqual([]);
  });

  it('a signal that lasts is reported on and then off, and is never taken for the carrier; V.21 flags in it say so', () => {
    expect(hear(2_000)).toEqual(['line-signal on', 'line-signal off flags']);
  });
});
