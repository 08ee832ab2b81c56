// application/x-www-form-urlencoded bodies (WHATWG URL standard, "application/x-www-form-urlencoded
// parsing") with the bracket notation PHP and Rails clients send: `a[]=1`, `a[0][b]=x`, `a[][b]=x`.
// Hostile input is bounded: nesting depth, array indexes and pair count are capped, and keys that
// could reach an object prototype are dropped.
// Kept our own: qs 6 reads `a[][k]=1&a[][j]=2&a[][k]=3` as one element with k: ['1','3'] (not
// Rails' two elements) and silently mixes `a=1&a[b]=2`, where we answer −3000 naming the field.

import { FaxError } from '../../shared/errors.js';

const FORM_MAX_DEPTH = 5;
export const FORM_MAX_INDEX = 1000;
const FORM_MAX_PAIRS = 10_000;

/** Keys that could reach Object.prototype through a naive merge; pairs using them are ignored. */
const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);

type Node =
  | { kind: 'value'; values: string[] }
  | { kind: 'object'; entries: Map<string, Node> }
  | { kind: 'array'; items: Map<number, Node>; next: number };

/**
 * Parses a form body into plain objects, arrays and strings.
 *
 * - `a=1` → `{ a: '1' }`; a key repeated without brackets (`a=1&a=2`, as Python `requests` sends
 *   lists) becomes an array.
 * - `a[]=1&a[]=2` and `a[0]=1&a[1]=2` → arrays. Explicit indexes are ordered and compacted, so
 *   `a[7]=x` alone is `['x']` (no sparse arrays); an index above 1000 is refused.
 * - `a[][k]=1&a[][j]=2` follows Rails: a named key goes into the last element unless that element
 *   already has it, so each repetition of the first key starts a new element.
 * - More than 5 bracket levels, malformed percent-encoding, or a field used both as a value and as
 *   a container → FaxError INVALID_PARAMETER naming the field.
 */
export function parseFormBody(raw: string): Record<string, unknown> {
  const root = new Map<string, Node>();
  if (raw.length === 0) return {};
  const pairs = raw.split('&');
  if (pairs.length > FORM_MAX_PAIRS) {
    throw new FaxError('INVALID_PARAMETER', `form body has more than ${FORM_MAX_PAIRS} fields`);
  }
  for (const pair of pairs) {
    if (pair.length === 0) continue;
    const eq = pair.indexOf('=');
    const key = decode(eq < 0 ? pair : pair.slice(0, eq));
    const value = eq < 0 ? '' : decode(pair.slice(eq + 1));
    const path = splitKey(key);
    if (!path || path.some((p) => p !== null && FORBIDDEN.has(p))) continue;
    insert(root, path, value, key);
  }
  return toPlainObject(root);
}

function decode(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    throw new FaxError('INVALID_PARAMETER', `form body has malformed percent-encoding near "${s.slice(0, 40)}"`);
  }
}

/**
 * `a[b][]` → ['a', 'b', null] (null = append). A key whose brackets are not well formed is taken
 * literally as one name, like PHP does for `a[b`. Returns null for a key with no name.
 */
function splitKey(key: string): (string | null)[] | null {
  const open = key.indexOf('[');
  if (open === 0 || key.length === 0) return null;
  if (open < 0) return [key];
  const segs: (string | null)[] = [key.slice(0, open)];
  const re = /\[([^[\]]*)\]/y;
  re.lastIndex = open;
  let m: RegExpExecArray | null;
  let end = open;
  while ((m = re.exec(key)) !== null) {
    segs.push(m[1] === '' ? null : (m[1] as string));
    end = re.lastIndex;
  }
  if (end !== key.length) return [key];
  if (segs.length - 1 > FORM_MAX_DEPTH) {
    throw new FaxError('INVALID_PARAMETER', `form field ${segs[0]} is nested more than ${FORM_MAX_DEPTH} levels deep`, {
      field: String(segs[0]),
    });
  }
  return segs;
}

function arrayIndex(seg: string): number | null {
  if (!/^(0|[1-9][0-9]*)$/.test(seg)) return null;
  return Number(seg);
}

function conflict(fieldKey: string): FaxError {
  return new FaxError('INVALID_PARAMETER', `form field ${fieldKey} is given both as a value and as a list or group`, {
    field: fieldKey,
  });
}

function insert(root: Map<string, Node>, path: (string | null)[], value: string, fieldKey: string): void {
  const name = path[0] as string;
  if (path.length === 1) {
    const existing = root.get(name);
    if (!existing) root.set(name, { kind: 'value', values: [value] });
    else if (existing.kind === 'value') existing.values.push(value);
    else if (existing.kind === 'array') arrayAppend(existing, { kind: 'value', values: [value] }, fieldKey);
    else throw conflict(fieldKey);
    return;
  }
  let node = root.get(name);
  if (!node) {
    node = emptyContainer(path[1] ?? null);
    root.set(name, node);
  }
  setIn(node, path, 1, value, fieldKey);
}

