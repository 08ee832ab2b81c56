// V17Rx's per-sample loop (`run`) must not be deoptimized when a new call brings new handlers.
// A call's front end gives its receiver its own closures (putBit, onStatus); a callback inlined
// into `run` was compiled against the first call's closure, and the second call's deoptimized the
// loop ("wrong call target"). In about one process in five V8 then left `run` unoptimized for good:
// every double in the loop boxed (184 MB of garbage a 10-page call) and the call 1.5× slower
// (native-free-dsp/README.md, session 19). Four receptions of three bursts each, every one with new
// closures, in a child Node with V8's tracing on: once `run` is optimized, it is never deoptimized
// in a later reception.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const dir = mkdtempSync(join(tmpdir(), 'faxstack-v17-deopt-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const CHILD = `
import { PrbsGenerator, V17Rx, V17Tx } from ${JSON.stringify(join(ROOT, 'native-free-dsp', 'index.js'))};
const BURST = 16000, GAP = 1600, BLOCK = 160;
const g = new PrbsGenerator({ pattern: 'prbs11' });
const one = new Int16Array(BURST + GAP);
new V17Tx({ bitRate: 14400, getBit: g.getBit }).tx(one.subarray(0, BURST));
const audio = new Int16Array(one.length * 3);
for (let k = 0; k < 3; k++) audio.set(one, k * one.length);
for (let r = 0; r < 4; r++) {
  console.log('=== reception ' + r);
  let trained = 0;
  let ones = 0;
  const rx = new V17Rx({ bitRate: 14400, putBit: (b) => { ones += b; }, onStatus: (s) => { if (s === 'trained') trained++; } });
  for (let i = 0; i < audio.length; i += BLOCK) rx.rx(audio.subarray(i, i + BLOCK));
  console.log('trained ' + trained + ' ones ' + ones);
}
`;

const exec = promisify(execFile);

describe('V17Rx per-sample loop and new handlers', () => {
  it('stays optimized when each reception brings new closures', async () => {
    const script = join(dir, 'child.mts');
    writeFileSync(script, CHILD);
    const { stdout } = await exec(process.execPath, ['--trace-opt', '--trace-deopt', '--trace-file-names', '--import', 'tsx', script], { cwd: ROOT, maxBuffer: 64 << 20 });
    const receptions = stdout.split(/^=== reception \d+$/m).slice(1);
    expect(receptions).toHaveLength(4);
    // Every reception trained on all three bursts (the same audio, so the same bits).
    const results = receptions.map((r) => /^trained (\d+) ones (\d+)$/m.exec(r)?.slice(1));
    expect(results.map((r) => r?.[0])).toEqual(['3', '3', '3', '3']);
    expect(new Set(results.map((r) => r?.[1])).size).toBe(1);
    const run = /<JSFunction run <[^>]*v17-rx\.ts>/;
    const lines = (r: string) => r.split('\n').filter((l) => run.test(l));
    // From the first reception in which V8 finished optimizing `run` (the first, unless a loaded
    // machine delays its compiler thread), every later reception brings closures it has not seen.
    const first = receptions.findIndex((r) => lines(r).some((l) => l.startsWith('[completed optimizing')));
    expect(first).toBeGreaterThanOrEqual(0);
    const later = receptions.slice(first + 1).flatMap(lines).filter((l) => l.startsWith('[bailout'));
    expect(later).toEqual([]);
  }, 60_000);
});
