// Shared blocks of the high-speed fax modems (V.27ter, V.29, V.17): each a small object with a
// validating constructor, restart() and a per-sample or per-symbol method that allocates nothing.
// See each file's header for its API.
export * from './types.js';
export * from './complex.js';
export { Nco, tableCos, tableSin, COS_TABLE, TABLE_SIZE, TABLE_MASK, QUARTER, type NcoOptions } from './nco.js';
export { rrc, kaiser, rrcWindowed, RRC_WINDOW_SHAPE } from './rrc.js';
export {
  PolyphaseInterpolator,
  PolyphaseDecimator,
  type PolyphaseInterpolatorOptions,
  type PolyphaseDecimatorOptions,
} from './polyphase.js';
export { PassbandModulator, type PassbandModulatorOptions, type IndexedSymbolSource } from './modulator.js';
export { QamTx, differentialMap, type QamTxOptions, type QamTxRate, type BurstLayout } from './qam-tx.js';
export { Scrambler, V27TER_SCRAMBLER, V29_SCRAMBLER, V17_SCRAMBLER, type ScramblerOptions } from './scrambler.js';
export {
  Agc,
  CarrierDetector,
  CARRIER_UP,
  CARRIER_DOWN,
  type AgcOptions,
  type CarrierDetectorOptions,
} from './agc.js';
export { GardnerTimingRecovery, type GardnerOptions } from './timing-recovery.js';
export { CarrierRecovery, type CarrierRecoveryOptions } from './carrier-recovery.js';
export { LmsEqualizer, type LmsEqualizerOptions } from './equalizer.js';
export { AlternationDetector, Lfsr7, type AlternationDetectorOptions } from './training.js';
export { TcfMeter } from './tcf.js';
export { DemodFrontEnd, FE_SYMBOL, FE_CARRIER_UP, FE_CARRIER_DOWN, type DemodFrontEndOptions } from './demod-front-end.js';
