// The recorded reference sessions of fixtures/sessions/ (its README.md: NAME.wav or NAME.pcap,
// the page the caller sent as NAME.tif, NAME.json saying what a receiver must make of them),
// as the conformance tests read them. FAXSTACK_SESSIONS_DIR points the tests at another
// directory of sessions in the same layout.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const SESSIONS_DIR = process.env.FAXSTACK_SESSIONS_DIR ?? fileURLToPath(new URL('../../fixtures/sessions/', import.meta.url));

export interface Endpoint {
  ip: string;
  port: number;
}

/** fixtures/sessions/README.md, "Sidecar". */
export interface Sidecar {
  description: string;
  madeWith: string;
  spandspRelease: string;
  format: 'wav-ulaw-stereo' | 'pcap';
  channels?: string[];
  endpoints?: { caller: Endpoint; answerer: Endpoint };
  line?: { codec: string; txLevelDbm0: number; noiseDbm0: number | null };
  udptl?: { redundancy: number; t38Version: number };
  expected: {
    modulation: 'V.17' | 'V.29' | 'V.27ter';
    bitRate: number;
    ecm: boolean;
    compression: 'mh' | 'mr' | 'mmr';
    resolution: { x: number; y: number };
    pages: number;
    completion: number;
  };
  document: string;
  durationMs: number;
  idents: { caller: string; answerer: string };
  frames: Array<{ ms: number; from: 'caller' | 'answerer'; fcf: string; hex: string }>;
}

/** Our names of the sidecars' modulations. */
export const MODULATION = { 'V.17': 'v17', 'V.29': 'v29', 'V.27ter': 'v27ter' } as const;

/** The sidecars' file names, sorted (none when the directory is missing). */
export function sidecarFiles(): string[] {
  return existsSync(SESSIONS_DIR) ? readdirSync(SESSIONS_DIR).filter((f) => f.endsWith('.json')).sort() : [];
}

export function readSidecar(file: string): Sidecar {
  return JSON.parse(readFileSync(join(SESSIONS_DIR, file), 'utf8')) as Sidecar;
}

/** "host:port" of an endpoint. */
export const endpointKey = (e: Endpoint): string => `${e.ip}:${e.port}`;
