import { describe, expect, it } from 'vitest';
import { normalizeFaxNumber, parseRecipients } from './numbers.js';
import { caughtFaxError } from '../../../test/helpers/fax-errors.js';


describe('normalizeFaxNumber', () => {
  it.each([
    ['+15550100486', '+15550100486'], // fictional 555-01xx: possible, not "valid" — accepted on purpose
    ['+1 (555) 010-0486', '+15550100486'],
    ['  +1-555-010-0486  ', '+15550100486'],
    ['+1.555.010.0486', '+15550100486'],
    ['+44 20 7183 8750', '+442071838750'],
    ['+44 (0)20 7183 8750', '+442071838750'], // trunk prefix written in brackets is dropped
    ['+49 30 123456', '+4930123456'],
  ])('%s → %s', (input, expected) => {
    expect(normalizeFaxNumber(input, 'faxNumber')).toBe(expected);
  });

  it.each<[string, unknown, RegExp]>([
    ['no plus', '15550100486', /must start with \+/],
    ['national format', '(555) 010-0486', /must start with \+/],
    ['letters (vanity number)', '+1 800 FLOWERS', /contains letters/],
    ['too short', '+1234567', /has 7 digits; E.164 numbers have 8 to 15/],
    ['too long', '+1234567890123456', /has 16 digits/],
    ['unknown country code', '+999123456789', /known country code/],
    ['wrong length for the country', '+1555010048', /wrong length for country code \+1/],
    ['two plus signs', '+1+5550100486', /characters other than digits/],
    ['runs of separators', '+1 --- 5550100486', /characters other than digits/],
    ['other characters', '+1555#0100486', /characters other than digits/],
    ['empty', '   ', /is empty/],
    ['a JSON number', 15550100486, /must be a string in E\.164 format.*got a number/],
    ['null', null, /got nothing/],
  ])('refuses %s', (_name, input, message) => {
    const err = caughtFaxError(() => normalizeFaxNumber(input, 'callerId'));
    expect(err.def.name).toBe('INVALID_NUMBER');
    expect(err.code).toBe(-3001);
    expect(err.field).toBe('callerId');
    expect(err.message).toMatch(message);
  });
});

describe('parseRecipients', () => {
  const n = (i: number): string => `+1555010${String(i).padStart(4, '0')}`;

  it.each<[string, unknown, string[]]>([
    ['one string', '+15550100486', ['+15550100486']],
    ['comma-separated', '+15550100486, +1 555 010 0487,', ['+15550100486', '+15550100487']],
    ['an array', ['+15550100486', '+15550100487'], ['+15550100486', '+15550100487']],
    ['array items that are comma lists', ['+15550100486,+15550100487', '+15550100488'], ['+15550100486', '+15550100487', '+15550100488']],
    ['duplicates after normalization dropped, first order kept', ['+15550100487', '+1 555 010 0486', '+1-555-010-0487'], ['+15550100487', '+15550100486']],
    ['exactly 15', Array.from({ length: 15 }, (_, i) => n(i)), Array.from({ length: 15 }, (_, i) => n(i))],
  ])('%s', (_name, input, expected) => {
    expect(parseRecipients(input)).toEqual(expected);
  });

  it.each<[string, unknown]>([
    ['missing', undefined],
    ['null', null],
    ['empty string', ''],
    ['only commas', ' , ,'],
    ['empty array', []],
  ])('%s → INVALID_NUMBER "faxNumber is required"', (_name, input) => {
    const err = caughtFaxError(() => parseRecipients(input));
    expect(err.def.name).toBe('INVALID_NUMBER');
    expect(err.message).toContain('faxNumber is required');
    expect(err.field).toBe('faxNumber');
  });

  it('16 numbers → TOO_MANY_RECIPIENTS (-3008) on faxNumber, counted before duplicates are removed', () => {
    const sixteen = [...Array.from({ length: 15 }, (_, i) => n(i)), n(0)];
    const err = caughtFaxError(() => parseRecipients(sixteen));
    expect(err.def.name).toBe('TOO_MANY_RECIPIENTS');
    expect(err.code).toBe(-3008);
    expect(err.field).toBe('faxNumber');
    expect(err.message).toContain('16 numbers; at most 15');
    expect(caughtFaxError(() => parseRecipients(sixteen.join(','))).def.name).toBe('TOO_MANY_RECIPIENTS');
    expect(caughtFaxError(() => parseRecipients([n(1), n(2), n(3)], { max: 2 })).message).toContain('at most 2');
  });

  it('names the offending entry', () => {
    expect(caughtFaxError(() => parseRecipients('+15550100486,+1555,+15550100487')).field).toBe('faxNumber[1]');
    expect(caughtFaxError(() => parseRecipients(['+15550100486', 15550100487])).field).toBe('faxNumber[1]');
    expect(caughtFaxError(() => parseRecipients('5550100486')).field).toBe('faxNumber');
  });

  it('hints at %2B when a form turned the leading + into a space', () => {
    expect(caughtFaxError(() => normalizeFaxNumber(' 15550100486', 'faxNumber')).message).toContain('encode + as %2B');
    expect(caughtFaxError(() => normalizeFaxNumber('15550100486', 'faxNumber')).message).not.toContain('%2B');
  });

  it('refuses a JSON number or an object with a clear message', () => {
    const err = caughtFaxError(() => parseRecipients(15550100486));
    expect(err.def.name).toBe('INVALID_NUMBER');
    expect(err.message).toContain('must be a string in E.164 format');
    expect(caughtFaxError(() => parseRecipients({ a: 1 })).message).toContain('got an object');
  });
});
