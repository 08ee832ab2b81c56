// What the SIP interop test files share: whether SIPp and both spandsp peers are here, a work
// directory removed after the file, the one-page document every SIP call sends, and the
// CallRequest for it.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { faxPagesFromTiff } from '../../../src/documents/fax-pages.js';
import type { CallRequest } from '../../../src/engine/index.js';
import { buildFaxPeer } from '../fax-audio/fax-peer.js';
import { buildPeer } from '../spandsp/build.js';
import { writeCaseDocument } from '../t38-matrix.js';
import { sippMissing } from './harness.js';

export function sipTestSetup(prefix: string) {
  const missing = sippMissing();
  const t38Build = buildPeer();
  const audioBuild = buildFaxPeer();
  const dir = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const sentFile = join(dir, 'sent.tif');
  writeCaseDocument({ quality: 'Low', compression: 'mmr', pages: 1 }, sentFile);
  const request = (): CallRequest => {
    const pages = faxPagesFromTiff(readFileSync(sentFile));
    return { jobId: 1, fromNumber: '+15550001111', toNumber: '+15550002222', quality: 'Low', totalPages: pages.count, firstPage: 1, ident: '+15550001111', pages };
  };
  return {
    FULL: process.env.FAXSTACK_INTEROP_FULL === '1',
    missing,
    t38Build,
    audioBuild,
    runnable: !missing && t38Build.ok && audioBuild.ok,
    dir,
    sentFile,
    request,
  };
}
