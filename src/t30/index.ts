// T.30: the fax session protocol, as a pure machine driven by a front end (front-end.ts).
export * from './front-end.js';
export { Fcf, fcfByte, decodeFcf, fcfName, buildFrame, parseFrame, type FcfName, type ParsedFrame, type PostMessage } from './fcf.js';
export { decodeDis, encodeDis, decodeDcs, encodeDcs, decodeCtc, encodeCtc, DIS_DEFAULTS, type Dis, type Dcs } from './dis.js';
export { encodeIdent, decodeIdent, decodeNsf, type NonStandardFacilities } from './ident.js';
export {
  RESOLUTIONS,
  ALL_RESOLUTIONS,
  widthPixels,
  ratesFor,
  type Coding,
  type ModemSupport,
  type PaperWidth,
  type RateStep,
  type RecordingLength,
  type Resolution,
  type ScanLineMs,
  type ScanLineTimes,
} from './modes.js';
export { chooseMode, disFor, paramsFromDcs, type PageFormats, type T30Params } from './negotiate.js';
export { codePage, decodePage, copyQuality, type CodedPage, type CopyQuality, type SourcePage } from './page-coding.js';
export { completionCode, completionMessage, COMPLETION_NAMES, type Completion } from './completion.js';
export { TIMER_DEFAULTS } from './core.js';
export { createT30, step } from './machine.js';
export { T30Session, type T30Progress } from './session.js';
export type {
  AnswererConfig,
  CallerConfig,
  PageSource,
  Phase,
  ReceivedPage,
  Role,
  StateName,
  T30Action,
  T30Config,
  T30Input,
  T30Result,
  T30State,
  T30Step,
  TimerName,
} from './types.js';
