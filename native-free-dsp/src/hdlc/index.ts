// HDLC framing for T.30 (flags, zero insertion, FCS-16/32, preamble, abort).
export { crc16Update, crc32Update, fcs16, fcs32, fcsOk, FCS16_GOOD, FCS32_GOOD } from './crc.js';
export { HdlcTx, HDLC_FLAG, type HdlcTxOptions, type HdlcTxStatus } from './hdlc-tx.js';
export { HdlcRx, type HdlcFrame, type HdlcRxOptions, type HdlcRxStatus, type HdlcRxStats } from './hdlc-rx.js';
