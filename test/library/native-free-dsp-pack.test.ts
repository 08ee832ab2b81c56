// native-free-dsp as its users get it: `npm pack` in a copy of native-free-dsp/ beside a copy of
// the tsconfig.json it extends and nothing else of this checkout (its prepack compiles it afresh;
// an import from outside the package fails here; no dist/ appears in the checkout while other
// tests read it), `npm install` of the tarball into a temporary project, a strict TypeScript
// consumer compiled against the shipped .d.ts without Node's types (the package needs none),
// and a V.17 burst at 14400 from its transmitter into its receiver.
import { execFile as execFileCb } from 'node:child_process';
import { cpSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const execFile = promisify(execFileCb);
const ROOT = new URL('../..', import.meta.url).pathname;
const PKG = join(ROOT, 'native-free-dsp');

const CONSUMER = `import { BerTester, END_OF_DATA, PrbsGenerator, V17Rx, V17Tx, type ModemRxStatus } from '@faxstack/native-free-dsp';

export function run(bits: number): { bits: number; errors: number; statuses: ModemRxStatus[] } {
  const gen = new PrbsGenerator({ pattern: 'prbs11' });
  const ber = new BerTester({ pattern: 'prbs11' });
  const statuses: ModemRxStatus[] = [];
  let sent = 0;
  let delivered = 0;
  const tx = new V17Tx({ bitRate: 14400, getBit: () => (sent++ < bits ? gen.getBit() : END_OF_DATA) });
  const rx = new V17Rx({ bitRate: 14400, putBit: (bit) => { if (delivered++ < bits) ber.putBit(bit); }, onStatus: (s) => statuses.push(s) });
  const buf = new Int16Array(160);
  rx.rx(new Int16Array(800));
  for (let n = buf.length; n === buf.length; ) {
    buf.fill(0);
    n = tx.tx(buf);
    rx.rx(buf);
  }
  rx.rx(new Int16Array(2400));
  return { bits: ber.results.bits, errors: ber.results.errors, statuses };
}
`;

describe('native-free-dsp: npm pack → npm install → strict consumer', () => {
  it('ships only its compiled code, README and package.json, and a V.17 burst goes through', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'native-free-dsp-pack-'));
    const pkg = join(tmp, 'native-free-dsp');
    cpSync(PKG, pkg, { recursive: true, filter: (p) => !/\/(dist|node_modules)$|\.test\.ts$/.test(p) });
    cpSync(join(ROOT, 'tsconfig.json'), join(tmp, 'tsconfig.json'));
    const env = { ...process.env, PATH: `${join(ROOT, 'node_modules', '.bin')}:${process.env.PATH ?? ''}` };
    const { stdout } = await execFile('npm', ['pack', '--json', '--pack-destination', tmp], { cwd: pkg, env });
    // prepack's tsc may print before npm's JSON.
    const [packed] = JSON.parse(stdout.slice(stdout.indexOf('['))) as { name: string; filename: string; files: { path: string }[] }[];
    expect(packed!.name).toBe('@faxstack/native-free-dsp');
    const paths = packed!.files.map((f) => f.path);
    expect(paths).toEqual(expect.arrayContaining(['package.json', 'README.md', 'dist/index.js', 'dist/index.d.ts', 'dist/src/v17/v17-rx.js']));
    expect(paths.filter((p) => !/^dist\/.+\.(js|d\.ts)$|^(package\.json|README\.md)$/.test(p))).toEqual([]);
    expect(paths.filter((p) => /\.test\.|heap-probe/.test(p))).toEqual([]);

    const app = join(tmp, 'app');
    await execFile('mkdir', ['-p', join(app, 'src')]);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    // The package has no dependencies: installing its tarball needs no registry.
    await execFile('npm', ['install', '--offline', '--no-audit', '--no-fund', join(tmp, packed!.filename)], { cwd: app });
    writeFileSync(join(app, 'tsconfig.json'), JSON.stringify({
      compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noUncheckedIndexedAccess: true, types: [], outDir: 'out', rootDir: 'src' },
      include: ['src'],
    }));
    writeFileSync(join(app, 'src', 'consumer.ts'), CONSUMER);
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    await execFile(process.execPath, [tsc, '-p', app], { cwd: app }).catch((err: { stdout: string }) => {
      throw new Error(`the consumer does not compile:\n${err.stdout}`);
    });
    const script = "import { run } from './out/consumer.js'; console.log(JSON.stringify(run(20000)));";
    const { stdout: out } = await execFile(process.execPath, ['--input-type=module', '-e', script], { cwd: app, timeout: 120_000 });
    const r = JSON.parse(out) as { bits: number; errors: number; statuses: string[] };
    expect(r.errors).toBe(0);
    expect(r.bits).toBeGreaterThan(19_000);
    expect(r.statuses).toContain('trained');
  }, 300_000);
});