function emptyContainer(nextSeg: string | null): Node {
  return nextSeg === null || arrayIndex(nextSeg) !== null
    ? { kind: 'array', items: new Map(), next: 0 }
    : { kind: 'object', entries: new Map() };
}

function arrayAppend(arr: Extract<Node, { kind: 'array' }>, child: Node, fieldKey: string): void {
  if (arr.next > FORM_MAX_INDEX) {
    throw new FaxError('INVALID_PARAMETER', `form field ${fieldKey} lists more than ${FORM_MAX_INDEX + 1} items`, {
      field: fieldKey,
    });
  }
  arr.items.set(arr.next, child);
  arr.next += 1;
}

/** Sets `value` at path[i..] below `node` (a container). */
function setIn(node: Node, path: (string | null)[], i: number, value: string, fieldKey: string): void {
  const seg = path[i] as string | null;
  const last = i === path.length - 1;
  if (node.kind === 'value') throw conflict(fieldKey);

  if (node.kind === 'object') {
    if (seg === null) throw conflict(fieldKey);
    const child = node.entries.get(seg);
    if (last) {
      if (!child) node.entries.set(seg, { kind: 'value', values: [value] });
      else if (child.kind === 'value') child.values.push(value);
      else throw conflict(fieldKey);
      return;
    }
    const next = child ?? emptyContainer(path[i + 1] ?? null);
    if (!child) node.entries.set(seg, next);
    setIn(next, path, i + 1, value, fieldKey);
    return;
  }

  // array
  if (seg === null) {
    if (last) {
      arrayAppend(node, { kind: 'value', values: [value] }, fieldKey);
      return;
    }
    // Rails rule: merge into the last element while it lacks the rest of the path.
    const lastItem = node.next > 0 ? node.items.get(node.next - 1) : undefined;
    if (lastItem && lastItem.kind === 'object' && !hasPath(lastItem, path, i + 1)) {
      setIn(lastItem, path, i + 1, value, fieldKey);
      return;
    }
    const fresh = emptyContainer(path[i + 1] ?? null);
    arrayAppend(node, fresh, fieldKey);
    setIn(fresh, path, i + 1, value, fieldKey);
    return;
  }
  const idx = arrayIndex(seg);
  if (idx === null) {
    throw new FaxError('INVALID_PARAMETER', `form field ${fieldKey} mixes list items and named keys`, { field: fieldKey });
  }
  if (idx > FORM_MAX_INDEX) {
    throw new FaxError('INVALID_PARAMETER', `form field ${fieldKey} has an index above ${FORM_MAX_INDEX}`, {
      field: fieldKey,
    });
  }
  const child = node.items.get(idx);
  if (last) {
    if (!child) node.items.set(idx, { kind: 'value', values: [value] });
    else if (child.kind === 'value') child.values.push(value);
    else throw conflict(fieldKey);
  } else {
    const next = child ?? emptyContainer(path[i + 1] ?? null);
    if (!child) node.items.set(idx, next);
    setIn(next, path, i + 1, value, fieldKey);
  }
  node.next = Math.max(node.next, idx + 1);
}

/** Whether `node` already holds a value at path[i..] (Rack's params_hash_has_key?). */
function hasPath(node: Node, path: (string | null)[], i: number): boolean {
  let cur: Node | undefined = node;
  for (let j = i; j < path.length; j++) {
    const seg = path[j] ?? null;
    // Like Rack: a path that appends somewhere never counts as held, so it joins the current element.
    if (seg === null) return false;
    if (cur.kind === 'object') cur = cur.entries.get(seg);
    else if (cur.kind === 'array') {
      const idx = arrayIndex(seg);
      cur = idx === null ? undefined : cur.items.get(idx);
    } else return true;
    if (cur === undefined) return false;
  }
  return true;
}

function toPlainObject(entries: Map<string, Node>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of entries) {
    // defineProperty: an own data property even for odd names; forbidden names never get here.
    Object.defineProperty(out, k, { value: toPlain(v), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

function toPlain(node: Node): unknown {
  switch (node.kind) {
    case 'value':
      return node.values.length === 1 ? node.values[0] : [...node.values];
    case 'object':
      return toPlainObject(node.entries);
    case 'array': {
      const keys = [...node.items.keys()].sort((a, b) => a - b);
      const out: unknown[] = [];
      for (const k of keys) {
        const item = node.items.get(k) as Node;
        // An indexed leaf given twice (a[0]=x&a[0]=y) keeps both values in place.
        if (item.kind === 'value') out.push(...item.values);
        else out.push(toPlain(item));
      }
      return out;
    }
  }
}
