// Generates fixtures/documents/: real documents made by other programs than ours, so the
// renderer is tested on what customers send.
//   node --import tsx scripts/gen-document-fixtures.ts
// Needs Ghostscript (gs), qpdf and libtiff-tools (tiffcp, tiffset); sharp comes with the project.
// The outputs are committed; the tests do not run this script.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';

const OUT = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'documents');

/**
 * standard-fonts.pdf (Ghostscript pdfwrite, fonts NOT embedded, Flate-compressed streams):
 *  1 A4 portrait, Helvetica text block at the top left
 *  2 A4 portrait, Times-Roman
 *  3 A4 portrait, Courier
 *  4 A4 landscape (842 × 595): Helvetica title and a black square in the top-left corner
 *  5 Letter portrait: a 64-step gray ramp (a "photo") and a caption
 * encrypted.pdf: page 1 of the above behind a user password.
 */
const POSTSCRIPT = `%!PS-Adobe-3.0
/textpage { % fontname title -> -
  exch findfont 14 scalefont setfont
  72 760 moveto show
  0 1 29 { /i exch def 72 730 i 18 mul sub moveto (The quick brown fox jumps over the lazy dog 0123456789.) show } for
} def
<< /PageSize [595 842] >> setpagedevice
/Helvetica (Page 1: Helvetica, a standard font that is not embedded.) textpage showpage
/Times-Roman (Page 2: Times-Roman, not embedded.) textpage showpage
/Courier (Page 3: Courier, not embedded.) textpage showpage
<< /PageSize [842 595] >> setpagedevice
/Helvetica findfont 24 scalefont setfont 200 500 moveto (Page 4: landscape) show
0 setgray 36 459 100 100 rectfill
showpage
<< /PageSize [612 792] >> setpagedevice
0 1 63 { /i exch def i 63 div setgray 72 i 7 mul add 300 7 400 rectfill } for
0 setgray /Helvetica findfont 14 scalefont setfont 72 720 moveto (Page 5: a gray ramp, rendered as a photograph) show
showpage
`;

function main(): void {
  mkdirSync(OUT, { recursive: true });
  const tmp = mkdtempSync(join(tmpdir(), 'faxstack-fixtures-'));
  try {
    const ps = join(tmp, 'doc.ps');
    writeFileSync(ps, POSTSCRIPT);
    execFileSync('gs', ['-q', '-dNOPAUSE', '-dBATCH', '-dSAFER', '-sDEVICE=pdfwrite', '-dEmbedAllFonts=false', '-dCompatibilityLevel=1.4', `-sOutputFile=${join(OUT, 'standard-fonts.pdf')}`, ps]);
    // encrypted.pdf: page 1 of the above behind a user password ("secret"), RC4 128-bit.
    execFileSync('gs', ['-q', '-dNOPAUSE', '-dBATCH', '-dSAFER', '-sDEVICE=pdfwrite', '-dEmbedAllFonts=false', '-dFirstPage=1', '-dLastPage=1',
      '-sOwnerPassword=owner', '-sUserPassword=secret', '-dEncryptionR=3', '-dKeyLength=128', `-sOutputFile=${join(OUT, 'encrypted.pdf')}`, ps]);
    makeEncryptedAndCut();
    void makeTiffs(tmp).then(() => rmSync(tmp, { recursive: true, force: true }));
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
}

/** Owner-password-only files (RC4, AES-128 without printing, AES-256), a user-password one, and one without %%EOF. */
function makeEncryptedAndCut(): void {
  const src = join(OUT, 'standard-fonts.pdf');
  const qpdf = (out: string, ...encrypt: string[]): void => {
    execFileSync('qpdf', ['--allow-weak-crypto', '--object-streams=generate', '--encrypt', ...encrypt, '--', src, join(OUT, out)]);
  };
  qpdf('owner-rc4.pdf', '', 'owner', '128', '--use-aes=n');
  qpdf('owner-aes128-noprint.pdf', '', 'owner', '128', '--use-aes=y', '--print=none');
  qpdf('owner-aes256.pdf', '', 'owner', '256');
  qpdf('user-aes256.pdf', 'secret', 'owner', '256');
  const pdf = readFileSync(src);
  writeFileSync(join(OUT, 'no-eof.pdf'), pdf.subarray(0, pdf.lastIndexOf('startxref')));
}

/**
 * multipage-color.tif: three RGB pages (LZW) of different sizes joined by libtiff's tiffcp.
 * fax-g4.tif: two bilevel pages of 1728 × 2287 at 204 × 196 dpi, CCITT G4 written by libtiff.
 */
async function makeTiffs(tmp: string): Promise<void> {
  const pages: string[] = [];
  const colors = ['#c03030', '#30a030', '#3030c0'];
  for (const [i, color] of colors.entries()) {
    const file = join(tmp, `p${i}.tif`);
    const w = 400 + i * 100;
    const h = 560 + i * 50;
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}"><rect width="100%" height="100%" fill="white"/><rect x="20" y="20" width="${w - 40}" height="80" fill="${color}"/><rect x="20" y="${h - 60}" width="60" height="40" fill="black"/></svg>`;
    await sharp(Buffer.from(svg)).flatten({ background: '#ffffff' }).tiff({ compression: 'lzw' }).toFile(file);
    pages.push(file);
  }
  execFileSync('tiffcp', [...pages, join(OUT, 'multipage-color.tif')]);

  const faxPages: string[] = [];
  for (let i = 0; i < 2; i++) {
    const file = join(tmp, `f${i}.tif`);
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1728" height="2287"><rect width="100%" height="100%" fill="white"/><rect x="${100 + i * 200}" y="300" width="800" height="40" fill="black"/><rect x="200" y="1000" width="40" height="${600 + i * 100}" fill="black"/></svg>`;
    await sharp(Buffer.from(svg)).flatten({ background: '#ffffff' }).toColourspace('b-w').tiff({ compression: 'ccittfax4', bitdepth: 1, xres: 204 / 25.4, yres: 196 / 25.4 }).toFile(file);
    faxPages.push(file);
  }
  execFileSync('tiffcp', ['-c', 'g4', ...faxPages, join(OUT, 'fax-g4.tif')]);
  process.stdout.write(`fixtures written to ${OUT}\n`);
}

main();
