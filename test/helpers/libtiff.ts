// libtiff as the judge in tests: whether its tools are installed, a scratch directory to
// run tiffcp/tiffinfo/tiffcmp in, and uncompressed multi-page TIFFs (either photometric)
// for libtiff to re-encode.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { invertBitmap, type Bitmap } from '../../src/codecs/index.js';
import { bilevelEntries, buildTiff } from '../vectors/tiff-builder.js';

export const TIFF_TOOLS = ['tiffcp', 'tiffcmp', 'tiffinfo', 'tiffset', 'fax2tiff'] as const;
export const hasTiffTools = TIFF_TOOLS.every((t) => spawnSync(t, ['-h'], { stdio: 'ignore' }).error === undefined);

export interface ToolRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** A scratch directory for libtiff's tools; dispose() removes it. */
export class TiffScratch {
  readonly dir = mkdtempSync(join(tmpdir(), 'faxstack-libtiff-'));

  path(name: string): string {
    return join(this.dir, name);
  }

  /** Runs a tool; a non-zero exit is an Error naming the command and its stderr. */
  run(cmd: string, args: string[]): ToolRun {
    const r = this.tryRun(cmd, args);
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
    return r;
  }

  tryRun(cmd: string, args: string[]): ToolRun {
    const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 << 20 });
    if (r.error) throw r.error;
    return { status: r.status, stdout: r.stdout, stderr: r.stderr };
  }

  /** tiffcp `args` from one scratch file to another. */
  tiffcp(args: string[], from: string, to: string): ToolRun {
    return this.run('tiffcp', [...args, this.path(from), this.path(to)]);
  }

  dispose(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * An uncompressed bilevel TIFF, one page per bitmap (1 = black in the bitmaps), stored
 * MinIsWhite (photometric 0) or MinIsBlack (1, the bits inverted) — what libtiff is then
 * asked to re-encode.
 */
export function uncompressedTiff(pages: readonly Bitmap[], photometric: 0 | 1 = 0, dpi = 300): Uint8Array {
  return buildTiff(
    pages.map((bm) => {
      const stored = { ...bm, data: bm.data.slice() };
      if (photometric === 1) invertBitmap(stored);
      const entries = bilevelEntries(bm.width, bm.height, { photometric }).map((e) =>
        e.tag === 282 || e.tag === 283 ? { ...e, values: [dpi, 1] } : e,
      );
      return { entries, strips: [stored.data] };
    }),
  );
}
