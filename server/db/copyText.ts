/** A value as a field of COPY's text format (null as \N). Apart from database.ts so a worker can use it without loading the drivers. */
export function copyText(value: string | number | boolean | null): string {
  if (value === null) return '\\N';
  if (typeof value !== 'string') return String(value);
  return /[\\\t\n\r]/.test(value) ? value.replace(/[\\\t\n\r]/g, (c) => COPY_ESCAPES[c] as string) : value;
}
const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** A text[] literal of `cells` (PostgreSQL array syntax, every element quoted). */
export function arrayLiteral(cells: readonly string[]): string {
  return `{${cells.map((cell) => `"${cell.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`).join(',')}}`;
}
