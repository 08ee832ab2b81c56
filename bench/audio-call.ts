// A whole 10-page fax call over audio: our T.30 on our modems (two AudioFrontEnds in one
// process, each 20 ms block of one handed to the other, line time on a LineClock as on a line), against
// spandsp's own terminal-to-terminal time for the same pages (bench/spandsp/audio_call.c: two
// fax_state_t handing fax_tx() blocks to fax_rx()). Same TIFF, ECM on and off, best of 3 warm calls
// (bench/lib/call-bench.ts), the first call of the process beside them.
import { AudioFrontEnd } from '../src/transport/audio/index.js';
import { LineClock } from '../src/transport/rtp/index.js';
import { runCallBench } from './lib/call-bench.js';
import type { BenchReport } from './run.js';

export function run(): Promise<BenchReport> {
  return runCallBench({
    bench: 'audio-call',
    anchorSource: 'audio_call.c',
    title: 'One 10-page fax call over audio (Standard, text pages, MMR TIFF in), two terminals in one process, 20 ms blocks',
    anchorLabel: 'spandsp 0.0.6 fax_state_t to fax_state_t',
    rig: () => {
      const clock = new LineClock(0);
      const tx = new AudioFrontEnd();
      const rx = new AudioFrontEnd();
      const toRx = new Int16Array(160);
      const toTx = new Int16Array(160);
      const fromRx = new Int16Array(160);
      const fromTx = new Int16Array(160);
      return {
        clock,
        tx,
        rx,
        step: async () => {
          tx.process(toTx, fromTx);
          rx.process(toRx, fromRx);
          toRx.set(fromTx);
          toTx.set(fromRx);
          clock.advance(20);
          await undefined; // the sessions' promise callbacks
        },
      };
    },
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await run();
  console.log(r.text);
  console.log(JSON.stringify({ bench: r.bench, ...r.json }));
}
