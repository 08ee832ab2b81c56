// The file `faxstack render` writes: the TIFF's pieces written as the pages are coded (the file's
// copy into the page cache then runs on libuv's pool beside the drawing of the next pages, not
// after the last one: docs/benchmarks.md, issue 13 session 17), into a file beside OUT that is
// renamed over it once complete — a reader never sees half a fax, and a render that fails leaves
// OUT as it was. Where OUT is not a plain file (a device, a pipe, a symbolic link, a file with
// other hard links) the pieces go straight to it, as `open(OUT, 'w')` would.

import { accessSync, constants, lstatSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fsAsync } from '../shared/builtins.js';

export class RenderOut {
  private readonly fd: Promise<number>;
  private readonly writes: Promise<unknown>[] = [];
  private at = 0;
  /** Where the pieces go: a file beside OUT, or OUT itself. */
  private readonly path: string;

  constructor(private readonly out: string) {
    let existing: { mode: number } | undefined;
    let direct = false;
    try {
      const st = lstatSync(out);
      direct = !st.isFile() || st.nlink !== 1;
      existing = st;
    } catch {
      // not there yet: made whole beside it
    }
    // A file this process may not write is not replaced either (open(OUT, 'w') would refuse it).
    if (existing && !direct && !writable(out)) direct = true;
    this.path = direct ? out : join(dirname(out), `.${basename(out)}.${process.pid}.partial`);
    this.fd = fsAsync.open(this.path, direct ? 'w' : 'wx', existing ? existing.mode & 0o7777 : 0o666);
    this.fd.catch(() => undefined); // reported by the first write, or by finish()
  }

  /**
   * The next pieces of the file, in order: into the file beside OUT at their place, so several may
   * be in flight; into OUT itself one after the other (a pipe or a device takes no position).
   */
  write(pieces: Uint8Array[]): void {
    const at = this.at;
    for (const p of pieces) this.at += p.length;
    const done =
      this.path === this.out
        ? Promise.all([this.fd, this.writes.at(-1)]).then(([fd]) => fsAsync.writev(fd, pieces))
        : this.fd.then((fd) => fsAsync.writev(fd, pieces, at));
    done.catch(() => undefined); // awaited in finish()
    this.writes.push(done);
  }

  /** Every piece written and the file in OUT's place; the first write's error, if any, thrown (nothing left behind). */
  async finish(): Promise<void> {
    const fd = await this.fd.catch((err: NodeJS.ErrnoException) => {
      throw Object.assign(new Error(`cannot write ${this.out}: ${err.code ?? err.message}`), { code: err.code });
    });
    try {
      await Promise.all(this.writes);
    } catch (err) {
      await fsAsync.close(fd).catch(() => undefined);
      await this.removePartial();
      throw err;
    }
    await fsAsync.close(fd);
    if (this.path !== this.out) await fsAsync.rename(this.path, this.out);
  }

  /** The render failed: the file beside OUT removed (OUT itself untouched, unless written straight). */
  async abandon(): Promise<void> {
    const fd = await this.fd.catch(() => undefined);
    if (fd === undefined) return;
    await Promise.allSettled(this.writes);
    await fsAsync.close(fd).catch(() => undefined);
    await this.removePartial();
  }

  private async removePartial(): Promise<void> {
    if (this.path !== this.out) await fsAsync.unlink(this.path).catch(() => undefined);
  }
}

function writable(file: string): boolean {
  try {
    accessSync(file, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}
