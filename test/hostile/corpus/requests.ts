// Hostile API requests: bodies that are not JSON, JSON of the wrong shape, wrong types, huge and
// non-finite numbers, deep nesting, prototype keys, bad base64, broken form encodings, odd
// content types and query strings. Each says the documented answer (docs/api.md decision 5:
// HTTP status, envelope status, code, field).

export interface HostileRequest {
  name: string;
  /** Path under /v1. Query values `{own}` / `{other}` become a job of the caller / of another account. */
  path: string;
  method?: string;
  body?: string | Buffer;
  contentType?: string;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  expect: { http: number; status: number; code: number; field?: string };
}

const NUMBER = '+14155550123';
const TEXT_B64 = Buffer.from('hello hostile world\n').toString('base64');
const okDoc = `[{"fileName":"a.txt","fileData":"${TEXT_B64}"}]`;
const bad = (code: number, field?: string) => ({ http: 400, status: -2, code, ...(field === undefined ? {} : { field }) });
const INVALID = -3000;
const send = '/customer/fax-send';
/** A page past the end of the caller's own fax. */
const PREVIEW_PAGE = { http: 400, status: -2, code: -3000, field: 'page' };

const json = (name: string, body: string, expect: HostileRequest['expect']): HostileRequest => ({ name, path: send, body, contentType: 'application/json', expect });
const form = (name: string, body: string, expect: HostileRequest['expect']): HostileRequest => ({ name, path: send, body, contentType: 'application/x-www-form-urlencoded', expect });

