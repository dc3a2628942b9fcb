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

/** JSON pointer of the first string, key included, that holds a NUL character; undefined when none does. */
export function nulPointer(value: unknown, pointer = '', depth = 0): string | undefined {
  if (depth > 64) return undefined;
  if (typeof value === 'string') return value.includes('\u0000') ? pointer || '/' : undefined;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index += 1) {
      const found = nulPointer(value[index], `${pointer}/${index}`, depth + 1);
      if (found) return found;
    }
    return undefined;
  }
  if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const path = `${pointer}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;
      if (key.includes('\u0000')) return path;
      const found = nulPointer(item, path, depth + 1);
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

/** 400 when a path parameter, query value or JSON body string holds a NUL: PostgreSQL text cannot store one. */
function refuseNul(request: FastifyRequest): void {
  const parts: Array<[string, unknown]> = [
    ['params', request.params],
    ['querystring', request.query],
    ['body', request.body],
  ];
  for (const [part, value] of parts) {
    const found = nulPointer(value);
    if (found) throw ApiError.of(400, NUL_NOT_ALLOWED, part === 'body' ? found : `/${part}${found === '/' ? '' : found}`, 'nul_character');
  }
}

/**
 * Input rules that hold for every route, present and future, registered before the routes:
 * bodies refuse keys they do not name, no string with a NUL and no infinite number reaches a
 * handler (or the database).
 */
export function registerInputHardening(app: FastifyInstance): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    if (route.schema?.body) route.schema = { ...route.schema, body: strictSchema(route.schema.body) };
  });
  app.addHook('preValidation', async (request) => {
    refuseNul(request);
  });
  // After validation: the schemas' coercion makes Infinity of a query value like `1e400`.
  app.addHook('preHandler', async (request) => {
    refuseNonFinite(request);
  });
}
