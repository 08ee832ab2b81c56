// Audio lines over UDP: raw PCM (pcm://) and G.711 in RTP (rtp://), framed, ordered and paced
// for an AudioPort — the audio fax front end — in lockstep (tests) or in real time (real lines).
export * from './errors.js';
export * from './port.js';
export * from './rtp.js';
export * from './audio-codec.js';
export * from './receive-buffer.js';
export * from './pump.js';
export * from './line-clock.js';
export * from './url.js';
