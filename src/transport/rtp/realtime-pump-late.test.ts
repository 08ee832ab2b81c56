// The real-time pump when its timer runs late and the far end's frames are still unread in a real
// UDP socket (Node runs timers before it polls sockets): the blocks caught up must play those
// frames, not silence. Pacing on a LineClock driven by the test, so the late timer fires at a
// known point, synchronously, with the datagrams already queued on the loopback socket.
import { afterEach, describe, expect, it } from 'vitest';
import { TagPort, tagValue } from '../../../test/kit/tag-port.js';
import { openUdpTransport, type UdpTransport } from '../t38/index.js';
import { AudioEncoder } from './audio-codec.js';
import { decodeRtp } from './rtp.js';
import { LineClock } from './line-clock.js';
import { startAudioPump, type AudioPump } from './pump.js';

const open: { close(): void }[] = [];
afterEach(() => {
  for (const o of open.splice(0)) o.close();
});

async function rig(lineClock?: LineClock) {
  const pacing = new LineClock(0);
  const rx = await openUdpTransport({ bindHost: '127.0.0.1' });
  const tx: UdpTransport = await openUdpTransport({ remoteHost: '127.0.0.1', remotePort: rx.local.port });
  open.push(tx, rx);
  const port = new TagPort('pcmu');
  const pump: AudioPump = startAudioPump({ mode: 'realtime', port, transport: rx, codec: 'pcmu', role: 'answerer', clock: pacing, jitterMs: 0, ...(lineClock ? { lineClock } : {}) });
  open.push({ close: () => pump.stop() });
  const encoder = new AudioEncoder({ codec: 'pcmu', ssrc: 1, initialSeq: 0, initialTimestamp: 0 });
  const send = (tag: number) => tx.send(encoder.encode(new Int16Array(160).fill(tagValue('pcmu', tag))));
  const heard = (n: number) => new Promise<void>((resolve) => (port.onBlock = (b) => b >= n && resolve()));
  return { pacing, port, pump, send, heard };
}

describe('realtime pump behind a late timer', () => {
  it('reads the socket before it plays silence for the blocks it catches up', async () => {
    const { pacing, port, pump, send, heard } = await rig();
    const first = heard(1);
    pacing.advance(0); // block 0, before anything was sent: silence
    await first;
    for (let tag = 1; tag <= 10; tag++) send(tag);
    // The frames are queued on the socket, unread; the timer fires 200 ms late: blocks 1..10 due.
    const rest = heard(11);
    pacing.advance(200);
    await rest;
    expect(port.blocks).toEqual([0, ...port.tags(1, 10)]);
    expect(pump.stats).toMatchObject({ lateBlocks: 9, framesReceived: 10 });
    expect(pump.stats.buffer).toMatchObject({ lost: 0, late: 0, underruns: 0 });
  });

  /** A pump whose port sends a signal (1000 + block number) except in `quiet` blocks; what reaches the far end. */
  async function sender(quiet: (k: number) => boolean, expected: number) {
    const pacing = new LineClock(0);
    const rx = await openUdpTransport({ bindHost: '127.0.0.1' });
    const far = await openUdpTransport({ remoteHost: '127.0.0.1', remotePort: rx.local.port });
    open.push(far, rx);
    let block = 0;
    const port = {
      process: (_: Int16Array, tx: Int16Array) => {
        const k = block++;
        tx.fill(quiet(k) ? 0 : 1000 + k);
      },
    };
    const pump = startAudioPump({ mode: 'realtime', port, transport: rx, codec: 'pcmu', role: 'answerer', clock: pacing, jitterMs: 0, encoder: { initialSeq: 100, initialTimestamp: 0 } });
    open.push({ close: () => pump.stop() });
    const got: [number, number, boolean][] = [];
    const all = new Promise<void>((resolve) => far.onMessage((d) => {
      const r = decodeRtp(d);
      if (r.ok) got.push([r.packet.sequenceNumber, r.packet.timestamp / 160, r.packet.marker]);
      if (got.length === expected) resolve();
    }));
    far.send(new AudioEncoder({ codec: 'pcmu' }).encode(new Int16Array(160))); // the answerer learns where to send
    while (pump.stats.framesReceived === 0) await new Promise((r) => setImmediate(r)); // one turn of I/O at a time
    return { pacing, pump, got, all };
  }

  it('leaves out the late blocks of its own silence past a gap\'s first 200 ms and sends its late signal, numbered without a gap', async () => {
    // Blocks 1..15 are silence: 1..10 (200 ms) the start of the gap, sent; 11..15 left out.
    const { pacing, pump, got, all } = await sender((k) => k >= 1 && k <= 15, 16);
    pacing.advance(0); // block 0, on time: sent
    pacing.advance(400); // blocks 1..20 due, 1..19 late
    await all;
    const seq = (i: number, block: number, marker = false): [number, number, boolean] => [100 + i, block, marker];
    expect(got).toEqual([seq(0, 0, true), ...Array.from({ length: 10 }, (_, i) => seq(1 + i, 1 + i)), seq(11, 16, true), seq(12, 17), seq(13, 18), seq(14, 19), seq(15, 20)]);
    expect(pump.stats).toMatchObject({ lateBlocks: 19, suppressedBlocks: 5, framesSent: 16 });
  });

  it('sends the pause between two signals of its own in full when it is late (DCS, 75 ms, TCF)', async () => {
    const { pacing, pump, got, all } = await sender((k) => k >= 3 && k <= 6, 11);
    pacing.advance(0);
    pacing.advance(200); // blocks 1..10 due, 1..9 late: the 4 blocks of silence between 2 and 7 go too
    await all;
    expect(got.map(([seqNo, block]) => [seqNo - 100, block])).toEqual(Array.from({ length: 11 }, (_, i) => [i, i]));
    expect(pump.stats).toMatchObject({ lateBlocks: 9, suppressedBlocks: 0, framesSent: 11 });
  });

  it('moves its line clock on by each block processed, firing timers between blocks', async () => {
    const line = new LineClock(1000);
    const { pacing, heard } = await rig(line);
    const fired: number[] = [];
    line.setTimer(30, () => fired.push(line.now()));
    line.setTimer(10, () => fired.push(line.now()));
    const done = heard(3);
    pacing.advance(40); // blocks 0, 1, 2
    await done;
    expect(fired).toEqual([1010, 1030]);
    expect(line.now()).toBe(1060);
  });
});
