// `faxstack send` and `faxstack receive` as real processes over real UDP on 127.0.0.1, paced in
// real time as on a real line (a one-page fax takes about 13 s): the --json lines of both ends
// agree and the received TIFF holds the page.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { countBlack } from '../../src/codecs/index.js';
import { readTiff } from '../../src/documents/tiff-read.js';
import { built, freeUdpPort, run } from './helpers.js';

describe.skipIf(!built)('faxstack send → faxstack receive over UDPTL', () => {
  it('delivers a page; both --json lines report success with the same page count', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'faxstack-cli-'));
    const doc = join(dir, 'letter.txt');
    writeFileSync(doc, 'A letter sent over T.38\n\nfrom faxstack send to faxstack receive.\n');
    const port = await freeUdpPort();
    const receiving = run(['receive', '--listen', `udptl://127.0.0.1:${port}`, '--out', join(dir, 'in'), '--json']);
    // The receiver binds at once; the sender's first packets are repeated indicators, so a late bind loses nothing that matters.
    const sent = await run(['send', doc, '--via', `udptl://127.0.0.1:${port}`, '--ident', '+14155550100', '--json']);
    const received = await receiving;
    const tx = JSON.parse(sent.stdout.trim().split('\n').at(-1)!);
    const rx = JSON.parse(received.stdout.trim().split('\n').at(-1)!);
    expect(sent.code, sent.stderr).toBe(0);
    expect(received.code, received.stderr).toBe(0);
    expect(tx).toMatchObject({ success: true, code: 0, pages: 1, pagesTotal: 1, ecm: true });
    expect(rx).toMatchObject({ success: true, code: 0, pages: 1, remoteIdent: '+14155550100' });
    const [page] = readTiff(await readFile(rx.file));
    expect([page!.width, page!.xDpi, page!.yDpi]).toEqual([1728, 204, 196]);
    expect(countBlack(page!.bitmap)).toBeGreaterThan(500);
  }, 60_000);

  it('refuses a VIA it does not know with exit status 2', async () => {
    const r = await run(['send', '/dev/null', '--via', 'h323:123@example.com', '--json']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/not available|udptl:/);
  });
});
