import { describe, expect, it } from 'vitest';
import { formatPageRange, MAX_SELECTED_PAGES, parsePageSelection, selectPages, type PageRange } from './page-ranges.js';
import { caughtFaxError } from '../../test/helpers/fax-errors.js';


const F = 'faxData[0].pages';

describe('parsePageSelection', () => {
  it.each<[string, unknown, PageRange[] | null]>([
    ['undefined = all pages', undefined, null],
    ['null = all pages', null, null],
    ['single pages and ranges', ['3', '5-7'], [{ from: 3, to: 3 }, { from: 5, to: 7 }]],
    ['spaces around the dash', [' 2 - 4 '], [{ from: 2, to: 4 }]],
    ['numbers', [1, 10000], [{ from: 1, to: 1 }, { from: 10000, to: 10000 }]],
    ['order and repeats kept', ['4', '1-2', '4'], [{ from: 4, to: 4 }, { from: 1, to: 2 }, { from: 4, to: 4 }]],
    ['a one-page range', ['2-2'], [{ from: 2, to: 2 }]],
    ['a comma-separated string (forms, CLI)', '1-3, 5', [{ from: 1, to: 3 }, { from: 5, to: 5 }]],
  ])('%s', (_name, input, expected) => {
    expect(parsePageSelection(input, F)).toEqual(expected);
  });

  it.each<[string, unknown, string, RegExp]>([
    ['an empty list', [], F, /at least one page/],
    ['an empty string', '  ', F, /at least one page/],
    ['an object', { from: 1 }, F, /must be an array of page entries/],
    ['a boolean', true, F, /must be an array/],
    ['page 0', ['0'], `${F}[0]`, /whole numbers from 1 to 10000/],
    ['above 10000', ['2', '10001'], `${F}[1]`, /whole numbers from 1 to 10000/],
    ['a reversed range', ['7-5'], `${F}[0]`, /reversed range \(7 > 5\)/],
    ['a fraction', [1.5], `${F}[0]`, /whole numbers/],
    ['a negative number', [-1], `${F}[0]`, /whole numbers/],
    ['text', ['first'], `${F}[0]`, /is not a page \("3"\) or a range \("5-7"\)/],
    ['an open range', ['3-'], `${F}[0]`, /is not a page/],
    ['a list in a list', [['1']], `${F}[0]`, /must be a string/],
    ['too many entries', Array.from({ length: 1001 }, () => '1'), F, /more than 1000 entries/],
  ])('refuses %s', (_name, input, field, message) => {
    const err = caughtFaxError(() => parsePageSelection(input, F));
    expect(err.def.name).toBe('INVALID_PARAMETER');
    expect(err.field).toBe(field);
    expect(err.message).toMatch(message);
  });
});

describe('selectPages', () => {
  it.each<[string, PageRange[] | null, number, number[]]>([
    ['all pages', null, 3, [1, 2, 3]],
    ['in the order given, repeats kept', [{ from: 3, to: 3 }, { from: 1, to: 2 }, { from: 3, to: 3 }], 5, [3, 1, 2, 3]],
    ['up to the last page', [{ from: 4, to: 5 }], 5, [4, 5]],
  ])('%s', (_name, ranges, count, expected) => {
    expect(selectPages(ranges, count, 'faxData[0]')).toEqual(expected);
  });

  it('names the attachment and the page past the end', () => {
    const err = caughtFaxError(() => selectPages([{ from: 1, to: 1 }, { from: 7, to: 7 }], 5, 'faxData[1]'));
    expect(err.def.name).toBe('INVALID_PARAMETER');
    expect(err.field).toBe('faxData[1]');
    expect(err.message).toBe('Invalid parameter: faxData[1]: page 7 does not exist (the document has 5 pages)');
  });

  it('reports the first missing page of a range that runs past the end', () => {
    expect(caughtFaxError(() => selectPages([{ from: 3, to: 9 }], 5, 'faxData[0]')).message).toContain('page 6 does not exist');
    expect(caughtFaxError(() => selectPages([{ from: 2, to: 2 }], 1, 'faxData[0]')).message).toContain('(the document has 1 page)');
  });

  it('bounds the expansion', () => {
    const many = Array.from({ length: 3 }, () => ({ from: 1, to: MAX_SELECTED_PAGES / 2 }));
    expect(caughtFaxError(() => selectPages(many, MAX_SELECTED_PAGES, 'faxData[0]')).message).toContain('more than 10000 pages');
  });
});

it('formatPageRange gives the canonical entry text', () => {
  expect([{ from: 3, to: 3 }, { from: 5, to: 7 }].map(formatPageRange)).toEqual(['3', '5-7']);
});
