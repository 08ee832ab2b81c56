// Request schemas that carry their parsers: each request field is written once, as the JSON
// Schema the OpenAPI document shows (TypeBox) with the parser the route runs attached to it.
// Our own walk rather than ajv: refusals keep our codes and messages naming the field
// (docs/api.md decision 5), and form bodies (strings for numbers, '' for absent) stay accepted.
import { Type, type TObject, type TSchema } from 'typebox';

/** What parsers may need beyond the value: the time (send_at) and test overrides of the limits. */
export interface ParseContext {
  nowMs?: number;
  maxFiles?: number;
  maxRecipients?: number;
  /** The webhook URL policy (routes-webhooks.ts): the URL to store, or a FaxError naming `url`. */
  webhookUrl?: (url: string) => string;
}

/**
 * Reads one field: `raw` is the value as given (undefined when absent), `earlier` the fields
 * already parsed (schema order), for rules that join two fields. Refuses with a FaxError naming `field`.
 */
type Parser<T> = (raw: unknown, field: string, ctx: ParseContext, earlier: Readonly<Record<string, unknown>>) => T;

// A symbol, and not enumerable: the document (JSON) never shows it.
const PARSE = Symbol('faxstack.parse');

export type Field<T> = TSchema & { readonly [PARSE]: Parser<T> };
export type Fields = Record<string, Field<unknown>>;
export type Parsed<F extends Fields> = { [K in keyof F]: F[K] extends Field<infer T> ? T : never };

/** A request: the object schema the document shows, and the walk over its properties. */
export interface RequestSchema<F extends Fields> {
  readonly schema: TObject;
  parse(raw: Record<string, unknown>, ctx?: ParseContext): Parsed<F>;
}

/** Attaches `parse` to `schema`; mark optional fields with Type.Optional before, it copies. */
export function field<T>(schema: TSchema, parse: Parser<T>): Field<T> {
  if (parserOf(schema)) throw new TypeError('this schema already has a parser: build a new one per field');
  Object.defineProperty(schema, PARSE, { value: parse, enumerable: false });
  return schema as Field<T>;
}

export function parserOf(schema: TSchema): Parser<unknown> | undefined {
  return (schema as Partial<Field<unknown>>)[PARSE];
}

/** The fields in the order they are checked (the first refusal wins). Unknown fields are ignored. */
export function request<F extends Fields>(fields: F): RequestSchema<F> {
  const schema = Type.Object(fields);
  return {
    schema,
    parse(raw, ctx = {}) {
      const out: Record<string, unknown> = {};
      // The walk reads the parsers off the very schema objects the document shows.
      for (const [name, prop] of Object.entries(schema.properties)) {
        out[name] = parserOf(prop)!(own(raw, name), name, ctx, out);
      }
      return out as Parsed<F>;
    },
  };
}

/** The empty request (no parameters). */
export const NO_PARAMS = request({});

/** null, undefined and '' all mean "not given": form clients send every field, empty or not. */
export const absent = (v: unknown): v is null | undefined | '' => v === undefined || v === null || v === '';

/** Own property only: a body's prototype chain is never consulted. */
export function own(obj: Record<string, unknown>, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(obj, key) ? obj[key] : undefined;
}
