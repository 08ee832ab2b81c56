// faxstack as a library (docs/library.md): `import { renderFax, sendFax, createFaxEngine } from 'faxstack'`.
// Only what is listed here is public; test/library/exports.test.ts keeps the list.

export {
  // Documents → fax pages (TIFF class F, PDF, PNG previews), without a store or service.
  renderFax, RenderedFax, closeWorkers,
  type DocumentSource, type RenderOptions, type CoverPage, type HeaderLine, type FetchPolicy, type FaxQuality, type TiffCompression, type PageRendering,
  // One call over a direct line (T.38 UDPTL, raw PCM, RTP G.711).
  sendFax, listenForFax,
  type SendFaxOptions, type ListenOptions, type FaxListener, type ReceivedFaxResult, type CallSettings, type LinePacing,
  type FaxCallEvent, type FaxCallResult, type NegotiatedCallMode,
  // The job engine on a store.
  createFaxEngine, FaxEngine,
  type FaxEngineOptions, type FaxEngineEventMap, type FaxEngineEvent, type FaxProgressEvent, type Fax, type FaxSendRequest, type FaxSubmission,
  type FaxListQuery, type AccountRef, type CreatedFaxAccount, type RateLimitSettings, type JobCallMode,
  // A recorded call (WAV, raw audio, pcap of T.38) read back into frames, mode and pages.
  decodeCall, type DecodeCallOptions, type DecodedCall,
  // The HTTP API and dashboard on the embedder's fastify.
  faxstackHttp, type FaxstackHttpOptions,
} from './library/index.js';

// Errors: every failure is a FaxError with a stable code from one table.
export { FaxError, ERRORS, errorByCode, type ErrorDef, type ErrorKind, type ErrorName } from './shared/errors.js';
export { VERSION } from './shared/version.js';
