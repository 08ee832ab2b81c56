// Bit and status callbacks shared by the high-speed fax modems (V.27ter, V.29, V.17): data flows
// through one small callback per bit (V.17 may take and give a symbol's bits per call instead:
// GetWord / PutWord), events through one typed status callback. Nothing here allocates; a modem
// calls these from inside its tx()/rx() loops.

/** Returned by a GetBit source when it has no more data; the transmitter then shuts down. */
export const END_OF_DATA = -1;

/** Bit source of a transmitter: 0 or 1, or END_OF_DATA. */
export type GetBit = () => number;

/**
 * Word source of a transmitter: the next n bits (1 ≤ n ≤ 8), the first to send in bit n−1 — what n
 * GetBit calls would give. When the data ends within them: the k bits there were, then n−k ones
 * (a symbol's padding), with WORD_END set; the source is not asked again for the burst.
 */
export type GetWord = (n: number) => number;

/** Set in a GetWord result whose bits reached the end of the data (bit 8, above any word). */
export const WORD_END = 0x100;

/** Bit sink of a receiver: called with 0 or 1 for each received data bit, in order. */
export type PutBit = (bit: number) => void;

/**
 * Word sink of a receiver: the n data bits of one symbol at once (1 ≤ n ≤ 8), the first received
 * in bit n−1 — the same bits, in the same order, as n calls of a PutBit.
 */
export type PutWord = (word: number, n: number) => void;

/**
 * A receiver's events, in the order they usually arrive:
 * carrierUp → trainingInProgress → trained | trainingFailed → carrierDown.
 */
export type ModemRxStatus = 'carrierUp' | 'trainingInProgress' | 'trained' | 'trainingFailed' | 'carrierDown';

/** A transmitter's events: training sent, the bit source ran dry, the shutdown sequence ended. */
export type ModemTxStatus = 'trainingComplete' | 'endOfData' | 'shutdownComplete';

export type RxStatusHandler = (status: ModemRxStatus) => void;
export type TxStatusHandler = (status: ModemTxStatus) => void;

/** Sample rate of every audio buffer of the modems, samples/s. */
export const SAMPLE_RATE = 8000;
