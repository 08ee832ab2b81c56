// V.21 300 bit/s FSK modem, channels 1 and 2.
export * from './v21.js';
