// For the no-allocation tests: what a piece of code allocates, read as the growth of V8's young
// generation (new space), where short-lived per-sample garbage lands, from a clean heap. The
// heap as a whole also grows whenever the JIT compiles (code, bytecode and feedback live in the
// old and code spaces), which made heap-wide checks fail now and then on a busy machine. A round
// during which the young generation was collected (its use went down) says nothing and is left
// out, so rounds are kept short: 2 s of audio at 8 bytes a sample is 128 KB, well inside it.
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function youngUsed(): number {
  for (const s of getHeapSpaceStatistics()) if (s.space_name === 'new_space') return s.space_used_size;
  return Number.NaN;
}

/**
 * Young-generation growth of `step` in each of `rounds` rounds (a full gc before each); rounds
 * with a collection inside are left out (the result may then have fewer entries).
 */
export function youngGrowth(rounds: number, step: (round: number) => void): number[] {
  const growth: number[] = [];
  for (let round = 0; round < rounds; round++) {
    gc();
    const before = youngUsed();
    step(round);
    const after = youngUsed();
    if (after >= before) growth.push(after - before);
  }
  return growth;
}
