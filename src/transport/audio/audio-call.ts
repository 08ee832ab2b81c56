// One fax call's audio line: a UDP socket carrying raw PCM or RTP G.711 (`pcm://`, `rtp://`), an
// audio pump pacing it (real time, or lockstep: one frame answered with one frame), and the
// AudioFrontEnd that T.30 drives. The call's Clock runs in line time either way: T.30's timers
// count the samples processed (a LineClock the pump moves on by each block; in real time the
// blocks are paced by the given wall clock), so a late event loop cannot expire a timer before
// the audio that arrived in time has been heard.
//
//   const call = await openAudioCall({ url: parseAudioUrl('rtp://10.0.0.2:4000?codec=pcma'), role: 'caller', pacing: 'realtime', clock });
//   await sendOverFrontEnd(req, progress, signal, call.frontEnd, call.clock);
//   await call.close();
import { SystemClock, type Clock } from '../../shared/clock.js';
import { LINE_PACING, LineClock, startAudioPump, type AudioPump, type AudioPumpResult, type AudioUrl } from '../rtp/index.js';
import { openUdpTransport, type UdpEndpoint } from '../t38/index.js';
import { AudioFrontEnd } from './front-end.js';

export type AudioPacing = 'realtime' | 'lockstep';

interface AudioCallOptions {
  url: AudioUrl;
  /** 'caller' sends to `url`; 'answerer' listens on it and answers whoever sends first. */
  role: 'caller' | 'answerer';
  pacing: AudioPacing;
  /** Wall clock for real-time pacing (default SystemClock). */
  clock?: Clock;
  txLevelDbm0?: number;
  /** Lockstep: a caller with no answer for this long (real time) sends again (default 1000 ms). */
  stallMs?: number;
  /**
   * Lockstep: the far end is gone when nothing has arrived for this long, real time (default
   * 10 s) — without frames a lockstep line's time stands still, so no T.30 timer could say so.
   * An answerer starts counting at the first frame.
   */
  idleMs?: number;
}

interface AudioCall {
  frontEnd: AudioFrontEnd;
  /** The clock T.30 must use for this call. */
  clock: Clock;
  /** The local socket (the port actually bound when 0 was asked for). */
  local: UdpEndpoint;
  pump: AudioPump;
  /** Ends the pump (if still running) and waits for it. */
  close(): Promise<AudioPumpResult>;
}

export async function openAudioCall(o: AudioCallOptions): Promise<AudioCall> {
  const transport = await openUdpTransport(
    o.role === 'caller' ? { remoteHost: o.url.host, remotePort: o.url.port } : { bindHost: o.url.host, bindPort: o.url.port },
  );
  const frontEnd = new AudioFrontEnd(o.txLevelDbm0 === undefined ? {} : { txLevelDbm0: o.txLevelDbm0 });
  let clock: Clock;
  let pump: AudioPump;
  if (o.pacing === 'lockstep') {
    const stepped = new LineClock(Date.now());
    clock = stepped;
    pump = startAudioPump({ mode: 'lockstep', port: frontEnd, transport, codec: o.url.codec, role: o.role, clock: stepped, ...(o.stallMs ? { stallMs: o.stallMs } : {}) });
  } else {
    const wall = o.clock ?? new SystemClock();
    const line = new LineClock(wall.now());
    clock = line;
    pump = startAudioPump({ mode: 'realtime', port: frontEnd, transport, codec: o.url.codec, role: o.role, clock: wall, lineClock: line, ...LINE_PACING });
  }
  // T.30 hung up: the block in hand still goes out (the end of DCN), then the pump stops.
  frontEnd.onClose((reason) => setImmediate(() => pump.stop(reason)));
  let idle: NodeJS.Timeout | undefined;
  if (o.pacing === 'lockstep') {
    const idleMs = o.idleMs ?? 10_000;
    let seen = -1;
    // An answerer waits for its call as long as it takes (a caller may be slow to start: it
    // renders its documents first); once frames have flowed, silence means the far end is gone.
    idle = setInterval(() => {
      const n = pump.stats.framesReceived;
      if (n === seen && (n > 0 || o.role === 'caller')) frontEnd.lineDown(`no audio from the far end for ${idleMs} ms`);
      seen = n;
    }, idleMs);
    idle.unref();
  }
  void pump.done.then((r) => {
    clearInterval(idle);
    frontEnd.lineDown(r.cause === 'stopped' ? 'the line was closed' : r.reason);
  });
  return {
    frontEnd,
    clock,
    local: transport.local,
    pump,
    close: async () => {
      pump.stop('call over');
      return pump.done;
    },
  };
}
