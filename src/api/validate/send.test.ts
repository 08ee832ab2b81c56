import { describe, expect, it } from 'vitest';
import { FaxError, type ErrorName } from '../../shared/errors.js';
import { parseFormBody } from './form.js';
import { parseJobId, parseListQuery, parseSendRequest, SEND_AT_MAX_AHEAD_MS } from './send.js';
import { caughtFaxError } from '../../../test/helpers/fax-errors.js';

const NOW = Date.UTC(2026, 0, 1, 12, 0, 0);
const PDF_B64 = Buffer.from('%PDF-1.4 tiny').toString('base64');
const URL_FILE = { fileUrl: 'https://docs.example.com/a.pdf' };


const send = (extra: Record<string, unknown>): ReturnType<typeof parseSendRequest> =>
  parseSendRequest({ faxNumber: '+15550100486', faxData: [URL_FILE], ...extra }, { nowMs: NOW });

const refused = (extra: Record<string, unknown>): FaxError => caughtFaxError(() => send(extra));

describe('parseSendRequest: a minimal request', () => {
  it('has the documented defaults', () => {
    expect(send({})).toEqual({
      numbers: ['+15550100486'],
      callerId: null,
      templateId: null,
      smartDocumentId: null,
      cover: null,
      sendAtMs: null,
      quality: 'Standard',
      files: [{ fileName: 'document-1', fileUrl: 'https://docs.example.com/a.pdf', data: null, pages: null, ranges: null }],
    });
  });

  it('takes every field', () => {
    const r = send({
      faxNumber: ['+15550100486', '+1 555 010 0487'],
      callerId: '+1 (555) 010-0100',
      templateId: 'tpl_1',
      smartDocumentId: 42,
      subject: 'Invoice',
      from_name: 'Ann',
      to_name: 'Bob',
      message: 'Line 1\r\nLine 2\tend',
      send_at: '2026-01-02T09:30:00Z',
      faxQuality: 'hd',
      faxData: [
        { fileName: 'C:\\Users\\ann\\invoice.pdf', fileUrl: 'https://docs.example.com/i.pdf', pages: ['2', '4-5'] },
        { fileData: PDF_B64 },
      ],
      unknownField: 'ignored',
    });
    expect(r.numbers).toEqual(['+15550100486', '+15550100487']);
    expect(r.callerId).toBe('+15550100100');
    expect(r.templateId).toBe('tpl_1');
    expect(r.smartDocumentId).toBe('42');
    expect(r.cover).toEqual({ subject: 'Invoice', fromName: 'Ann', toName: 'Bob', message: 'Line 1\nLine 2\tend' });
    expect(r.sendAtMs).toBe(Date.UTC(2026, 0, 2, 9, 30));
    expect(r.quality).toBe('HD');
    expect(r.files[0]).toEqual({
      fileName: 'invoice.pdf',
      fileUrl: 'https://docs.example.com/i.pdf',
      data: null,
      pages: ['2', '4-5'],
      ranges: [{ from: 2, to: 2 }, { from: 4, to: 5 }],
    });
    expect(r.files[1]?.fileName).toBe('document-2');
    expect(r.files[1]?.data?.toString()).toBe('%PDF-1.4 tiny');
  });

  it('gives a cover when only one cover field is present', () => {
    expect(send({ message: 'hi' }).cover).toEqual({ message: 'hi' });
    expect(send({ subject: '', from_name: null }).cover).toBeNull();
  });

  it('accepts a form body with bracket notation and a JSON-encoded faxData', () => {
    const form = parseFormBody(
      `faxNumber[]=%2B15550100486&faxNumber[]=%2B15550100487&faxQuality=Low&faxData=${encodeURIComponent(JSON.stringify([URL_FILE]))}`,
    );
    const r = parseSendRequest(form, { nowMs: NOW });
    expect(r.numbers).toHaveLength(2);
    expect(r.quality).toBe('Low');
    expect(r.files[0]?.fileUrl).toBe(URL_FILE.fileUrl);
    const indexed = parseFormBody('faxNumber=%2B15550100486&faxData[0][fileUrl]=https%3A%2F%2Fx.example%2Fa.pdf&faxData[0][pages]=1-2');
    expect(parseSendRequest(indexed, { nowMs: NOW }).files[0]?.ranges).toEqual([{ from: 1, to: 2 }]);
  });
});

