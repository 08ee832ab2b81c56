import { describe, expect, it } from 'vitest';
import { FORM_MAX_INDEX, parseFormBody } from './form.js';
import { caughtFaxError } from '../../../test/helpers/fax-errors.js';

const enc = encodeURIComponent;

describe('parseFormBody', () => {
  it.each<[string, string, Record<string, unknown>]>([
    ['plain pairs', 'a=b&c=d', { a: 'b', c: 'd' }],
    ['+ is a space, %2B is a plus', 'faxNumber=%2B1555&subject=hello+world', { faxNumber: '+1555', subject: 'hello world' }],
    ['a key without = has an empty value', 'flag&x=1', { flag: '', x: '1' }],
    ['empty pairs are skipped', '&&a=1&&', { a: '1' }],
    ['repeated plain key becomes a list', 'n=1&n=2', { n: ['1', '2'] }],
    ['a[] appends', 'faxNumber[]=%2B1&faxNumber[]=%2B2', { faxNumber: ['+1', '+2'] }],
    ['percent-encoded brackets', `${enc('faxNumber[]')}=a&${enc('faxNumber[]')}=b`, { faxNumber: ['a', 'b'] }],
    ['indexed items in order', 'a[1]=y&a[0]=x', { a: ['x', 'y'] }],
    ['sparse indexes are compacted', 'a[7]=x&a[3]=w', { a: ['w', 'x'] }],
    ['named keys', 'cover[subject]=Hi&cover[to]=Bob', { cover: { subject: 'Hi', to: 'Bob' } }],
    ['a key with broken brackets is taken literally', 'a[b=1', { 'a[b': '1' }],
    ['a[] mixed with a plain repeat', 'n[]=1&n=2', { n: ['1', '2'] }],
  ])('%s', (_name, raw, expected) => {
    expect(parseFormBody(raw)).toEqual(expected);
  });

  it('parses PHP-style indexed faxData with nested page lists', () => {
    const raw = [
      'faxNumber[]=%2B15550100486',
      'faxNumber[]=%2B15550100487',
      'faxData[0][fileName]=a.pdf',
      `faxData[0][fileUrl]=${enc('https://example.com/a.pdf?x=1&y=2')}`,
      'faxData[0][pages][]=1-2',
      'faxData[0][pages][]=5',
      'faxData[1][fileName]=b.txt',
      'faxData[1][fileData]=aGVsbG8%3D',
    ].join('&');
    expect(parseFormBody(raw)).toEqual({
      faxNumber: ['+15550100486', '+15550100487'],
      faxData: [
        { fileName: 'a.pdf', fileUrl: 'https://example.com/a.pdf?x=1&y=2', pages: ['1-2', '5'] },
        { fileName: 'b.txt', fileData: 'aGVsbG8=' },
      ],
    });
  });

  it('groups Rails-style faxData[][key] into items: a repeated key starts the next item', () => {
    const raw = [
      'faxData[][fileUrl]=u1',
      'faxData[][fileName]=one.pdf',
      'faxData[][pages][]=1',
      'faxData[][pages][]=3',
      'faxData[][fileUrl]=u2',
      'faxData[][fileName]=two.pdf',
    ].join('&');
    expect(parseFormBody(raw)).toEqual({
      faxData: [
        { fileUrl: 'u1', fileName: 'one.pdf', pages: ['1', '3'] },
        { fileUrl: 'u2', fileName: 'two.pdf' },
      ],
    });
  });

  it('keeps a JSON-encoded faxData field as a string (the send parser decodes it)', () => {
    const json = JSON.stringify([{ fileUrl: 'https://example.com/a.pdf' }]);
    expect(parseFormBody(`faxData=${enc(json)}`)).toEqual({ faxData: json });
  });

  describe('hostile input', () => {
    it.each(['__proto__[polluted]=1', 'constructor[prototype][polluted]=1', 'a[__proto__][polluted]=1', 'a[b][constructor]=1', 'prototype=1'])(
      'ignores %s without touching any prototype',
      (raw) => {
        const out = parseFormBody(`${raw}&ok=1`);
        expect(out).toEqual({ ok: '1' });
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
        expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
      },
    );

    it('refuses nesting deeper than 5 levels, naming the field', () => {
      expect(parseFormBody('a[1][b][c][d][e]=x')).toEqual({ a: [{ b: { c: { d: { e: 'x' } } } }] });
      const err = caughtFaxError(() => parseFormBody('a[b][c][d][e][f][g]=x'));
      expect(err.def.name).toBe('INVALID_PARAMETER');
      expect(err.field).toBe('a');
      expect(err.message).toContain('nested more than 5 levels');
    });

    it(`refuses an index above ${FORM_MAX_INDEX} instead of building a giant array`, () => {
      expect(parseFormBody(`a[${FORM_MAX_INDEX}]=x`)).toEqual({ a: ['x'] });
      const err = caughtFaxError(() => parseFormBody(`a[${FORM_MAX_INDEX + 1}]=x`));
      expect(err.message).toContain(`index above ${FORM_MAX_INDEX}`);
      expect(caughtFaxError(() => parseFormBody('a[99999999999999999999]=x')).def.name).toBe('INVALID_PARAMETER');
    });

    it('refuses more than 1001 appended items', () => {
      const ok = Array.from({ length: FORM_MAX_INDEX + 1 }, () => 'a[]=1').join('&');
      expect((parseFormBody(ok).a as unknown[]).length).toBe(FORM_MAX_INDEX + 1);
      expect(caughtFaxError(() => parseFormBody(`${ok}&a[]=1`)).message).toContain('more than 1001 items');
    });

    it.each([
      ['value then group', 'a=1&a[b]=2'],
      ['group then value', 'a[b]=2&a[b][c]=1'],
      ['list then named key', 'a[0]=1&a[x]=2'],
    ])('refuses a field used as two shapes (%s)', (_n, raw) => {
      const err = caughtFaxError(() => parseFormBody(raw));
      expect(err.def.name).toBe('INVALID_PARAMETER');
      expect(err.field).toMatch(/^a\[/);
    });

    it('refuses malformed percent-encoding', () => {
      expect(caughtFaxError(() => parseFormBody('a=%E0%A4%A')).message).toContain('malformed percent-encoding');
    });
  });
});

