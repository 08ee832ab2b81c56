// A whole 10-page fax call in fast pacing: our T.30 + T.38 front ends, two terminals in one
// process over an in-memory link on a ManualClock, against spandsp's own terminal-to-terminal
// time for the same pages (bench/spandsp/t38_call.c: two t38_terminals handing IFP packets
// straight to each other, pacing off, 20 ms steps). Same TIFF, ECM on and off, best of 3 warm calls
// (bench/lib/call-bench.ts), the first call of the process beside them.
import { ManualClock } from '../src/shared/clock.js';
import { T38FrontEnd, createMemoryLink } from '../src/transport/t38/index.js';
import { runCallBench } from './lib/call-bench.js';
import type { BenchReport } from './run.js';

export function run(): Promise<BenchReport> {
  return runCallBench({
    bench: 't38-call',
    anchorSource: 't38_call.c',
    title: 'One 10-page fax call (Standard, text pages, MMR TIFF in), two terminals in one process, fast pacing',
    anchorLabel: 'spandsp 0.0.6 t38_terminal to t38_terminal',
    rig: () => {
      const clock = new ManualClock(0);
      const link = createMemoryLink({ clock });
      return {
        clock,
        tx: new T38FrontEnd({ transport: link.a, clock, pacing: 'fast' }),
        rx: new T38FrontEnd({ transport: link.b, clock, pacing: 'fast' }),
        step: () => clock.advance(20),
      };
    },
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await run();
  console.log(r.text);
  console.log(JSON.stringify({ bench: r.bench, ...r.json }));
}