describe('parseSendRequest: refusals name the field', () => {
  it.each<[string, unknown]>([
    ['null', null],
    ['an array', [URL_FILE]],
    ['a string', 'faxNumber=+1'],
  ])('a body that is %s', (_n, body) => {
    const err = caughtFaxError(() => parseSendRequest(body, { nowMs: NOW }));
    expect(err.def.name).toBe('INVALID_PARAMETER');
    expect(err.message).toContain('must be a JSON object');
  });

  it.each<[string, Record<string, unknown>, ErrorName, string | undefined, RegExp]>([
    // recipients
    ['faxNumber missing', { faxNumber: undefined }, 'INVALID_NUMBER', 'faxNumber', /faxNumber is required/],
    ['faxNumber as a JSON number', { faxNumber: 15550100486 }, 'INVALID_NUMBER', 'faxNumber', /must be a string in E\.164/],
    ['faxNumber without +', { faxNumber: '5550100486' }, 'INVALID_NUMBER', 'faxNumber', /must start with \+/],
    ['16 recipients', { faxNumber: Array.from({ length: 16 }, (_, i) => `+1555010${1000 + i}`) }, 'TOO_MANY_RECIPIENTS', 'faxNumber', /at most 15/],
    ['a bad callerId', { callerId: '+1 555 CALL ME' }, 'INVALID_NUMBER', 'callerId', /letters/],
    // faxData
    ['faxData missing', { faxData: undefined }, 'INVALID_PARAMETER', 'faxData', /faxData is required/],
    ['faxData empty', { faxData: [] }, 'INVALID_PARAMETER', 'faxData', /at least one file/],
    ['faxData an object', { faxData: URL_FILE }, 'INVALID_PARAMETER', 'faxData', /must be a list of files, got an object/],
    ['faxData bad JSON string', { faxData: '[{' }, 'INVALID_PARAMETER', 'faxData', /not valid JSON/],
    ['21 files', { faxData: Array.from({ length: 21 }, () => URL_FILE) }, 'INVALID_PARAMETER', 'faxData', /at most 20 files/],
    ['an item that is a string', { faxData: ['https://x.example/a.pdf'] }, 'INVALID_PARAMETER', 'faxData[0]', /must be an object/],
    ['both fileUrl and fileData', { faxData: [URL_FILE, { ...URL_FILE, fileData: PDF_B64 }] }, 'INVALID_FILE_FORMAT', 'faxData[1]', /both fileUrl and fileData/],
    ['neither fileUrl nor fileData', { faxData: [{ fileName: 'a.pdf' }] }, 'INVALID_FILE_FORMAT', 'faxData[0]', /neither fileUrl nor fileData/],
    // fileUrl
    ['a relative URL', { faxData: [{ fileUrl: '/a.pdf' }] }, 'INVALID_PARAMETER', 'faxData[0].fileUrl', /not an absolute URL/],
    ['an ftp URL', { faxData: [{ fileUrl: 'ftp://x.example/a.pdf' }] }, 'INVALID_PARAMETER', 'faxData[0].fileUrl', /http or https URL, not ftp/],
    ['a file URL', { faxData: [{ fileUrl: 'file:///etc/passwd' }] }, 'INVALID_PARAMETER', 'faxData[0].fileUrl', /not file/],
    ['credentials in the URL', { faxData: [{ fileUrl: 'https://u:p@x.example/a.pdf' }] }, 'INVALID_PARAMETER', 'faxData[0].fileUrl', /user name or password/],
    ['a URL that is a number', { faxData: [{ fileUrl: 7 }] }, 'INVALID_PARAMETER', 'faxData[0].fileUrl', /must be a string, got a number/],
    ['a huge URL', { faxData: [{ fileUrl: `https://x.example/${'a'.repeat(3000)}` }] }, 'INVALID_PARAMETER', 'faxData[0].fileUrl', /longer than 2048/],
    // fileData
    ['base64 with junk', { faxData: [{ fileData: 'aGVsbG8*' }] }, 'INVALID_FILE_FORMAT', 'faxData[0].fileData', /faxData\[0\]\.fileData is not valid base64/],
    ['a data: URI', { faxData: [{ fileData: `data:application/pdf;base64,${PDF_B64}` }] }, 'INVALID_FILE_FORMAT', 'faxData[0].fileData', /not valid base64/],
    ['mixed base64 alphabets', { faxData: [{ fileData: 'ab+_' }] }, 'INVALID_FILE_FORMAT', 'faxData[0].fileData', /not valid base64/],
    ['impossible length', { faxData: [{ fileData: 'aGVsb' }] }, 'INVALID_FILE_FORMAT', 'faxData[0].fileData', /not valid base64/],
    ['wrong padding', { faxData: [{ fileData: 'aGVsbA=' }] }, 'INVALID_FILE_FORMAT', 'faxData[0].fileData', /not valid base64/],
    ['padding in the middle', { faxData: [{ fileData: 'aGV=sbG8' }] }, 'INVALID_FILE_FORMAT', 'faxData[0].fileData', /not valid base64/],
    ['whitespace only', { faxData: [{ fileData: ' \n ' }] }, 'INVALID_FILE_FORMAT', 'faxData[0].fileData', /faxData\[0\]\.fileData is empty/],
    ['padding only', { faxData: [{ fileData: '==' }] }, 'INVALID_FILE_FORMAT', 'faxData[0].fileData', /not valid base64/],
    ['fileData not a string', { faxData: [{ fileData: [1, 2] }] }, 'INVALID_PARAMETER', 'faxData[0].fileData', /must be a base64 string, got a list/],
    // fileName and pages
    ['fileName a number', { faxData: [{ ...URL_FILE, fileName: 12 }] }, 'INVALID_PARAMETER', 'faxData[0].fileName', /must be a string/],
    ['fileName too long', { faxData: [{ ...URL_FILE, fileName: `${'a'.repeat(256)}.pdf` }] }, 'INVALID_PARAMETER', 'faxData[0].fileName', /longer than 255/],
    ['pages empty', { faxData: [{ ...URL_FILE, pages: [] }] }, 'INVALID_PARAMETER', 'faxData[0].pages', /at least one page/],
    ['pages reversed', { faxData: [URL_FILE, { ...URL_FILE, pages: ['3-1'] }] }, 'INVALID_PARAMETER', 'faxData[1].pages[0]', /reversed/],
    // send_at
    ['send_at in the past', { send_at: '2026-01-01T11:59:58Z' }, 'INVALID_PARAMETER', 'send_at', /is in the past/],
    ['send_at over a year ahead', { send_at: '2027-01-01T12:00:01Z' }, 'INVALID_PARAMETER', 'send_at', /more than one year ahead/],
    ['send_at without a zone', { send_at: '2026-01-02T09:30:00' }, 'INVALID_PARAMETER', 'send_at', /has no time zone/],
    ['send_at a date only', { send_at: '2026-01-02' }, 'INVALID_PARAMETER', 'send_at', /not an ISO 8601 date-time/],
    ['send_at on Feb 30', { send_at: '2026-02-30T09:00:00Z' }, 'INVALID_PARAMETER', 'send_at', /day 30, but that month has 28 days/],
    ['send_at hour 24', { send_at: '2026-01-02T24:00:00Z' }, 'INVALID_PARAMETER', 'send_at', /time of day out of range/],
    ['send_at as Unix seconds', { send_at: 1767355200 }, 'INVALID_PARAMETER', 'send_at', /must be a string \(ISO 8601/],
    ['send_at in words', { send_at: 'tomorrow' }, 'INVALID_PARAMETER', 'send_at', /not an ISO 8601/],
    // quality and text fields
    ['faxQuality unknown', { faxQuality: 'Ultra' }, 'INVALID_PARAMETER', 'faxQuality', /one of Low, Standard, HD/],
    ['faxQuality a number', { faxQuality: 2 }, 'INVALID_PARAMETER', 'faxQuality', /must be a string/],
    ['subject a number', { subject: 5 }, 'INVALID_PARAMETER', 'subject', /subject must be a string, got a number/],
    ['from_name an object', { from_name: { a: 1 } }, 'INVALID_PARAMETER', 'from_name', /from_name must be a string, got an object/],
    ['subject too long', { subject: 'x'.repeat(201) }, 'INVALID_PARAMETER', 'subject', /longer than 200/],
    ['to_name too long', { to_name: 'x'.repeat(201) }, 'INVALID_PARAMETER', 'to_name', /longer than 200/],
    ['message too long', { message: 'x'.repeat(4001) }, 'INVALID_PARAMETER', 'message', /longer than 4000/],
    ['templateId too long', { templateId: 'x'.repeat(101) }, 'INVALID_PARAMETER', 'templateId', /longer than 100/],
    ['smartDocumentId a boolean', { smartDocumentId: true }, 'INVALID_PARAMETER', 'smartDocumentId', /must be a string, got a boolean/],
    ['templateId with a control char', { templateId: 'a\u0000b' }, 'INVALID_PARAMETER', 'templateId', /control characters/],
  ])('%s', (_name, extra, name, field, message) => {
    const err = refused(extra);
    expect(err.def.name).toBe(name);
    expect(err.field).toBe(field);
    expect(err.message).toMatch(message);
  });
});

describe('parseSendRequest: individual rules', () => {
  it.each<[string, string, string]>([
    ['standard alphabet with padding', 'aGVsbG8=', 'hello'],
    ['padding omitted', 'aGVsbG8', 'hello'],
    ['line-wrapped (MIME style)', 'aGVs\r\nbG8g\nd29y bGQ=', 'hello world'],
  ])('fileData: %s', (_n, b64, text) => {
    const data = send({ faxData: [{ fileData: b64 }] }).files[0]?.data;
    expect(data?.toString('utf8')).toBe(text);
  });

  it('fileData: URL-safe and standard decode to the same bytes', () => {
    const bytes = Buffer.from([0xfb, 0xff, 0xbf, 0x3e, 0x3f]);
    const std = send({ faxData: [{ fileData: bytes.toString('base64') }] }).files[0]?.data;
    const url = send({ faxData: [{ fileData: bytes.toString('base64url') }] }).files[0]?.data;
    expect(std?.equals(bytes)).toBe(true);
    expect(url?.equals(bytes)).toBe(true);
  });

  it.each<[string, unknown, string]>([
    ['path stripped (unix)', '../../etc/passwd', 'passwd'],
    ['path stripped (windows)', 'C:\\docs\\scan.tif', 'scan.tif'],
    ['control and bidi characters removed', 'inv\u0000oice\u202Efdp.exe', 'invoicefdp.exe'],
    ['only a path → default name', 'dir/', 'document-1'],
    ['dot-dot → default name', '..', 'document-1'],
    ['empty → default name', '', 'document-1'],
    ['255 characters is fine', `${'n'.repeat(251)}.pdf`, `${'n'.repeat(251)}.pdf`],
  ])('fileName: %s', (_n, fileName, expected) => {
    expect(send({ faxData: [{ ...URL_FILE, fileName }] }).files[0]?.fileName).toBe(expected);
  });

  it('fileUrl is normalized (WHATWG URL), so later checks see the real host', () => {
    expect(send({ faxData: [{ fileUrl: ' HTTP://Docs.Example.COM:80/a b.pdf ' }] }).files[0]?.fileUrl).toBe('http://docs.example.com/a%20b.pdf');
    expect(send({ faxData: [{ fileUrl: 'http://2130706433/x' }] }).files[0]?.fileUrl).toBe('http://127.0.0.1/x');
  });

  it.each<[string, string, number]>([
    ['Z', '2026-01-02T09:30:00Z', Date.UTC(2026, 0, 2, 9, 30)],
    ['lower-case z and no seconds', '2026-01-02t09:30z', Date.UTC(2026, 0, 2, 9, 30)],
    ['positive offset', '2026-01-02T10:30:00+01:00', Date.UTC(2026, 0, 2, 9, 30)],
    ['negative offset without colon', '2026-01-02T04:30:00-0500', Date.UTC(2026, 0, 2, 9, 30)],
    ['fractional seconds', '2026-01-02T09:30:00.250Z', Date.UTC(2026, 0, 2, 9, 30, 0, 250)],
    ['space separator', '2026-01-02 09:30:00Z', Date.UTC(2026, 0, 2, 9, 30)],
    ['leap day', '2028-02-29T00:00:00Z', Date.UTC(2028, 1, 29)],
  ])('send_at: %s', (_n, sendAt, ms) => {
    // The leap day is more than a year after NOW; check it against a later "now".
    const nowMs = ms > NOW + SEND_AT_MAX_AHEAD_MS ? ms - 1000 : NOW;
    expect(parseSendRequest({ faxNumber: '+15550100486', faxData: [URL_FILE], send_at: sendAt }, { nowMs }).sendAtMs).toBe(ms);
  });

  it('send_at: up to 1 s in the past is accepted as "now", 1 year ahead exactly is accepted', () => {
    expect(send({ send_at: '2026-01-01T11:59:59Z' }).sendAtMs).toBe(NOW - 1000);
    expect(send({ send_at: '2027-01-01T12:00:00Z' }).sendAtMs).toBe(NOW + SEND_AT_MAX_AHEAD_MS);
  });

  it.each([
    ['low', 'Low'],
    ['STANDARD', 'Standard'],
    [' Hd ', 'HD'],
    ['', 'Standard'],
  ])('faxQuality %j → %s', (q, expected) => {
    expect(send({ faxQuality: q }).quality).toBe(expected);
  });

  it('cover lines lose control characters; the message keeps its line breaks', () => {
    expect(send({ subject: 'a\nb\tc' }).cover).toEqual({ subject: 'a b c' });
    expect(send({ message: 'x\u0007y\r\nz' }).cover).toEqual({ message: 'xy\nz' });
    // length counts characters, not UTF-16 units
    expect(send({ subject: '😀'.repeat(200) }).cover?.subject).toHaveLength(400);
  });

  it('respects maxFiles / maxRecipients options', () => {
    const body = { faxNumber: ['+15550100486', '+15550100487'], faxData: [URL_FILE, URL_FILE] };
    expect(caughtFaxError(() => parseSendRequest(body, { nowMs: NOW, maxFiles: 1 })).message).toContain('at most 1 files');
    expect(caughtFaxError(() => parseSendRequest(body, { nowMs: NOW, maxRecipients: 1 })).def.name).toBe('TOO_MANY_RECIPIENTS');
  });

  it('reads only own properties of the body', () => {
    const proto = { faxData: [URL_FILE] };
    const body = Object.assign(Object.create(proto) as Record<string, unknown>, { faxNumber: '+15550100486' });
    expect(caughtFaxError(() => parseSendRequest(body, { nowMs: NOW })).field).toBe('faxData');
  });
});

describe('parseJobId', () => {
  it.each<[unknown, number]>([
    [1, 1],
    ['42', 42],
    [' 7 ', 7],
    [Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  ])('%j → %d', (v, n) => {
    expect(parseJobId(v)).toBe(n);
  });

  it.each<[unknown, RegExp]>([
    [undefined, /jobId is required/],
    ['', /jobId is required/],
    [0, /positive integer/],
    [-3, /positive integer/],
    [1.5, /positive integer/],
    ['1e3', /positive integer/],
    ['0x10', /positive integer/],
    ['12abc', /positive integer/],
    [Number.MAX_SAFE_INTEGER + 1, /positive integer/],
    [{}, /got an object/],
  ])('%j is refused', (v, message) => {
    const err = caughtFaxError(() => parseJobId(v, 'jobId'));
    expect(err.def.name).toBe('INVALID_PARAMETER');
    expect(err.field).toBe('jobId');
    expect(err.message).toMatch(message);
  });
});

describe('parseListQuery', () => {
  it('defaults', () => {
    expect(parseListQuery({})).toEqual({ limit: 20 });
    expect(parseListQuery({ status: '', limit: '' })).toEqual({ limit: 20 });
  });

  it('parses every filter', () => {
    expect(
      parseListQuery({
        status: 'delivered',
        direction: 'sent',
        from: '2026-01-01T00:00:00Z',
        to: '1767312000',
        number: '+1 555-010',
        limit: '100',
        before: '500',
      }),
    ).toEqual({
      status: 'delivered',
      direction: 'sent',
      fromMs: Date.UTC(2026, 0, 1),
      toMs: 1767312000_000,
      number: '+1555010',
      limit: 100,
      beforeJobId: 500,
    });
    expect(parseListQuery({ from: 0, to: 1 })).toEqual({ limit: 20, fromMs: 0, toMs: 1000 });
  });

  it.each<[Record<string, unknown>, string, RegExp]>([
    [{ status: 'queued' }, 'status', /one of sending, delivered, canceled, failed/],
    [{ direction: 'up' }, 'direction', /one of sent, received/],
    [{ from: 'yesterday' }, 'from', /not an ISO 8601 date-time.*Unix seconds/],
    [{ to: '2026-01-01T00:00:00' }, 'to', /no time zone/],
    [{ from: '1767312000', to: '1767225600' }, 'from', /from is later than to/],
    [{ from: -5 }, 'from', /not a valid Unix time/],
    [{ number: 'abc' }, 'number', /digits/],
    [{ number: 5 }, 'number', /must be a string/],
    [{ limit: '0' }, 'limit', /1 to 100/],
    [{ limit: 101 }, 'limit', /1 to 100/],
    [{ limit: 'ten' }, 'limit', /1 to 100/],
    [{ before: '-1' }, 'before', /positive integer/],
  ])('%j is refused', (q, field, message) => {
    const err = caughtFaxError(() => parseListQuery(q));
    expect(err.def.name).toBe('INVALID_PARAMETER');
    expect(err.field).toBe(field);
    expect(err.message).toMatch(message);
  });
});
