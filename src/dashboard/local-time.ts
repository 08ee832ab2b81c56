// Times typed in the browser's zone. A form with a `datetime-local` or `date` input carries a
// hidden field that live.js fills with the browser's offset (Date#getTimezoneOffset: minutes
// to add to local time to get UTC, e.g. -60 in Paris in winter). Without the script the field
// stays empty and the time is read as UTC, which the form then says.

interface TimezoneOffset {
  /** The field as received ('' when absent or invalid). */
  text: string;
  /** Milliseconds to add to a local wall-clock time read as UTC to get the instant. */
  ms: number;
}

/** Offsets on Earth run from UTC−12 to UTC+14. */
const MAX_OFFSET_MIN = 14 * 60;

export function timezoneOffset(v: unknown): TimezoneOffset {
  if (typeof v !== 'string' || !/^-?\d{1,3}$/.test(v.trim())) return { text: '', ms: 0 };
  const min = Number(v.trim());
  return Math.abs(min) > MAX_OFFSET_MIN ? { text: '', ms: 0 } : { text: String(min), ms: min * 60_000 };
}

/**
 * A datetime-local value ("2026-11-27T09:30", seconds optional) as ISO 8601 UTC, moved by the
 * browser's offset; anything else is returned as typed, for the API's own check of send_at.
 */
export function localToIso(value: string, offset: TimezoneOffset): string {
  const t = value.trim();
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?$/.exec(t);
  if (!m) return t;
  const wall = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6] ?? 0));
  if (Number.isNaN(wall)) return t;
  return new Date(wall + offset.ms).toISOString().replace('.000Z', 'Z');
}