export const REQUESTS: HostileRequest[] = [
  // ---- broken JSON
  json('JSON cut off mid-object', `{"faxNumber":"${NUMBER}","faxData":[{"fileName":`, bad(INVALID)),
  json('JSON with single quotes', `{'faxNumber':'${NUMBER}'}`, bad(INVALID)),
  json('JSON with a trailing comma', `{"faxNumber":"${NUMBER}","faxData":${okDoc},}`, bad(INVALID)),
  json('JSON with NaN', `{"faxNumber":NaN,"faxData":${okDoc}}`, bad(INVALID)),
  json('JSON with a comment', `{/* hi */"faxNumber":"${NUMBER}","faxData":${okDoc}}`, bad(INVALID)),
  json('JSON: two objects back to back', `{"faxNumber":"${NUMBER}"}{"faxData":${okDoc}}`, bad(INVALID)),
  json('JSON body "null"', 'null', bad(-3001, 'faxNumber')),
  json('JSON body a string', '"send a fax"', bad(INVALID)),
  json('JSON body a number', '12345', bad(INVALID)),
  json('JSON body true', 'true', bad(INVALID)),
  json('JSON 100 000 nested arrays', '['.repeat(100_000) + ']'.repeat(100_000), bad(INVALID)),
  json('JSON 100 000 nested objects in a field', `{"faxNumber":"${NUMBER}","faxData":${okDoc},"x":${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}}`, { http: 200, status: 1, code: 0 }),
  { ...json('JSON 10 000 nested arrays in a field, with an Idempotency-Key', `{"faxNumber":"${NUMBER}","faxData":${okDoc},"x":${'['.repeat(10_000)}${']'.repeat(10_000)}}`, bad(INVALID)), headers: { 'Idempotency-Key': 'deep-1' } },
  json('JSON unterminated 100 000 nested arrays', '['.repeat(100_000), bad(INVALID)),
  { name: 'JSON with invalid UTF-8 bytes', path: send, contentType: 'application/json', body: Buffer.concat([Buffer.from(`{"faxNumber":"${NUMBER}","subject":"`), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from(`","faxData":${okDoc}}`)]), expect: { http: 200, status: 1, code: 0 } },
  json('JSON with a NUL in the number', `{"faxNumber":"+1415555\\u00000123","faxData":${okDoc}}`, bad(-3001, 'faxNumber')),
  json('JSON with lone surrogates in subject', `{"faxNumber":"${NUMBER}","subject":"\\ud800\\udfff\\udc00","faxData":${okDoc}}`, { http: 200, status: 1, code: 0 }),
  json('JSON __proto__ smuggling faxData', `{"faxNumber":"${NUMBER}","__proto__":{"faxData":${okDoc}}}`, bad(INVALID, 'faxData')),
  json('JSON constructor.prototype key', `{"faxNumber":"${NUMBER}","constructor":{"prototype":{"faxData":1}},"faxData":${okDoc}}`, { http: 200, status: 1, code: 0 }),
  json('JSON duplicate keys (last wins)', `{"faxNumber":"nope","faxNumber":"${NUMBER}","faxData":${okDoc}}`, { http: 200, status: 1, code: 0 }),
  // ---- wrong types and huge numbers
  json('faxNumber 1e400 (Infinity)', `{"faxNumber":1e400,"faxData":${okDoc}}`, bad(-3001, 'faxNumber')),
  json('faxNumber -0', `{"faxNumber":-0,"faxData":${okDoc}}`, bad(-3001, 'faxNumber')),
  json('faxNumber of 10 000 digits', `{"faxNumber":"+${'9'.repeat(10_000)}","faxData":${okDoc}}`, bad(-3001, 'faxNumber')),
  json('faxNumber a 1 MB string', `{"faxNumber":"${'+'.repeat(1 << 20)}","faxData":${okDoc}}`, bad(-3001, 'faxNumber')),
  json('faxNumber null', `{"faxNumber":null,"faxData":${okDoc}}`, bad(-3001, 'faxNumber')),
  json('faxNumber true', `{"faxNumber":true,"faxData":${okDoc}}`, bad(-3001, 'faxNumber')),
  json('faxNumber: 100 000 commas', `{"faxNumber":"${','.repeat(100_000)}","faxData":${okDoc}}`, bad(-3001, 'faxNumber')),
  json('faxNumber: an array of 100 000', `{"faxNumber":[${Array(100_000).fill(`"${NUMBER}"`).join(',')}],"faxData":${okDoc}}`, bad(-3008, 'faxNumber')),
  json('faxData: 100 000 items', `{"faxNumber":"${NUMBER}","faxData":[${Array(100_000).fill('{}').join(',')}]}`, bad(INVALID, 'faxData')),
  json('faxData null', `{"faxNumber":"${NUMBER}","faxData":null}`, bad(INVALID, 'faxData')),
  json('faxData a string', `{"faxNumber":"${NUMBER}","faxData":"file.pdf"}`, bad(INVALID, 'faxData')),
  json('faxData item null', `{"faxNumber":"${NUMBER}","faxData":[null]}`, bad(INVALID, 'faxData[0]')),
  json('fileData an array', `{"faxNumber":"${NUMBER}","faxData":[{"fileName":"a","fileData":["aGk="]}]}`, bad(INVALID, 'faxData[0].fileData')),
  json('fileData with characters outside base64', `{"faxNumber":"${NUMBER}","faxData":[{"fileName":"a","fileData":"aGVs*bG8="}]}`, bad(-3006, 'faxData[0].fileData')),
  json('fileData with padding in the middle', `{"faxNumber":"${NUMBER}","faxData":[{"fileName":"a","fileData":"aG==VsbG8="}]}`, bad(-3006, 'faxData[0].fileData')),
  json('fileData of a single character', `{"faxNumber":"${NUMBER}","faxData":[{"fileName":"a","fileData":"a"}]}`, bad(-3006, 'faxData[0].fileData')),
  json('fileData "===="', `{"faxNumber":"${NUMBER}","faxData":[{"fileName":"a","fileData":"===="}]}`, bad(-3006, 'faxData[0].fileData')),
  json('fileData with unicode digits', `{"faxNumber":"${NUMBER}","faxData":[{"fileName":"a","fileData":"\u0661\u0662\u0663\u0664"}]}`, bad(-3006, 'faxData[0].fileData')),
  json('fileUrl a number', `{"faxNumber":"${NUMBER}","faxData":[{"fileName":"a","fileUrl":12}]}`, bad(INVALID, 'faxData[0].fileUrl')),
  json('fileUrl 100 KB long', `{"faxNumber":"${NUMBER}","faxData":[{"fileName":"a","fileUrl":"http://example.com/${'a'.repeat(100_000)}"}]}`, bad(INVALID, 'faxData[0].fileUrl')),
  json('pages [1e309]', `{"faxNumber":"${NUMBER}","faxData":[{"fileName":"a","fileData":"${TEXT_B64}","pages":[1e309]}]}`, bad(INVALID, 'faxData[0].pages[0]')),
  json('pages ["1-99999999999999999999"]', `{"faxNumber":"${NUMBER}","faxData":[{"fileName":"a","fileData":"${TEXT_B64}","pages":["1-99999999999999999999"]}]}`, bad(INVALID, 'faxData[0].pages[0]')),
  json('pages ["-1"]', `{"faxNumber":"${NUMBER}","faxData":[{"fileName":"a","fileData":"${TEXT_B64}","pages":["-1"]}]}`, bad(INVALID, 'faxData[0].pages[0]')),
  json('send_at year 275760', `{"faxNumber":"${NUMBER}","send_at":"+275760-09-13T00:00:00Z","faxData":${okDoc}}`, bad(INVALID, 'send_at')),
  json('send_at year 9999', `{"faxNumber":"${NUMBER}","send_at":"9999-12-31T23:59:59Z","faxData":${okDoc}}`, bad(INVALID, 'send_at')),
  json('subject 1 MB', `{"faxNumber":"${NUMBER}","subject":"${'s'.repeat(1 << 20)}","faxData":${okDoc}}`, bad(INVALID, 'subject')),
  json('faxQuality an object', `{"faxNumber":"${NUMBER}","faxQuality":{"toString":"HD"},"faxData":${okDoc}}`, bad(INVALID, 'faxQuality')),
  json('_method a number', `{"_method":7,"faxNumber":"${NUMBER}","faxData":${okDoc}}`, { http: 200, status: 1, code: 0 }),
  json('_method DELETE', `{"_method":"DELETE","faxNumber":"${NUMBER}","faxData":${okDoc}}`, { http: 405, status: -1, code: -3013 }),
  // ---- form bodies
  form('form with broken percent-encoding', `faxNumber=%E0%A4%A&faxData[0][fileData]=${TEXT_B64}`, bad(INVALID)),
  form('form nested 6 levels', `a[b][c][d][e][f][g]=1&faxNumber=${encodeURIComponent(NUMBER)}`, bad(INVALID, 'a')),
  form('form index 1001', `faxNumber=${encodeURIComponent(NUMBER)}&faxData[1001][fileData]=${TEXT_B64}`, bad(INVALID, 'faxData[1001][fileData]')),
  form('form with 10 001 fields', Array.from({ length: 10_001 }, (_, i) => `f${i}=1`).join('&'), bad(INVALID)),
  form('form __proto__ keys', `__proto__[faxData][0][fileData]=${TEXT_B64}&faxNumber=${encodeURIComponent(NUMBER)}`, bad(INVALID, 'faxData')),
  form('form field both value and container', `faxNumber=${encodeURIComponent(NUMBER)}&faxData=1&faxData[0][fileData]=x`, bad(INVALID, 'faxData[0][fileData]')),
  form('form with a valid fax', `faxNumber=${encodeURIComponent(NUMBER)}&faxData[0][fileName]=a.txt&faxData[0][fileData]=${encodeURIComponent(TEXT_B64)}`, { http: 200, status: 1, code: 0 }),
  // ---- content types
  { name: 'text/plain body', path: send, body: `{"faxNumber":"${NUMBER}"}`, contentType: 'text/plain', expect: { http: 415, status: -2, code: -3014 } },
  { name: 'multipart body', path: send, body: '--x\r\n\r\n--x--', contentType: 'multipart/form-data; boundary=x', expect: { http: 415, status: -2, code: -3014 } },
  { name: 'content type with a 10 KB parameter', path: send, body: '{}', contentType: `application/json; charset=${'x'.repeat(10_000)}`, expect: bad(-3001, 'faxNumber') },
  { name: 'content type garbage', path: send, body: '{}', contentType: ';;;/;', expect: { http: 415, status: -2, code: -3014 } },
  // ---- query strings
  { name: 'fax-status jobId 99999999999999999999', path: '/customer/fax-status', query: { jobId: '99999999999999999999' }, expect: bad(INVALID, 'jobId') },
  { name: 'fax-status jobId -1', path: '/customer/fax-status', query: { jobId: '-1' }, expect: bad(INVALID, 'jobId') },
  { name: 'fax-status jobId 1e3', path: '/customer/fax-status', query: { jobId: '1e3' }, expect: bad(INVALID, 'jobId') },
  { name: 'fax-status jobId 0x10', path: '/customer/fax-status', query: { jobId: '0x10' }, expect: bad(INVALID, 'jobId') },
  { name: 'fax-status jobId of another account', path: '/customer/fax-status', query: { jobId: '{other}' }, expect: { http: 404, status: -5, code: -3011, field: 'jobId' } },
  { name: 'fax-status jobId 9007199254740991', path: '/customer/fax-status', query: { jobId: '9007199254740991' }, expect: { http: 404, status: -5, code: -3011, field: 'jobId' } },
  { name: 'fax-list limit 1e12', path: '/customer/fax-list', query: { limit: '1000000000000' }, expect: bad(INVALID, 'limit') },
  { name: 'fax-list limit -5', path: '/customer/fax-list', query: { limit: '-5' }, expect: bad(INVALID, 'limit') },
  { name: 'fax-preview page 1e9 of its own job', path: '/customer/fax-preview', query: { jobId: '{own}', page: '1000000000' }, expect: PREVIEW_PAGE },
  { name: 'fax-download of another account', path: '/customer/fax-download', query: { jobId: '{other}' }, expect: { http: 404, status: -5, code: -3011, field: 'jobId' } },
  { name: 'fax-preview width 1e9', path: '/customer/fax-preview', query: { jobId: '{own}', page: '1', width: '1000000000' }, expect: bad(INVALID, 'width') },
];
