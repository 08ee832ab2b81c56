// Fax over audio lines: the modems of native-free-dsp as a T.30 front end.
export { AudioFrontEnd, type AudioFrontEndOptions, type AudioFrontEndStats } from './front-end.js';
export type { AudioRxStats } from './audio-rx.js';
export { openAudioCall, type AudioCall, type AudioCallOptions, type AudioPacing } from './audio-call.js';
