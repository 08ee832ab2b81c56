import { lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RenderOut } from './render-out.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'faxstack-render-out-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);

describe('RenderOut (the file faxstack render writes)', () => {
  it('puts each piece at its place, whatever order the writes finish in; OUT appears only once complete', async () => {
    const out = join(dir, 'a.tif');
    const file = new RenderOut(out);
    file.write([bytes('II*'), bytes('\0')]);
    file.write([bytes('page one|')]);
    file.write([bytes('page two|'), bytes('end')]);
    expect(() => statSync(out)).toThrow(/ENOENT/); // still beside it
    await file.finish();
    expect(readFileSync(out, 'latin1')).toBe('II*\0page one|page two|end');
    expect(readdirSync(dir).filter((f) => f.includes('partial'))).toEqual([]);
  });

  it('a failed render leaves an existing OUT as it was, with its permissions, and nothing beside it', async () => {
    const out = join(dir, 'b.tif');
    writeFileSync(out, 'the fax sent yesterday', { mode: 0o640 });
    const failed = new RenderOut(out);
    failed.write([bytes('half a fax')]);
    await failed.abandon();
    expect(readFileSync(out, 'latin1')).toBe('the fax sent yesterday');
    expect(readdirSync(dir).filter((f) => f.includes('partial'))).toEqual([]);
    const done = new RenderOut(out);
    done.write([bytes('the new fax')]);
    await done.finish();
    expect(readFileSync(out, 'latin1')).toBe('the new fax');
    expect(statSync(out).mode & 0o777).toBe(0o640);
  });

  it('writes through a symbolic link (the link stays a link), as open(OUT, "w") does', async () => {
    const target = join(dir, 'target.tif');
    writeFileSync(target, 'old');
    const link = join(dir, 'link.tif');
    symlinkSync(target, link);
    const file = new RenderOut(link);
    file.write([bytes('new')]);
    await file.finish();
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe(target);
    expect(readFileSync(target, 'latin1')).toBe('new');
  });

  it('writes to a named pipe in order (a pipe takes no positions)', async () => {
    const { execFileSync, spawn } = await import('node:child_process');
    const fifo = join(dir, 'fax.fifo');
    execFileSync('mkfifo', [fifo]);
    const cat = spawn('cat', [fifo], { stdio: ['ignore', 'pipe', 'inherit'] });
    const got: Buffer[] = [];
    cat.stdout.on('data', (b: Buffer) => got.push(b));
    const closed = new Promise((done) => cat.on('close', done));
    const file = new RenderOut(fifo);
    for (let i = 0; i < 20; i++) file.write([bytes(`piece ${i}|`)]);
    await file.finish();
    await closed;
    expect(Buffer.concat(got).toString('latin1')).toBe(Array.from({ length: 20 }, (_, i) => `piece ${i}|`).join(''));
  });

  it("reports a directory that is not there, and leaves nothing", async () => {
    const file = new RenderOut(join(dir, 'missing', 'c.tif'));
    file.write([bytes('x')]);
    await expect(file.finish()).rejects.toThrow(`cannot write ${join(dir, 'missing', 'c.tif')}: ENOENT`);
    await file.abandon(); // after a failed finish: nothing more to do, and no throw
    expect(readdirSync(dir).filter((f) => f.includes('partial') || f === 'missing')).toEqual([]);
  });
});
