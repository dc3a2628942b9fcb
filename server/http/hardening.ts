import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import { ApiError } from './errors';

type JsonSchema = Record<string, unknown>;

/**
 * A copy of a body schema in which every object that lists its properties and says nothing
 * about others refuses them (`additionalProperties: false`). A body key the route does not
 * name (`account_id`, `report_id`, ...) is then a 400 naming it, never something a handler
 * could spread into a write. Schemas that allow extra keys on purpose say so explicitly.
 */
export function strictSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(strictSchema);
  if (schema === null || typeof schema !== 'object') return schema;
  const source = schema as JsonSchema;
  const copy: JsonSchema = {};
  for (const [key, value] of Object.entries(source)) {
    if (key === 'properties' && value && typeof value === 'object') {
      copy[key] = Object.fromEntries(Object.entries(value as JsonSchema).map(([name, property]) => [name, strictSchema(property)]));
    } else if (key === 'items' || key === 'anyOf' || key === 'oneOf' || key === 'allOf' || key === 'not' || key === 'prefixItems') {
      copy[key] = strictSchema(value);
    } else {
      copy[key] = value;
    }
  }
  // TypeBox marks its own objects with symbols; keep them so the type provider still recognises the copy.
  for (const symbol of Object.getOwnPropertySymbols(source)) copy[symbol as unknown as string] = (source as Record<symbol, unknown>)[symbol];
  if (copy.type === 'object' && copy.properties && copy.additionalProperties === undefined && copy.patternProperties === undefined) {
    copy.additionalProperties = false;
  }
  return copy;
}

/** A lone UTF-16 surrogate: with the `u` flag a paired one is a single code point and does not match. */
const LONE_SURROGATE = /[\ud800-\udfff]/u;

/**
 * What no stored text may hold: a NUL (PostgreSQL text cannot store one) or a lone surrogate
 * (`"\ud800"` in JSON: a text column would store U+FFFD for it, and a jsonb value refuses it).
 */
export function badTextOf(text: string): 'nul' | 'lone_surrogate' | undefined {
  if (text.includes('\u0000')) return 'nul';
  if (LONE_SURROGATE.test(text)) return 'lone_surrogate';
  return undefined;
}

/** JSON pointer of the first string, key included, that holds bad text (badTextOf), and what it holds; undefined when none does. */
export function badTextPointer(value: unknown, pointer = '', depth = 0): { pointer: string; kind: 'nul' | 'lone_surrogate' } | undefined {
  if (depth > 64) return undefined;
  if (typeof value === 'string') {
    const kind = badTextOf(value);
    return kind ? { pointer: pointer || '/', kind } : undefined;
  }
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index += 1) {
      const found = badTextPointer(value[index], `${pointer}/${index}`, depth + 1);
      if (found) return found;
    }
    return undefined;
  }
  if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const path = `${pointer}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;
      const kind = badTextOf(key);
      if (kind) return { pointer: path, kind };
      const found = badTextPointer(item, path, depth + 1);
      if (found) return found;
    }
  }
  return undefined;
}

/**
 * JSON pointer of the first number that is not finite, keys included; undefined when none.
 * JSON has no Infinity, but `1e400` parses to it, and the schemas' type coercion turns a query
 * value `1e400` or `Infinity` into it too, passing `integer` with its `minimum` and `maximum`.
 */
export function nonFinitePointer(value: unknown, pointer = '', depth = 0): string | undefined {
  if (depth > 64) return undefined;
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : pointer || '/';
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index += 1) {
      const found = nonFinitePointer(value[index], `${pointer}/${index}`, depth + 1);
      if (found) return found;
    }
    return undefined;
  }
  if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const found = nonFinitePointer(item, `${pointer}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`, depth + 1);
      if (found) return found;
    }
  }
  return undefined;
}

export const NUMBER_OUT_OF_RANGE = 'Numbers must be finite (this one is out of range)';

/** 400 when a path parameter, query value or JSON body number, as validated and coerced, is Infinity or NaN. */
function refuseNonFinite(request: FastifyRequest): void {
  const parts: Array<[string, unknown]> = [
    ['params', request.params],
    ['querystring', request.query],
    ['body', request.body],
  ];
  for (const [part, value] of parts) {
    const found = nonFinitePointer(value);
    if (found) throw ApiError.of(400, NUMBER_OUT_OF_RANGE, part === 'body' ? found : `/${part}${found === '/' ? '' : found}`, 'number_out_of_range');
  }
}

export const NUL_NOT_ALLOWED = 'Text must not contain NUL characters (\\u0000)';
export const LONE_SURROGATE_NOT_ALLOWED = 'Text must be valid Unicode (this one has a lone surrogate, \\ud800-\\udfff)';

/** 400 when a path parameter, query value or JSON body string holds a NUL or a lone surrogate (badTextOf). */
function refuseBadText(request: FastifyRequest): void {
  const parts: Array<[string, unknown]> = [
    ['params', request.params],
    ['querystring', request.query],
    ['body', request.body],
  ];
  for (const [part, value] of parts) {
    const found = badTextPointer(value);
    if (!found) continue;
    const pointer = part === 'body' ? found.pointer : `/${part}${found.pointer === '/' ? '' : found.pointer}`;
    if (found.kind === 'nul') throw ApiError.of(400, NUL_NOT_ALLOWED, pointer, 'nul_character');
    throw ApiError.of(400, LONE_SURROGATE_NOT_ALLOWED, pointer, 'lone_surrogate');
  }
}

/**
 * Input rules that hold for every route, present and future, registered before the routes:
 * bodies refuse keys they do not name, no string with a NUL or a lone surrogate and no infinite number reaches a
 * handler (or the database).
 */
export function registerInputHardening(app: FastifyInstance): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    if (route.schema?.body) route.schema = { ...route.schema, body: strictSchema(route.schema.body) };
  });
  app.addHook('preValidation', async (request) => {
    refuseBadText(request);
  });
  // After validation: the schemas' coercion makes Infinity of a query value like `1e400`.
  app.addHook('preHandler', async (request) => {
    refuseNonFinite(request);
  });
}
