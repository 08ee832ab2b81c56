// The audio pump: drives an AudioPort (port.ts) over a DatagramTransport, one block of samples at a
// time — decode what arrives (raw PCM or RTP G.711), order it in a receive buffer, pass it through
// port.process(rx, tx), encode and send what the port produced.
//
//   const pump = startAudioPump({ port, transport, codec: 'pcmu', mode: 'realtime', role: 'caller', clock });
//   …; pump.stop();  const { cause, reason, stats } = await pump.done;
//
// Two ways of pacing the blocks:
// - 'lockstep' (lockstep-pump.ts; tests, and runs far faster than real time between two faxstack
//   ends): each frame received is answered with exactly one frame, then the pump's own SteppedClock
//   (ManualClock) is moved on by the frame's duration, so timers above run in sample time. The
//   'caller' sends the first block; a real-time watchdog (stallMs) keeps a lost datagram from
//   stopping the exchange.
// - 'realtime' (realtime-pump.ts; real lines): one block per 20 ms of the injected Clock
//   (SystemClock in production), against an absolute start time, behind a jitter buffer.
// The pump ends on stop() (the transport is closed), on the transport going away (onClose), or
// when the port throws; `done` then gives the cause, a reason in words and the stats.
import { LockstepPump } from './lockstep-pump.js';
import type { AudioPump, AudioPumpOptions } from './pump-base.js';
import { RealtimePump } from './realtime-pump.js';

export { LINE_PACING } from './realtime-pump.js';
export type { AudioPump, AudioPumpOptions, AudioPumpResult, AudioPumpStats, LockstepPumpOptions, RealtimePumpOptions, SteppedClock } from './pump-base.js';

/** Starts pumping at once; throws RtpError('bad_parameter') for options out of range. */
export function startAudioPump(opts: AudioPumpOptions): AudioPump {
  return opts.mode === 'lockstep' ? new LockstepPump(opts) : new RealtimePump(opts);
}
