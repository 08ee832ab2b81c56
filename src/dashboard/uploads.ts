// File uploads for dashboard forms (multipart/form-data), parsed only in the scope of the routes
// that take them: the API keeps its JSON and form bodies. Every file is buffered up to a limit
// on the whole request; past it the rest is drained and discarded, and the handler refuses
// with FILE_TOO_LARGE (the same code as the API) instead of a reset connection.
import multipart, { type MultipartFile } from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { FaxError } from '../shared/errors.js';
import { DEFAULT_BODY_LIMIT, MAX_FILES } from '../api/index.js';

/** One uploaded file as the handler sees it. */
export interface Upload {
  fileName: string;
  data: Buffer;
}

interface UploadLimits {
  /** All files of one request together, in bytes (default: the API's body limit, 20 MiB). */
  maxBytes: number;
  /** Files per request (default: the API's 20 attachments). */
  maxFiles: number;
}

export const DEFAULT_UPLOAD_LIMITS: UploadLimits = { maxBytes: DEFAULT_BODY_LIMIT, maxFiles: MAX_FILES };

/** Requests whose files went over the limit: the reason, for the handler to report. */
const refused = new WeakMap<FastifyRequest, string>();
const received = new WeakMap<FastifyRequest, number>();

/** Registers the multipart parser in `scope` (a plugin scope holding only upload routes). */
export async function registerUploads(scope: FastifyInstance, limits: UploadLimits = DEFAULT_UPLOAD_LIMITS): Promise<void> {
  await scope.register(multipart, {
    attachFieldsToBody: 'keyValues',
    // busboy stops keeping a file's bytes past fileSize (it still drains them); throwing is ours.
    throwFileSizeLimit: false,
    limits: { fileSize: limits.maxBytes + 1, files: limits.maxFiles, fields: 40, parts: limits.maxFiles + 40, fieldSize: 64 * 1024, headerPairs: 100 },
    async onFile(this: FastifyRequest, part: MultipartFile & { value?: unknown }) {
      const chunks: Buffer[] = [];
      let total = received.get(this) ?? 0;
      for await (const chunk of part.file as AsyncIterable<Buffer>) {
        if (refused.has(this)) continue; // drain: the client is still sending
        total += chunk.length;
        if (total > limits.maxBytes) {
          refused.set(this, `the files together are larger than the limit of ${limits.maxBytes} bytes`);
          chunks.length = 0;
        } else chunks.push(chunk);
      }
      received.set(this, total);
      if (part.file.truncated) refused.set(this, `the files together are larger than the limit of ${limits.maxBytes} bytes`);
      const data = Buffer.concat(chunks);
      // A file input left empty arrives as a part with no name and no bytes.
      part.value = refused.has(this) || (part.filename === '' && data.length === 0) ? null : ({ fileName: part.filename, data } satisfies Upload);
    },
  });
}

/** The files posted under `field` (in order); FILE_TOO_LARGE when the request went over the limit. */
export function uploads(req: FastifyRequest, field: string): Upload[] {
  const why = refused.get(req);
  if (why) throw new FaxError('FILE_TOO_LARGE', why, { field });
  const b = req.body as Record<string, unknown> | undefined;
  const v = b && Object.prototype.hasOwnProperty.call(b, field) ? b[field] : undefined;
  const list = Array.isArray(v) ? v : v === undefined ? [] : [v];
  return list.filter((x): x is Upload => typeof x === 'object' && x !== null && Buffer.isBuffer((x as Upload).data));
}

/** Maps the parser's own refusals (too many parts, files or fields; not multipart) to the error table. */
export function uploadError(err: unknown): FaxError | null {
  const code = (err as { code?: unknown } | null)?.code;
  if (code === 'FST_FILES_LIMIT') return new FaxError('INVALID_PARAMETER', `at most ${DEFAULT_UPLOAD_LIMITS.maxFiles} files can be sent at once`, { field: 'files' });
  if (code === 'FST_PARTS_LIMIT' || code === 'FST_FIELDS_LIMIT') return new FaxError('INVALID_PARAMETER', 'the form has too many fields');
  if (code === 'FST_REQ_FILE_TOO_LARGE') return new FaxError('FILE_TOO_LARGE', 'a file is larger than the limit');
  if (code === 'FST_INVALID_MULTIPART_CONTENT_TYPE' || code === 'FST_PROTO_VIOLATION' || code === 'FST_INVALID_JSON_FIELD_ERROR') {
    return new FaxError('INVALID_PARAMETER', 'the upload is not a valid multipart/form-data body');
  }
  if (err instanceof Error && /multipart|boundary/i.test(err.message) && !(err instanceof FaxError)) {
    return new FaxError('INVALID_PARAMETER', 'the upload is not a valid multipart/form-data body');
  }
  return err instanceof FaxError ? err : null;
}
