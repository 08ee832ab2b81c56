// native-free-dsp: fax modems and telephony DSP in TypeScript, with no native code, no I/O and
// no imports from the application (src/). Every block follows one shape: a constructor that
// validates its options and names the wrong one, restart(), tx(out) filling a caller's buffer or
// rx(samples) consuming one, nothing allocated per sample, status through typed callbacks.
// See README.md for the blocks, their standards and their measured performance.

// The one error kind (a bad constructor argument).
export * from './src/errors.js';

// Shared high-speed modem blocks (V.27ter, V.29, V.17): NCO, RRC, scramblers, AGC, equalizer,
// carrier and timing recovery; also the bit/status callback types all modems use.
export * from './src/common/index.js';

// Audio lines: G.711, levels, tones, call progress.
export * from './src/g711/index.js';
export * from './src/power/index.js';
export * from './src/tones/index.js';

// V.27 ter (4800/2400) and V.29 (9600/7200/4800): the image-data modems below V.17.
export * from './src/v27ter/index.js';
export * from './src/v29/index.js';

// V.17 (14400/12000/9600/7200, trellis-coded): the fastest image-data modem.
export * from './src/v17/index.js';

// V.21 channel 2 and HDLC: the T.30 control channel.
export * from './src/v21/index.js';
export * from './src/hdlc/index.js';

// Test instruments: line model and bit-error-rate tester.
export * from './src/line-model/index.js';
export * from './src/ber/index.js';
