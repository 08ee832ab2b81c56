// The change notifications of the PostgreSQL store: one LISTEN connection outside the pool (it
// must stay open), callbacks per channel, and a reconnect after the connection is lost — after
// which every subscriber is called with '' (whatever was notified meanwhile is lost: look again).
import pg from 'pg';

/** The LISTEN connection is reopened this long after it was lost (server restart, network). */
const LISTENER_RETRY_MS = 1000;

export class PgListener {
  private client: pg.Client | null = null;
  private listening: Promise<pg.Client> | null = null;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private closed = false;
  private readonly subscribers = new Map<string, Set<(payload: string) => void>>();

  constructor(
    private readonly config: pg.ClientConfig,
    private readonly channels: readonly string[],
  ) {}

  /** Calls `cb(payload)` for each notification on `channel`, once listening; returns the unsubscribe function. */
  async subscribe(channel: string, cb: (payload: string) => void): Promise<() => void> {
    let set = this.subscribers.get(channel);
    if (!set) this.subscribers.set(channel, (set = new Set()));
    set.add(cb);
    await this.listen();
    return () => void set.delete(cb);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    const client = this.client;
    this.client = null;
    this.listening = null;
    this.subscribers.clear();
    if (client) await client.end().catch(() => {});
  }

  private listen(): Promise<pg.Client> {
    if (this.closed) return Promise.reject(new Error('store is closed'));
    this.listening ??= (async () => {
      const client = new pg.Client(this.config);
      client.on('error', () => this.lost(client));
      client.on('end', () => this.lost(client));
      client.on('notification', (n) => {
        for (const cb of this.subscribers.get(n.channel) ?? []) cb(n.payload ?? '');
      });
      try {
        await client.connect();
        await client.query(this.channels.map((c) => `LISTEN ${c}`).join('; '));
      } catch (e) {
        this.listening = null;
        await client.end().catch(() => {});
        throw e;
      }
      this.client = client;
      return client;
    })();
    return this.listening;
  }

  /** The connection died: reopen it after a pause, until it works or the store closes. */
  private lost(client: pg.Client): void {
    if (this.closed || this.client !== client) return;
    this.client = null;
    this.listening = null;
    client.end().catch(() => {});
    this.scheduleRelisten();
  }

  private scheduleRelisten(): void {
    if (this.closed || this.reconnectTimer) return;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      this.listen().then(
        () => {
          for (const set of this.subscribers.values()) for (const cb of set) cb('');
        },
        () => this.scheduleRelisten(),
      );
    }, LISTENER_RETRY_MS);
    this.reconnectTimer.unref();
  }
}
