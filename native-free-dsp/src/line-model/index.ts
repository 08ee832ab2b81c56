// Test line (gain, frequency offset, echo, noise, G.711 hop) and its seeded noise source.
export { LineModel, type LineModelOptions } from './line-model.js';
export { Xoshiro128 } from './prng.js';
