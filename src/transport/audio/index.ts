// Fax over audio lines: the modems of native-free-dsp as a T.30 front end.
export { AudioFrontEnd } from './front-end.js';
export type { AudioRxStats } from './audio-rx.js';
export { openAudioCall, type AudioPacing } from './audio-call.js';
