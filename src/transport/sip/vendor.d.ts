// Types of the two npm packages the SIP layer wraps: `sip` 0.0.6 (kirm/sip.js, no types of its
// own) and `sdp-transform` (its parse() only, as used here). Only what stack.ts and sdp.ts use.

declare module 'sip' {
  export interface SipUri {
    schema?: string;
    user?: string;
    password?: string;
    host: string;
    port?: number;
    params: Record<string, string | null>;
    headers: Record<string, string>;
  }
  export interface SipAddress {
    name?: string;
    uri: string;
    params: Record<string, string | null>;
  }
  export interface SipVia {
    version?: string;
    protocol?: string;
    host?: string;
    port?: number;
    params: Record<string, string | null>;
  }
  export interface SipMessage {
    method?: string;
    uri?: string;
    version?: string;
    status?: number;
    reason?: string;
    headers: Record<string, unknown> & {
      via?: SipVia[];
      to?: SipAddress;
      from?: SipAddress;
      'call-id'?: string;
      cseq?: { seq: number; method: string };
      contact?: SipAddress[] | '*';
      route?: SipAddress[];
      'record-route'?: Array<{ name?: string; uri: SipUri | string; params: Record<string, string | null> }>;
    };
    content?: string;
  }
  export interface Remote {
    protocol: string;
    address: string;
    port: number;
    local?: { address: string; port: number };
  }
  export interface Connection {
    send(m: SipMessage): void;
    release(): void;
    protocol: string;
  }
  export interface Transport {
    open(target: Remote, onError?: (e: Error) => void): Connection;
    get(target: Remote, onError?: (e: Error) => void): Connection | undefined;
    destroy(): void;
  }
  export interface TransportOptions {
    port?: number;
    address?: string;
    publicAddress?: string;
    hostname?: string;
    udp?: boolean;
    tcp?: boolean;
    rport?: boolean;
    logger?: { send?(m: SipMessage, target: Remote): void; recv?(m: SipMessage, remote: Remote): void; error?(e: unknown): void };
  }
  export interface ClientTransaction {
    message(m: SipMessage, remote?: Remote): void;
    shutdown(): void;
  }
  export interface ServerTransaction {
    send(m: SipMessage): void;
    message(m: SipMessage, remote?: Remote): void;
    shutdown(): void;
  }
  export interface TransactionLayer {
    createServerTransaction(rq: SipMessage, cn: Connection): ServerTransaction;
    createClientTransaction(cn: Connection, rq: SipMessage, callback: (rs: SipMessage) => void): ClientTransaction;
    getServer(m: SipMessage): ServerTransaction | undefined;
    getClient(m: SipMessage): ClientTransaction | undefined;
    destroy(): void;
  }
  export function makeTransport(options: TransportOptions, callback: (m: SipMessage, remote: Remote) => void): Transport;
  export function makeTransactionLayer(options: TransportOptions, open: (target: Remote, onError?: (e: Error) => void) => Connection): TransactionLayer;
  export function makeResponse(rq: SipMessage, status: number, reason?: string, extension?: { headers?: Record<string, unknown>; content?: string }): SipMessage;
  export function parseUri(s: string | SipUri): SipUri | undefined;
  export function stringifyUri(uri: string | SipUri): string;
  export function stringify(m: SipMessage): string;
  export function parse(s: string): SipMessage | undefined;
  export function generateBranch(): string;
  const sip: {
    makeTransport: typeof makeTransport;
    makeTransactionLayer: typeof makeTransactionLayer;
    makeResponse: typeof makeResponse;
    parseUri: typeof parseUri;
    stringifyUri: typeof stringifyUri;
    stringify: typeof stringify;
    parse: typeof parse;
    generateBranch: typeof generateBranch;
  };
  export default sip;
}

declare module 'sdp-transform' {
  export interface MediaDescription {
    type: string;
    port: number;
    protocol: string;
    payloads?: string | number;
    connection?: { version: number; ip: string };
    rtp: Array<{ payload: number; codec: string; rate?: number }>;
    direction?: 'sendrecv' | 'sendonly' | 'recvonly' | 'inactive';
    invalid?: Array<{ value: string }>;
  }
  export interface SessionDescription {
    origin?: { sessionId: number | string; sessionVersion: number };
    connection?: { version: number; ip: string };
    media: MediaDescription[];
  }
  export function parse(sdp: string): SessionDescription;
  const transform: { parse: typeof parse };
  export default transform;
}
