import { describe, expect, it } from 'vitest';
import { ToneTx } from '../tones/tone-tx.js';
import {
  amplitudeToDbm0,
  DBM0_RMS,
  dbm0ToAmplitude,
  dbm0ToDbov,
  dbm0ToMeanSquare,
  dbm0ToRms,
  dbovToDbm0,
  levelDbm0,
  meanSquareToDbm0,
  rmsToDbm0,
  SILENCE_DBM0,
} from './levels.js';
import { PowerMeter } from './power-meter.js';

describe('levels', () => {
  it('puts a full-scale sine at T_max: +3.14 dBm0 (A-law), +3.17 dBm0 (µ-law)', () => {
    expect(amplitudeToDbm0(32768, 'alaw')).toBeCloseTo(3.14, 6);
    expect(amplitudeToDbm0(32636, 'ulaw')).toBeCloseTo(3.17, 6);
    expect(DBM0_RMS.alaw).toBeCloseTo(16141.2, 0);
    expect(DBM0_RMS.ulaw).toBeCloseTo(16020.7, 0);
  });

  it.each(['alaw', 'ulaw'] as const)('%s: conversions are inverse pairs', (law) => {
    for (const d of [-60, -43, -13, 0, 3]) {
      expect(rmsToDbm0(dbm0ToRms(d, law), law)).toBeCloseTo(d, 9);
      expect(meanSquareToDbm0(dbm0ToMeanSquare(d, law), law)).toBeCloseTo(d, 9);
      expect(amplitudeToDbm0(dbm0ToAmplitude(d, law), law)).toBeCloseTo(d, 9);
      expect(dbovToDbm0(dbm0ToDbov(d, law), law)).toBeCloseTo(d, 9);
    }
    expect(dbm0ToDbov(0, law)).toBeCloseTo(law === 'alaw' ? -6.15 : -6.18, 2);
    expect(rmsToDbm0(0, law)).toBe(SILENCE_DBM0);
  });
});

describe('PowerMeter', () => {
  it.each([
    { windowSamples: 160, levelDbm0: -10 },
    { windowSamples: 80, levelDbm0: -43 },
    { windowSamples: 8000, levelDbm0: 0 },
  ])('reads a $levelDbm0 dBm0 sine over $windowSamples samples', ({ windowSamples, levelDbm0: level }) => {
    const meter = new PowerMeter({ windowSamples });
    const buf = new Int16Array(16_000);
    new ToneTx({ freqsHz: [1000], levelDbm0: level }).tx(buf);
    meter.rx(buf);
    expect(meter.levelDbm0).toBeCloseTo(level, 1);
    expect(meter.levelDbm0).toBeCloseTo(levelDbm0(buf.subarray(buf.length - windowSamples)), 9);
    meter.rx(new Int16Array(windowSamples)); // a full window of silence
    expect(meter.levelDbm0).toBe(SILENCE_DBM0);
    meter.restart();
    expect(meter.meanSquare).toBe(0);
  });

  it('validates its arguments', () => {
    expect(() => new PowerMeter({ windowSamples: 0 })).toThrow(/PowerMeter: windowSamples must be an integer in \[1, 80000\], got 0/);
    expect(() => new PowerMeter({ windowSamples: 10, law: 'x' as never })).toThrow(/PowerMeter: law must be one of "alaw", "ulaw", got "x"/);
  });
});
