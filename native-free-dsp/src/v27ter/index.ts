// V.27 ter modem (ITU-T V.27 ter): 4800/2400 bit/s, for fax image data at the lowest rates.
export { V27terTx, type V27terTxOptions } from './v27ter-tx.js';
export { V27terRx, type V27terRxOptions } from './v27ter-rx.js';
export { V27TER_BIT_RATES, V27TER_RATES, type V27terBitRate, type V27terRateInfo } from './constellation.js';
