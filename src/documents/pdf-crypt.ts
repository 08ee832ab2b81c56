// The PDF Standard security handler (ISO 32000-1 7.6.3, ISO 32000-2 7.6.4): does the empty user
// password open the file (owner-password-only files: readers open them without asking), and if so
// the key that decrypts its streams (RC4 / AES-128 per object, AES-256 for the whole file). The
// page counter needs it for object streams; rendering leaves decryption to PDFium or pdfjs.

import { nodeCrypto } from '../shared/builtins.js';

/** 7.6.3.3 Algorithm 2, step (a): the 32-byte padding string, which is also the padded empty password. */
const PAD = Buffer.from('28bf4e5e4e758a4164004e56fffa01082e2e00b6d0683e802f0ca9fe6453697a', 'hex');

export interface EncryptInfo {
  filter: string | null;
  v: number;
  r: number;
  /** Key length in bytes (V 2/3: /Length; V 4: 16; V 5: 32). */
  keyBytes: number;
  o: Buffer;
  u: Buffer;
  ue: Buffer | null;
  p: number;
  /** First element of the trailer's /ID. */
  id0: Buffer;
  encryptMetadata: boolean;
  /** The crypt filter method streams use: 'None' (Identity), 'V2' (RC4), 'AESV2', 'AESV3'. */
  streamMethod: string;
}

/** Decrypts the data of stream `num gen`; null when it cannot (bad padding). */
type StreamDecryptor = (num: number, gen: number, data: Buffer) => Buffer | null;

type Unlock = { ok: true; decrypt: StreamDecryptor } | { ok: false; reason: 'password' | 'unsupported' };

const md5 = (...parts: Buffer[]): Buffer => {
  const h = nodeCrypto().createHash('md5');
  for (const p of parts) h.update(p);
  return h.digest();
};

function rc4(key: Buffer, data: Buffer): Buffer {
  const s = new Uint8Array(256);
  for (let i = 0; i < 256; i++) s[i] = i;
  for (let i = 0, j = 0; i < 256; i++) {
    j = (j + s[i]! + key[i % key.length]!) & 255;
    [s[i], s[j]] = [s[j]!, s[i]!];
  }
  const out = Buffer.allocUnsafe(data.length);
  for (let k = 0, i = 0, j = 0; k < data.length; k++) {
    i = (i + 1) & 255;
    j = (j + s[i]!) & 255;
    [s[i], s[j]] = [s[j]!, s[i]!];
    out[k] = data[k]! ^ s[(s[i]! + s[j]!) & 255]!;
  }
  return out;
}

function aesCbcDecrypt(key: Buffer, data: Buffer): Buffer | null {
  if (data.length < 32 || data.length % 16 !== 0) return null;
  try {
    const d = nodeCrypto().createDecipheriv(key.length === 32 ? 'aes-256-cbc' : 'aes-128-cbc', key, data.subarray(0, 16));
    return Buffer.concat([d.update(data.subarray(16)), d.final()]);
  } catch {
    return null;
  }
}

/** Algorithm 2: the file key from the (empty) user password, revisions 2–4. */
function fileKeyR4(e: EncryptInfo): Buffer {
  const p = Buffer.alloc(4);
  p.writeInt32LE(e.p | 0);
  let key = md5(PAD, e.o.subarray(0, 32), p, e.id0, e.r >= 4 && !e.encryptMetadata ? Buffer.from([255, 255, 255, 255]) : Buffer.alloc(0));
  const n = e.r === 2 ? 5 : e.keyBytes;
  if (e.r >= 3) for (let i = 0; i < 50; i++) key = md5(key.subarray(0, n));
  return key.subarray(0, n);
}

/** Algorithms 4 and 5: the key checks out against /U when the user password is the empty one. */
function userKeyMatches(e: EncryptInfo, key: Buffer): boolean {
  if (e.r === 2) return rc4(key, PAD).equals(e.u.subarray(0, 32));
  let x = rc4(key, md5(PAD, e.id0));
  for (let i = 1; i <= 19; i++) x = rc4(Buffer.from(key.map((b) => b ^ i)), x);
  return x.equals(e.u.subarray(0, 16));
}

/** ISO 32000-2 Algorithm 2.B (revision 6 hash); revision 5 is a single SHA-256. */
function hashR6(password: Buffer, salt: Buffer, udata: Buffer, r: number): Buffer {
  let k = nodeCrypto().createHash('sha256').update(password).update(salt).update(udata).digest();
  if (r === 5) return k;
  for (let round = 0; ; round++) {
    const k1 = Buffer.concat(Array.from({ length: 64 }, () => Buffer.concat([password, k, udata])));
    const c = nodeCrypto().createCipheriv('aes-128-cbc', k.subarray(0, 16), k.subarray(16, 32)).setAutoPadding(false);
    const e = Buffer.concat([c.update(k1), c.final()]);
    let sum = 0;
    for (let i = 0; i < 16; i++) sum += e[i]!;
    k = nodeCrypto().createHash(['sha256', 'sha384', 'sha512'][sum % 3]!).update(e).digest();
    if (round >= 63 && e[e.length - 1]! <= round - 31) break;
  }
  return k.subarray(0, 32);
}

/** Algorithm 2.A for the empty user password: the file key, or null when /U says the password is not empty. */
function fileKeyR6(e: EncryptInfo): Buffer | null {
  const empty = Buffer.alloc(0);
  if (e.u.length < 48 || !e.ue || e.ue.length < 32) return null;
  if (!hashR6(empty, e.u.subarray(32, 40), empty, e.r).equals(e.u.subarray(0, 32))) return null;
  const k = hashR6(empty, e.u.subarray(40, 48), empty, e.r);
  const d = nodeCrypto().createDecipheriv('aes-256-cbc', k, Buffer.alloc(16)).setAutoPadding(false);
  return Buffer.concat([d.update(e.ue.subarray(0, 32)), d.final()]);
}

/** Whether the empty user password opens the file, and the stream decryptor if so. */
export function unlockWithEmptyPassword(e: EncryptInfo): Unlock {
  if (e.filter !== 'Standard') return { ok: false, reason: 'unsupported' };
  if (e.streamMethod === 'None') return { ok: true, decrypt: (_n, _g, data) => data };
  if (e.r === 5 || e.r === 6) {
    const key = fileKeyR6(e);
    if (!key) return { ok: false, reason: 'password' };
    return { ok: true, decrypt: (_n, _g, data) => aesCbcDecrypt(key, data) };
  }
  if (e.r < 2 || e.r > 4 || e.keyBytes < 5 || e.keyBytes > 16 || e.o.length < 32 || e.u.length < 32) return { ok: false, reason: 'unsupported' };
  const key = fileKeyR4(e);
  if (!userKeyMatches(e, key)) return { ok: false, reason: 'password' };
  const aes = e.streamMethod === 'AESV2';
  return {
    ok: true,
    // Algorithm 1: a key per object from the file key, object number and generation.
    decrypt: (num, gen, data) => {
      const salt = Buffer.from([num & 255, (num >> 8) & 255, (num >> 16) & 255, gen & 255, (gen >> 8) & 255]);
      const objKey = md5(key, salt, aes ? Buffer.from('sAlT', 'latin1') : Buffer.alloc(0)).subarray(0, Math.min(key.length + 5, 16));
      return aes ? aesCbcDecrypt(objKey, data) : rc4(objKey, data);
    },
  };
}
