// Render documents into fax pages and save them as a PDF (and a PNG preview of page 1):
//   npx tsx examples/render-pdf.ts letter.txt [more files…] [--out fax.pdf]
import { writeFile } from 'node:fs/promises';
import { closeWorkers, renderFax } from 'faxstack';

const args = process.argv.slice(2);
const at = args.indexOf('--out');
const out = at >= 0 ? args.splice(at, 2)[1]! : 'fax.pdf';
if (args.length === 0) throw new Error('usage: render-pdf FILE… [--out fax.pdf]');

const fax = await renderFax(args, {
  quality: 'Standard',
  cover: { subject: 'Quarterly report', toName: 'Accounts', fromName: 'faxstack example' },
  header: { fromName: 'faxstack example', fromNumber: '+1 415 555 0100' },
});
await writeFile(out, fax.pdf({ title: 'faxstack example' }));
await writeFile(out.replace(/\.pdf$/i, '') + '-page1.png', await fax.previewPng(1, { width: 600 }));
console.log(JSON.stringify({ out, pages: fax.pageCount, xDpi: fax.xDpi, yDpi: fax.yDpi, width: fax.width }));
await closeWorkers();
