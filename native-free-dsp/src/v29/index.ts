// V.29 modem (ITU-T V.29): 9600/7200/4800 bit/s, for fax image data.
export { V29Tx, type V29TxOptions } from './v29-tx.js';
export { V29Rx, type V29RxOptions } from './v29-rx.js';
export { V29_BIT_RATES, V29_RATES, type V29BitRate, type V29RateInfo } from './constellation.js';
