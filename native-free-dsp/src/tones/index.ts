// Tone generation (fax tones, call progress) and detection, on DDS and Goertzel blocks.
export { DDS_SINE, DDS_SHIFT, DDS_TABLE_BITS, ddsPhaseRate, ddsPhaseOfDegrees, ddsSin, ddsCos } from './dds.js';
export { GoertzelBank } from './goertzel.js';
export { ToneTx, TONES, type ToneSpec, type ToneName } from './tone-tx.js';
export { FaxToneRx, type FaxTone, type FaxToneEvent, type FaxToneRxOptions } from './fax-tone-rx.js';
export { CallProgressRx, type CallProgressTone, type CallProgressEvent, type CallProgressRxOptions } from './call-progress-rx.js';
