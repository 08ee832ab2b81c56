// Levels in dBm0 (G.711 §5 reference, G.100.1 dBov) and a sliding-window power meter.
export * from './levels.js';
export { PowerMeter, type PowerMeterOptions } from './power-meter.js';
