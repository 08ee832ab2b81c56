import { describe, expect, it } from 'vitest';
import { localToIso, timezoneOffset } from './local-time.js';

describe('local times from the browser', () => {
  it.each([
    ['2026-11-27T09:30', '-60', '2026-11-27T08:30:00Z'], // Paris in winter
    ['2026-11-27T09:30', '300', '2026-11-27T14:30:00Z'], // New York in winter
    ['2026-11-27T23:45:10', '-330', '2026-11-27T18:15:10Z'], // India
    ['2026-11-27T09:30', '', '2026-11-27T09:30:00Z'], // no script: UTC
    ['2026-11-27T09:30', '9999', '2026-11-27T09:30:00Z'], // nonsense offset: UTC
    ['tomorrow', '-60', 'tomorrow'], // left for the API's check
  ])('%s at offset %s is %s', (local, tz, iso) => {
    expect(localToIso(local, timezoneOffset(tz))).toBe(iso);
  });
  it('keeps a valid offset as text', () => {
    expect(timezoneOffset(' -120 ')).toEqual({ text: '-120', ms: -7_200_000 });
    expect(timezoneOffset(undefined)).toEqual({ text: '', ms: 0 });
  });
});
