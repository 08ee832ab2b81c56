// ISO 8601 / RFC 3339 date-times with an explicit zone (`Z` or `±hh:mm`). Parsed by hand after a
// strict pattern: Date.parse accepts 2026-02-30 (rolling it into March) and other lenient forms.

const ISO =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)$/;

type DateTimeResult = { ok: true; ms: number } | { ok: false; reason: string };

/** Parses `2026-03-01T09:30:00Z`, `2026-03-01T10:30:00.5+01:00`, `2026-03-01 09:30Z`, `…+0100`. */
export function parseIsoDateTime(s: string): DateTimeResult {
  const m = ISO.exec(s.trim());
  if (!m) {
    if (/^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}([.,]\d+)?)?$/.test(s.trim())) {
      return { ok: false, reason: 'has no time zone; end it with Z (UTC) or an offset such as +02:00' };
    }
    return { ok: false, reason: 'is not an ISO 8601 date-time such as 2026-03-01T09:30:00Z' };
  }
  const [year, month, day, hour, minute] = [m[1], m[2], m[3], m[4], m[5]].map(Number) as [number, number, number, number, number];
  const second = m[6] === undefined ? 0 : Number(m[6]);
  const ms = m[7] === undefined ? 0 : Math.floor(Number(`0.${m[7]}`) * 1000);
  if (month < 1 || month > 12) return { ok: false, reason: `has month ${month}` };
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day < 1 || day > daysInMonth) return { ok: false, reason: `has day ${day}, but that month has ${daysInMonth} days` };
  if (hour > 23 || minute > 59 || second > 59) return { ok: false, reason: 'has a time of day out of range' };
  let offsetMin = 0;
  if (m[8] === undefined) {
    const oh = Number(m[10]);
    const om = m[11] === undefined ? 0 : Number(m[11]);
    if (oh > 23 || om > 59) return { ok: false, reason: 'has a zone offset out of range' };
    offsetMin = (m[9] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const utc = Date.UTC(year, month - 1, day, hour, minute, second, ms) - offsetMin * 60_000;
  // Date.UTC maps years 0..99 to 1900..1999; four-digit years below 1970 are of no use here anyway.
  if (year < 1970) return { ok: false, reason: 'is before 1970' };
  return { ok: true, ms: utc };
}
