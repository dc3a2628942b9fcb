/**
 * The API's error body: 400/422 answers carry
 * `{errors: [{source: {pointer}, detail, title, code, status}]}`.
 */
export interface ApiErrorItem {
  source?: { pointer?: string };
  detail?: string;
  title?: string;
  code?: string;
  status?: string | number;
}

export const DEFAULT_ERROR_MESSAGE = 'Something went wrong';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/** The error items of a response body, or [] when the body is not in the error shape. */
export function apiErrorItems(body: unknown): ApiErrorItem[] {
  if (!isRecord(body) || !Array.isArray(body.errors)) return [];
  return body.errors.filter(isRecord).map((item) => {
    const source = isRecord(item.source) ? { pointer: optionalString(item.source.pointer) } : undefined;
    const status = typeof item.status === 'number' ? item.status : optionalString(item.status);
    return {
      source,
      detail: optionalString(item.detail),
      title: optionalString(item.title),
      code: optionalString(item.code),
      status,
    };
  });
}

/** The readable text of one error: its detail, else its title, else its code. */
export function apiErrorText(item: ApiErrorItem, fallback = DEFAULT_ERROR_MESSAGE): string {
  return item.detail ?? item.title ?? item.code ?? fallback;
}

/** The field an error points at: the last segment of its JSON pointer ('/user/email' is 'email'). */
export function apiErrorField(item: ApiErrorItem): string | undefined {
  const pointer = item.source?.pointer;
  if (!pointer) return undefined;
  const segments = pointer.split('/').filter(Boolean);
  const last = segments.at(-1);
  return last?.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** One message per error; a body without errors gives the fallback alone. */
export function apiErrorMessages(body: unknown, fallback = DEFAULT_ERROR_MESSAGE): string[] {
  const items = apiErrorItems(body);
  if (items.length === 0) return [fallback];
  return items.map((item) => apiErrorText(item, fallback));
}

/** Lines 'field message' (as sign-up shows server errors); errors without a field show the message alone. */
export function apiErrorLines(body: unknown, fallback = DEFAULT_ERROR_MESSAGE): string[] {
  const items = apiErrorItems(body);
  if (items.length === 0) return [fallback];
  return items.map((item) => {
    const field = apiErrorField(item);
    const text = apiErrorText(item, fallback);
    return field ? `${field} ${text}` : text;
  });
}

/** Messages keyed by field, for form inputs; the first error of a field wins. */
export function apiFieldErrors(body: unknown): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const item of apiErrorItems(body)) {
    const field = apiErrorField(item);
    if (field && !(field in errors)) errors[field] = apiErrorText(item);
  }
  return errors;
}
