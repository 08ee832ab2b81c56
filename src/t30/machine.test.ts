// The machine never throws and always ends exactly once, whatever the far end sends: random
// sequences of valid, corrupt and out-of-place inputs against both roles.
import { describe, expect, it } from 'vitest';
import { tsb } from '../../test/conformance/tsb85.js';
import { rng, textPage } from '../../test/vectors/synthetic-pages.js';
import { encodeDcs, encodeDis, DIS_DEFAULTS } from './dis.js';
import { buildFrame, Fcf, fcfByte } from './fcf.js';
import { createT30, step } from './machine.js';
import { missingEntries } from './actions.js';
import type { T30Config, T30Input, TimerName } from './types.js';

const PAGE = textPage(1728, 40, 1);
const DIS_ECM = buildFrame(Fcf.DIS, encodeDis({ ...DIS_DEFAULTS, readyToReceive: true, modems: { v27ter: true, v29: true, v17: true }, ecm: true, t6: true, twoD: true }));
const DCS_ECM = buildFrame(fcfByte('DCS', 1), encodeDcs({ receive: true, modem: { modulation: 'v17', bitRate: 14400 }, resolution: 'R8_FINE', coding: 'mmr', width: 'a4', length: 'a4', scanLineMs: 0, ecm: true, ecmFrameSize: 256, subaddress: false, senderId: false }));

const FRAMES: Uint8Array[] = [
  tsb('FF C8 01 00 50 00'), DIS_ECM, tsb('FF C8 C1 00 50 00'), DCS_ECM,
  ...['21', '22', '23', '31', '32', '33', '35', '34', '37', '38', '3D', '58', '5F', '72', '74', '71', '76', '48 00 14', '73 74', '7D 74 00 00 03', '7D 00 00 00 03', '7D 72 80 00 01']
    .map((h) => tsb(`FF C8 ${h}`)),
  buildFrame(fcfByte('PPR', 0), new Uint8Array(32).fill(0x0f)),
  buildFrame(Fcf.FCD, [0, 1, 2, 3], false),
  buildFrame(Fcf.FCD, [3, 9, 9], false),
  buildFrame(Fcf.RCP, [], false),
  tsb('FF C0 C2 9C 1C EC 6C'),
  Uint8Array.of(0xff, 0x13),
  Uint8Array.of(0xff, 0x13, 0x77, 1, 2, 3),
  tsb('FF C8 7D'),
  tsb('FF C8 3D 00'),
];
const TIMERS: TimerName[] = ['T1', 'T2', 'T3', 'T4', 'T5'];

function randomInput(rand: () => number): T30Input {
  const r = rand();
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  if (r < 0.4) return { kind: 'hdlc', frame: pick(FRAMES), crcOk: rand() > 0.1 };
  if (r < 0.6) return { kind: 'tx-done' };
  if (r < 0.7) return { kind: 'timeout', timer: pick(TIMERS) };
  if (r < 0.8) return { kind: 'image-data', data: rand() < 0.5 ? new Uint8Array(2000) : Uint8Array.from({ length: 300 }, () => Math.floor(rand() * 256)) };
  if (r < 0.85) return { kind: 'image-end' };
  if (r < 0.9) return { kind: 'carrier', on: rand() < 0.5 };
  if (r < 0.95) return { kind: 'rx-ready', ready: rand() < 0.7 };
  if (r < 0.97) return { kind: 'tone', tone: 'ced' };
  if (r < 0.985) return { kind: 'abort' };
  return { kind: 'line-down', reason: 'fuzz' };
}

describe('machine under random input', () => {
  const configs: T30Config[] = [
    { role: 'caller', source: { count: 3, get: () => PAGE } },
    { role: 'caller', ecm: false, source: { count: 2, get: () => PAGE } },
    { role: 'answerer' },
    { role: 'answerer', ecm: false },
  ];
  it.each(configs.flatMap((cfg, c) => Array.from({ length: 25 }, (_, seed) => ({ cfg, seed: seed + 100 * c }))))('seed $seed', ({ cfg, seed }) => {
    const rand = rng(seed);
    let s = createT30(cfg);
    let dones = 0;
    s = step(s, { kind: 'start' }).state;
    for (let i = 0; i < 400; i++) {
      const before = s.state;
      const out = step(s, randomInput(rand));
      if (before === 'CALL_FINISHED') expect(out.actions).toEqual([]);
      dones += out.actions.filter((a) => a.kind === 'done').length;
      s = out.state;
    }
    expect(dones).toBeLessThanOrEqual(1);
    if (s.state === 'CALL_FINISHED') expect(dones).toBe(1);
    // Whatever happened, a line drop ends it.
    const end = step(s, { kind: 'line-down', reason: 'end' });
    if (s.state !== 'CALL_FINISHED') expect(end.actions.at(-1)).toMatchObject({ kind: 'done' });
  });

  it('leaves the state it was given untouched', () => {
    const s0 = createT30({ role: 'answerer' });
    const frozen = JSON.stringify(s0);
    const s1 = step(s0, { kind: 'start' }).state;
    expect(JSON.stringify(s0)).toBe(frozen);
    expect(s1).not.toBe(s0);
  });
});

describe('phase entries (actions.ts)', () => {
  it('every phase has provided its entries once the machine is loaded', () => {
    expect(missingEntries()).toEqual([]);
  });
});
