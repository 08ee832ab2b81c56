// Dashboard send preview: POST /dashboard/send/preview with a PDF upload on the real service
// (multipart parse, the API's validation, page count, composeJobFax, PNG per page, the preview
// kept) side by side with its anchor, composeJobFax alone on the same document in the same
// process — the rendering every fax pays anyway. Sequential requests, medians over rounds.
//
//   node --import tsx bench/run.ts dashboard-preview     BENCH_ROUNDS=8 BENCH_PAGES=2
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { hashPassword } from '../src/accounts/index.js';
import { composeJobFax } from '../src/jobs/index.js';
import { ManualClock } from '../src/shared/clock.js';
import { silentLogger } from '../src/shared/log.js';
import { startService } from '../src/service.js';
import { pdfDoc } from '../test/dashboard/pdf-fixture.js';
import { envNumber } from './lib/env.js';
import type { BenchReport } from './run.js';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function run(): Promise<BenchReport> {
  const rounds = Math.round(envNumber('BENCH_ROUNDS', 8, 1));
  const pages = Math.round(envNumber('BENCH_PAGES', 2, 1));
  const dataDir = mkdtempSync(join(tmpdir(), 'faxstack-bench-preview-'));
  const clock = new ManualClock(Date.UTC(2026, 0, 5, 9));
  const svc = await startService({ port: 0, host: '127.0.0.1', logger: silentLogger, dataDir, clock });
  const rows: { quality: string; previewMs: number; composeMs: number; pngBytesPerPage: number }[] = [];
  try {
    const c = await svc.store.createAccount({ name: 'bench', balanceCents: 0, faxNumber: '+14155550100', nowMs: clock.now() });
    await svc.store.setPasswordHash(c.account.id, await hashPassword('bench password 123'));
    const jar = new Map<string, string>();
    const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const take = (res: Response) => {
      for (const sc of res.headers.getSetCookie()) {
        const [pair] = sc.split(';');
        const i = pair!.indexOf('=');
        jar.set(pair!.slice(0, i), pair!.slice(i + 1));
      }
    };
    const csrf = async (path: string) => {
      const res = await fetch(svc.url + path, { headers: { Cookie: cookie() }, redirect: 'manual' });
      take(res);
      return /name="_csrf" value="([^"]+)"/.exec(await res.text())![1]!;
    };
    const signIn = new URLSearchParams({ name: 'bench', password: 'bench password 123', _csrf: await csrf('/dashboard/sign-in') });
    take(await fetch(svc.url + '/dashboard/sign-in', { method: 'POST', body: signIn, headers: { Cookie: cookie(), 'Content-Type': 'application/x-www-form-urlencoded' }, redirect: 'manual' }));
    const doc = pdfDoc(pages);

    for (const quality of ['Standard', 'HD'] as const) {
      const previewMs: number[] = [];
      const composeMs: number[] = [];
      let pngBytes = 0;
      for (let r = 0; r < rounds + 1; r++) {
        const form = new FormData();
        form.append('_csrf', await csrf('/dashboard/send'));
        for (const [k, v] of Object.entries({ faxNumber: '+14155550123', faxQuality: quality, subject: 'Bench', mode: 'test' })) form.append(k, v);
        form.append('files', new Blob([doc], { type: 'application/pdf' }), 'bench.pdf');
        let t = performance.now();
        const res = await fetch(svc.url + '/dashboard/send/preview', { method: 'POST', body: form, headers: { Cookie: cookie() }, redirect: 'manual' });
        const took = performance.now() - t;
        if (res.status !== 303) throw new Error(`preview: HTTP ${res.status}`);
        const at = res.headers.get('location')!;
        t = performance.now();
        await composeJobFax({ quality, cover: { subject: 'Bench' }, fromNumber: '+14155550100', toNumber: '+14155550123' }, [{ bytes: doc, format: 'pdf', pages: Array.from({ length: pages }, (_, i) => i + 1) }], { nowMs: clock.now(), maxPages: 200 });
        const composeTook = performance.now() - t;
        if (r === 0) continue; // warm-up: worker threads start, pdfjs loads
        previewMs.push(took);
        composeMs.push(composeTook);
        const png = await fetch(`${svc.url}${at}/pages/2.png`, { headers: { Cookie: cookie() } });
        pngBytes = (await png.arrayBuffer()).byteLength;
      }
      rows.push({ quality, previewMs: median(previewMs), composeMs: median(composeMs), pngBytesPerPage: pngBytes });
    }
  } finally {
    await svc.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  const text = [
    `dashboard preview of a ${pages}-page PDF + cover page, median of ${rounds} sequential requests`,
    'quality   preview (HTTP) ms   composeJobFax alone ms   ratio   PNG bytes/page',
    ...rows.map((r) => `${r.quality.padEnd(9)} ${r.previewMs.toFixed(0).padStart(17)}   ${r.composeMs.toFixed(0).padStart(22)}   ${(r.previewMs / r.composeMs).toFixed(2).padStart(5)}   ${String(r.pngBytesPerPage).padStart(14)}`),
  ].join('\n');
  return { bench: 'dashboard-preview', text, json: { rounds, pages, rows } };
}

if (import.meta.url === `file://${process.argv[1]}`) console.log((await run()).text);
