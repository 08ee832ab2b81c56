// SSRF attempts through `fileUrl` (docs/api.md, fax-send; fetch.ts, address-policy.ts). Every way of
// writing an internal address: private and special ranges, IPv6 and its IPv4-embedding forms,
// decimal/octal/hex/short IPv4 (the WHATWG URL parser turns them into dotted quads), loopback
// names, and the schemes and userinfo tricks that fax-send refuses outright.
//
// `{v4}` and `{v6}` are replaced with the ports of canary servers on 127.0.0.1 and [::1]: a
// refused URL must never reach them.

export type UrlExpect =
  /** fax-send refuses the URL itself (status -2, code -3000, field faxData[0].fileUrl). */
  | 'request'
  /** fax-send accepts it; the download is refused and the job fails with -3110 before any call. */
  | 'download';

export interface HostileUrl {
  url: string;
  expect: UrlExpect;
  /** The canary server this URL would reach if the policy failed. */
  canary?: 'v4' | 'v6';
}

const v4 = (url: string): HostileUrl => ({ url, expect: 'download', canary: 'v4' });
const v6 = (url: string): HostileUrl => ({ url, expect: 'download', canary: 'v6' });
const blocked = (url: string): HostileUrl => ({ url, expect: 'download' });
const refused = (url: string): HostileUrl => ({ url, expect: 'request' });

export const SSRF_URLS: HostileUrl[] = [
  // loopback, every spelling (all reach the canary on 127.0.0.1 if let through)
  v4('http://127.0.0.1:{v4}/secret'),
  v4('http://2130706433:{v4}/secret'), // decimal
  v4('http://0177.0.0.1:{v4}/secret'), // octal
  v4('http://0x7f000001:{v4}/secret'), // hex
  v4('http://0x7f.0.0.1:{v4}/secret'),
  v4('http://127.1:{v4}/secret'), // short form
  v4('http://127.0.1:{v4}/secret'),
  v4('http://0:{v4}/secret'), // 0.0.0.0 connects to the local host on Linux
  v4('http://0.0.0.0:{v4}/secret'),
  v4('http://localhost:{v4}/secret'), // a name that resolves to loopback (/etc/hosts)
  v4('http://LOCALHOST:{v4}/secret'),
  v4('http://%6c%6f%63%61%6c%68%6f%73%74:{v4}/secret'), // percent-encoded host
  v4('http://127.0.0.1.:{v4}/secret'), // trailing dot
  v4('https://127.0.0.1:{v4}/secret'),
  v6('http://[::1]:{v6}/secret'),
  v6('http://[0:0:0:0:0:0:0:1]:{v6}/secret'),
  v4('http://[::ffff:127.0.0.1]:{v4}/secret'), // IPv4-mapped
  v4('http://[::ffff:7f00:1]:{v4}/secret'),
  v4('http://[0:0:0:0:0:ffff:127.0.0.1]:{v4}/secret'),
  blocked('http://[::]/'),
  blocked('http://[::127.0.0.1]/'), // IPv4-compatible (deprecated)
  blocked('http://[64:ff9b::127.0.0.1]/'), // NAT64 of loopback
  blocked('http://[2002:7f00:1::]/'), // 6to4 of loopback
  blocked('http://127.255.255.254/'),
  // other ports of internal services
  blocked('http://127.0.0.1:22/'),
  blocked('http://127.0.0.1:6379/'),
  blocked('http://[::1]:25/'),
  blocked('http://10.0.0.1:5432/'),
  blocked('https://169.254.169.254:443/latest/meta-data/'),
  // private and special IPv4 ranges
  blocked('http://10.0.0.1/'),
  blocked('http://10.255.255.255/'),
  blocked('http://012.0.0.1/'), // octal 10.0.0.1
  blocked('http://167772161/'), // decimal 10.0.0.1
  blocked('http://172.16.0.1/'),
  blocked('http://172.31.255.254/'),
  blocked('http://192.168.0.1/'),
  blocked('http://192.168.1.1:8080/admin'),
  blocked('http://169.254.169.254/latest/meta-data/'), // cloud metadata
  blocked('http://0xa9fea9fe/latest/meta-data/'), // the same, hex
  blocked('http://2852039166/latest/meta-data/'), // the same, decimal
  blocked('http://[::ffff:169.254.169.254]/latest/meta-data/'),
  blocked('http://100.64.0.1/'), // carrier-grade NAT
  blocked('http://192.0.0.1/'),
  blocked('http://198.18.0.1/'),
  blocked('http://224.0.0.1/'), // multicast
  blocked('http://255.255.255.255/'),
  // private and special IPv6
  blocked('http://[fc00::1]/'),
  blocked('http://[fd12:3456:789a::1]/'),
  blocked('http://[fe80::1]/'),
  blocked('http://[fec0::1]/'),
  blocked('http://[ff02::1]/'),
  blocked('http://[2001:db8::1]/'),
  blocked('http://[100::1]/'),
  // names that resolve to nothing here (offline) or to loopback: refused either way
  blocked('http://localhost./'),
  blocked('http://ip6-localhost/'),
  blocked('http://metadata.google.internal/computeMetadata/v1/'),
  blocked('http:///etc/passwd'), // the URL standard reads this as http://etc/passwd: host "etc"
  // schemes and userinfo: refused by fax-send itself
  refused('file:///etc/passwd'),
  refused('ftp://127.0.0.1/a.pdf'),
  refused('gopher://127.0.0.1:6379/_FLUSHALL'),
  refused('data:application/pdf;base64,JVBERi0='),
  refused('dict://127.0.0.1:11211/stat'),
  refused('javascript:alert(1)'),
  refused('http://evil@127.0.0.1/'),
  refused('http://user:pass@example.com/a.pdf'),
  refused('http://example.com@127.0.0.1/'),
  refused('http://[fe80::1%25eth0]/'),
  refused('//127.0.0.1/a.pdf'),
  refused('http://127.0.0.1:99999/'),
  refused('http://[::1/'),
];

/** Redirect targets served by a trusted (allow-listed) server: each hop is checked again. */
export const REDIRECT_TARGETS: HostileUrl[] = [
  v4('http://localhost:{v4}/secret'),
  blocked('http://127.0.0.2/secret'),
  v4('http://[::ffff:127.0.0.1]:{v4}/secret'),
  v4('http://0.0.0.0:{v4}/secret'),
  v6('http://[::1]:{v6}/secret'),
  blocked('http://169.254.169.254/latest/meta-data/'),
  blocked('http://10.0.0.1/'),
  blocked('http://[fd00::1]/'),
  blocked('file:///etc/passwd'),
  blocked('gopher://127.0.0.1:6379/_FLUSHALL'),
  blocked('http://evil@127.0.0.1/'),
  blocked('data:text/plain,hello'),
];
