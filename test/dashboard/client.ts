// A tiny browser for dashboard tests over real HTTP: a cookie jar, no redirects followed,
// the CSRF token read from the last page's forms.

export interface Page {
  status: number;
  headers: Headers;
  text: string;
  setCookies: string[];
  location: string | null;
}

export class Browser {
  readonly cookies = new Map<string, string>();
  /** The CSRF token of the last HTML page fetched. */
  csrf = '';

  constructor(
    readonly origin: string,
    /** Sent as X-Forwarded-For (the service trusts the proxy in these tests): one address per browser. */
    readonly address: string,
    readonly extraHeaders: Record<string, string> = {},
  ) {}

  private headers(more: Record<string, string> = {}): Record<string, string> {
    const cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    return { 'X-Forwarded-For': this.address, ...this.extraHeaders, ...(cookie ? { Cookie: cookie } : {}), ...more };
  }

  private async take(res: Response): Promise<Page> {
    const setCookies = res.headers.getSetCookie();
    for (const sc of setCookies) {
      const [pair] = sc.split(';');
      const i = pair!.indexOf('=');
      const name = pair!.slice(0, i);
      const value = pair!.slice(i + 1);
      if (/Max-Age=0/i.test(sc)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const text = (res.headers.get('content-type') ?? '').startsWith('text/') ? await res.text() : (await res.arrayBuffer(), '');
    const m = /name="_csrf" value="([^"]+)"/.exec(text);
    if (m) this.csrf = m[1]!;
    return { status: res.status, headers: res.headers, text, setCookies, location: res.headers.get('location') };
  }

  async get(path: string): Promise<Page> {
    return this.take(await fetch(this.origin + path, { headers: this.headers(), redirect: 'manual' }));
  }

  async raw(path: string): Promise<Response> {
    return fetch(this.origin + path, { headers: this.headers(), redirect: 'manual' });
  }

  /** POSTs a form; the page's CSRF token is added unless `csrf` is given (null: none). */
  async post(path: string, fields: Record<string, string> = {}, o: { csrf?: string | null } = {}): Promise<Page> {
    const token = o.csrf === undefined ? this.csrf : o.csrf;
    const body = new URLSearchParams({ ...fields, ...(token === null ? {} : { _csrf: token }) }).toString();
    return this.take(await fetch(this.origin + path, {
      method: 'POST', body, redirect: 'manual', headers: this.headers({ 'Content-Type': 'application/x-www-form-urlencoded' }),
    }));
  }

  async signIn(name: string, password: string): Promise<Page> {
    await this.get('/dashboard/sign-in');
    return this.post('/dashboard/sign-in', { name, password });
  }
}
