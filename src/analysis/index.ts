// Passive analysis of recorded fax calls: audio (WAV or raw, mono or one channel per side) is
// demodulated, T.38 (pcap of UDPTL) is decoded, and either is read as one T.30 call — frames,
// mode, training, pages — for `faxstack decode`.
export * from './errors.js';
export * from './wav.js';
export * from './pcap.js';
export * from './line-events.js';
export { analyzeAudio, type AudioAnalysisStats } from './audio-analyzer.js';
export { analyzeT38, type T38AnalysisStats } from './t38-analyzer.js';
export { analyzeCall, measureTcf, type AnalyzedPage, type CallAnalysis, type ReportEntry } from './call-analysis.js';
export { EcmPages, type EcmPageData } from './ecm-pages.js';
export { capabilitiesText, modemText, modeText } from './describe.js';
export { analyzeCapture, type AnalyzeCaptureOptions } from './analyze.js';
export { describeEntry, formatTime, pagesTiff, reportJson, reportLines } from './report.js';
