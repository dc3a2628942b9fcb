import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** One entry of the spec's error body: `{errors: [{source: {pointer}, detail, title, code, status}]}`. */
export interface ApiErrorEntry {
  source?: { pointer: string };
  detail: string;
  title?: string;
  code?: string;
  status: string;
}

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/** An error a route throws on purpose; its message is shown to the client. */
export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly entries: Array<Omit<ApiErrorEntry, 'status' | 'title'> & { title?: string }>,
  ) {
    super(entries[0]?.detail ?? TITLES[statusCode] ?? 'Error');
  }

  static of(statusCode: number, detail: string, pointer?: string, code?: string): ApiError {
    return new ApiError(statusCode, [{ detail, ...(pointer ? { source: { pointer } } : {}), ...(code ? { code } : {}) }]);
  }
}

export function errorBody(statusCode: number, entries: ApiError['entries']): { errors: ApiErrorEntry[] } {
  return {
    errors: entries.map((entry) => ({
      ...entry,
      title: entry.title ?? TITLES[statusCode] ?? 'Error',
      status: String(statusCode),
    })),
  };
}

/** `/body/user/email` (Ajv's instancePath under the request part) -> JSON pointer into the body. */
function pointerOf(context: string | undefined, instancePath: string, missing?: unknown): string {
  const base = context === 'body' ? '' : `/${context ?? 'body'}`;
  const extra = typeof missing === 'string' ? `/${missing}` : '';
  return `${base}${instancePath}${extra}` || '/';
}

function validationEntries(error: FastifyError): ApiError['entries'] {
  return (error.validation ?? []).map((issue) => {
    const params = issue.params as { missingProperty?: unknown; additionalProperty?: unknown } | undefined;
    const missing = params?.missingProperty;
    const unknown = params?.additionalProperty;
    const pointer = pointerOf(error.validationContext, issue.instancePath, missing ?? unknown);
    const field = pointer.split('/').filter(Boolean).at(-1);
    const detail = missing
      ? `${String(missing)} is required`
      : unknown !== undefined
        ? `${String(unknown)} is not a known property`
        : `${field ?? 'value'} ${issue.message ?? 'is invalid'}`;
    return { source: { pointer }, detail, code: issue.keyword };
  });
}

/**
 * The single error handler: every error leaves in the spec's shape, and nothing about the
 * server's internals (stack traces, SQL) reaches the client.
 */
export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof ApiError) {
      return reply.status(error.statusCode).send(errorBody(error.statusCode, error.entries));
    }
    if (error.validation) {
      return reply.status(400).send(errorBody(400, validationEntries(error)));
    }
    const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 600 ? error.statusCode : 500;
    if (status >= 500) {
      request.log.error({ err: error }, 'request failed');
      return reply.status(status).send(errorBody(status, [{ detail: 'Something went wrong' }]));
    }
    // Fastify's own client errors (bad JSON, too large, unsupported media type) carry safe messages.
    return reply.status(status).send(errorBody(status, [{ detail: error.message, ...(error.code ? { code: error.code } : {}) }]));
  });
}

/**
 * Fastify's router answers two bad URLs itself, before any hook and without the error handler:
 * a malformed %-escape (FST_ERR_BAD_URL, 400) and a path parameter longer than `maxParamLength`
 * (FST_ERR_MAX_PARAM_LENGTH, 414). Given as Fastify's `frameworkErrors` option (server/app.ts),
 * this answers them in the API's error shape, 400 both.
 */
export function frameworkErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  if (error.code === 'FST_ERR_BAD_URL') {
    void reply.status(400).send(errorBody(400, [{ detail: 'The URL is not valid: it holds a malformed %-escape', source: { pointer: '/params' }, code: 'bad_url' }]));
    return;
  }
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    void reply.status(400).send(errorBody(400, [{ detail: 'A path parameter of the URL is too long', source: { pointer: '/params' }, code: 'param_too_long' }]));
    return;
  }
  request.log.error({ err: error }, 'request failed in the router');
  void reply.status(500).send(errorBody(500, [{ detail: 'Something went wrong' }]));
}
