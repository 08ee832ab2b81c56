// Root-raised-cosine pulse: the spectral shaping of the QAM/PSK fax modems (V.27ter, V.29, V.17
// leave the roll-off to the implementer; their spectra fit a 25-50 % excess bandwidth). The
// coefficient tables of the shapers in polyphase.ts are computed from these functions once per
// parameter set and shared by every instance.
//
//   rrc(t, beta)            impulse response at t symbol periods, unit energy per symbol period
//   kaiser(t, half, shape)  Kaiser window on |t| < half
//   rrcWindowed(t, beta, halfSpan)  rrc × kaiser(…, 4): the truncated pulse the tables use

/** Root-raised-cosine impulse response at t symbol periods; ∫ rrc(t)² dt = 1. */
export function rrc(t: number, beta: number): number {
  const at = Math.abs(t);
  if (at < 1e-9) return 1 - beta + (4 * beta) / Math.PI;
  if (beta > 0 && Math.abs(at - 1 / (4 * beta)) < 1e-9) {
    const a = Math.PI / (4 * beta);
    return (beta / Math.SQRT2) * ((1 + 2 / Math.PI) * Math.sin(a) + (1 - 2 / Math.PI) * Math.cos(a));
  }
  const num = Math.sin(Math.PI * t * (1 - beta)) + 4 * beta * t * Math.cos(Math.PI * t * (1 + beta));
  const den = Math.PI * t * (1 - (4 * beta * t) ** 2);
  return num / den;
}

function besselI0(x: number): number {
  let sum = 1;
  let term = 1;
  for (let k = 1; k < 60; k++) {
    term *= (x / (2 * k)) ** 2;
    sum += term;
    if (term < 1e-14 * sum) break;
  }
  return sum;
}

/** Kaiser window of the given shape on |t| < half (0 outside). */
export function kaiser(t: number, half: number, shape: number): number {
  const r = t / half;
  if (r <= -1 || r >= 1) return 0;
  return besselI0(shape * Math.sqrt(1 - r * r)) / besselI0(shape);
}

/** Window shape used for every truncated pulse of the package's modems. */
export const RRC_WINDOW_SHAPE = 4;

/** The RRC pulse truncated to |t| < halfSpan symbol periods by a Kaiser window. */
export function rrcWindowed(t: number, beta: number, halfSpan: number): number {
  return rrc(t, beta) * kaiser(t, halfSpan, RRC_WINDOW_SHAPE);
}
