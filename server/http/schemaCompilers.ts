import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

/**
 * Route schemas compiled once per process, by content. Fastify compiles every route's request
 * validators (Ajv) and response serializers (fast-json-stringify) each time an app is built. The
 * server builds one app, but a test process builds hundreds (a fresh app per test file, often
 * several), and the compiling was about 0.7 s of each build, about a third of making a test app.
 * The routes make their schemas afresh in each build, so they are keyed by their JSON text with
 * the compiler's options; the compiled functions keep no state between calls.
 *
 * Validation keeps Fastify's own selector (so header schemas are still lower-cased before they
 * are compiled): only the `compile` of each Ajv instance it makes is memoized, through Ajv's
 * `onCreate`. The schemas are plain JSON Schema without shared ones (`addSchema`): a schema
 * referring to a shared schema would need that schema in the key.
 */

type SerializerFactory = NonNullable<NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildSerializer']>;
type Serializer = ReturnType<ReturnType<SerializerFactory>>;

const validators = new Map<string, unknown>();
const serializers = new Map<string, Serializer>();

function memoized<T>(cache: Map<string, T>, key: string, compile: () => T): T {
  let compiled = cache.get(key);
  if (compiled === undefined) {
    compiled = compile();
    cache.set(key, compiled);
  }
  return compiled;
}

type AjvInstance = Parameters<NonNullable<NonNullable<FastifyServerOptions['ajv']>['onCreate']>>[0];

/** For Fastify's `ajv.onCreate`: this Ajv instance compiles each distinct schema once per process. */
export function memoizeAjvCompile(ajv: AjvInstance): void {
  // Its options that change what a schema compiles to are plain values (objects in them refer to Ajv itself).
  const options = JSON.stringify(Object.entries(ajv.opts).filter(([, value]) => value === null || typeof value !== 'object'));
  const compile = ajv.compile.bind(ajv);
  ajv.compile = ((schema: object, meta?: boolean) =>
    meta === undefined ? memoized(validators, `${options}\0${JSON.stringify(schema)}`, () => compile(schema)) : compile(schema, meta)) as typeof ajv.compile;
}

const selectSerializer = SerializerSelector();

/** For Fastify's `schemaController.compilersFactory.buildSerializer`: Fastify's default, memoized. */
export const buildMemoizedSerializer: SerializerFactory = (externalSchemas, serializerOptions) => {
  const compile = selectSerializer(externalSchemas, serializerOptions);
  const context = `${JSON.stringify(externalSchemas ?? null)}\0${JSON.stringify(serializerOptions ?? null)}`;
  return (route) => {
    const { contentType } = route as { contentType?: string };
    return memoized(serializers, `${context}\0${route.httpStatus}\0${contentType ?? ''}\0${JSON.stringify(route.schema)}`, () => compile(route));
  };
};
