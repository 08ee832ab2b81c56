// O.150 pseudo-random sequences and the bit-error-rate tester every modem test uses.
export * from './prbs.js';
