// Which T.38 indicator and data type stand for which T.30 modem setting (the t30-indicator
// and t30-data values of T.38 Annex A name the modulation and rate), and how long the
// real modems take, for pacing a T.38 terminal as a fax machine on a line would be paced.
import type { ModemSpec } from '../../t30/index.js';
import { T38Error } from './errors.js';
import type { T38DataType, T38Indicator } from './ifp.js';

const RATES: Record<ModemSpec['modulation'], readonly number[]> = {
  v27ter: [2400, 4800],
  v29: [7200, 9600],
  v17: [7200, 9600, 12000, 14400],
};

/** Throws T38Error('bad_parameter') for a modulation/rate pair no modem has. */
export function checkModem(m: ModemSpec): void {
  if (!RATES[m.modulation]?.includes(m.bitRate)) throw new T38Error('bad_parameter', `no ${m.modulation} modem at ${m.bitRate} bit/s`);
}

/** The training indicator of a high-speed modem (V.17 short or long training). */
export function trainingIndicator(m: ModemSpec): T38Indicator {
  checkModem(m);
  if (m.modulation === 'v27ter') return m.bitRate === 2400 ? 'v27-2400-training' : 'v27-4800-training';
  if (m.modulation === 'v29') return m.bitRate === 7200 ? 'v29-7200-training' : 'v29-9600-training';
  return `v17-${m.bitRate as 7200 | 9600 | 12000 | 14400}-${m.shortTrain ? 'short' : 'long'}-training`;
}

/** The t30-data type of V.21 or of a high-speed modem. */
export function dataTypeFor(m: 'v21' | ModemSpec): T38DataType {
  if (m === 'v21') return 'v21';
  checkModem(m);
  if (m.modulation === 'v27ter') return m.bitRate === 2400 ? 'v27-2400' : 'v27-4800';
  if (m.modulation === 'v29') return m.bitRate === 7200 ? 'v29-7200' : 'v29-9600';
  return `v17-${m.bitRate as 7200 | 9600 | 12000 | 14400}`;
}

const DATA_RATE: Partial<Record<T38DataType, number>> = {
  v21: 300, 'v27-2400': 2400, 'v27-4800': 4800, 'v29-7200': 7200, 'v29-9600': 9600,
  'v17-7200': 7200, 'v17-9600': 9600, 'v17-12000': 12000, 'v17-14400': 14400, 'v33-12000': 12000, 'v33-14400': 14400,
};

/** Bit rate of a data type, undefined for the V.8/V.34 types (no fixed rate). */
export function bitRateOf(t: T38DataType): number | undefined {
  return DATA_RATE[t];
}

/** The high-speed modem an indicator announces, if it is a fax training indicator. */
export function modemOfIndicator(ind: T38Indicator): ModemSpec | undefined {
  const m = /^v(27|29|17)-(\d+)-(?:(short|long)-)?training$/.exec(ind);
  if (!m) return undefined;
  const modulation = m[1] === '27' ? 'v27ter' : m[1] === '29' ? 'v29' : 'v17';
  const spec: ModemSpec = { modulation, bitRate: Number(m[2]) as ModemSpec['bitRate'] };
  if (m[3] === 'short') spec.shortTrain = true;
  return spec;
}

/**
 * Training time of each high-speed modem in ms: the length of its training sequence at the
 * start of a transmission (V.27 ter: longer at 2400 than at 4800; V.29; V.17 long training
 * and the short training of T.30 5.3.2). A paced T.38 terminal waits this long after the
 * indicator before data, as the far gateway needs it to train its modem.
 */
export function trainingMs(ind: T38Indicator): number {
  switch (ind) {
    case 'v27-2400-training': return 943;
    case 'v27-4800-training': return 708;
    case 'v29-7200-training':
    case 'v29-9600-training': return 234;
    case 'v17-7200-short-training':
    case 'v17-9600-short-training':
    case 'v17-12000-short-training':
    case 'v17-14400-short-training': return 142;
    case 'v17-7200-long-training':
    case 'v17-9600-long-training':
    case 'v17-12000-long-training':
    case 'v17-14400-long-training': return 1393;
    default: return 0;
  }
}

/** V.21 preamble before the first HDLC frame: 1 s of flags (T.30 5.3.1). */
export const V21_PREAMBLE_MS = 1000;
/** Flags between training and the first ECM frame at a high-speed rate. */
export const HS_HDLC_FLAGS_MS = 200;
/** CED (2100 Hz answer tone) time: T.30 asks 2.6-4 s. */
export const CED_MS = 3000;
/** CNG (1100 Hz calling tone) on time: 0.5 s on, 3 s off in T.30; this is the on part. */
export const CNG_MS = 500;
