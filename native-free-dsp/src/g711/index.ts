// G.711 µ-law / A-law companding (ITU-T G.711).
export * from './g711.js';
