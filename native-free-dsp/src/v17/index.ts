// V.17 modem (ITU-T V.17): 14400/12000/9600/7200 bit/s trellis-coded QAM, for fax image data.
export { V17Tx, type V17TxOptions } from './v17-tx.js';
export { V17Rx, type V17RxOptions } from './v17-rx.js';
export { V17_BIT_RATES, type V17BitRate } from './types.js';
// The trellis code and constellations, for tests and analysers.
export { V17TrellisEncoder, V17Viterbi, V17_TRACEBACK_BLOCK, V17_TRACEBACK_DEPTH } from './trellis.js';
export { v17Constellation, type V17Constellation } from './constellation.js';
