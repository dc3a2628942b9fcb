import { array, boolean, literal, nullable, number, optional, record, string, type, unknown, validate } from 'superstruct';
import type { InspectedActor } from './registry';

/**
 * The inspector's export: `{ version: 1, exportedAt, actors }`, the actors' traces as
 * recorded (already redacted). A file read back is checked here before the registry loads it,
 * so a bad file is refused with a message saying what is wrong and where.
 */

export const TRACE_FILE_VERSION = 1;
/** Larger files are refused before they are read. */
export const MAX_TRACE_FILE_BYTES = 50 * 1024 * 1024;

export interface TraceFile {
  version: typeof TRACE_FILE_VERSION;
  /** ISO date-time. */
  exportedAt: string;
  actors: InspectedActor[];
}

/** What `parseTraceFile` refuses a file with; the message is for the user. */
export class TraceFileError extends Error {
  override name = 'TraceFileError';
}

const AuditLogEntryStruct = type({
  event: string(),
  status: nullable(string()),
  details: record(string(), unknown()),
  created_at: string(),
});

const TraceEntryStruct = type({
  index: optional(number()),
  at: number(),
  event: type({ type: string() }),
  value: unknown(),
  context: unknown(),
  status: string(),
  error: optional(unknown()),
});

const ActorStruct = type({
  id: optional(string()),
  name: string(),
  startedAt: number(),
  live: optional(boolean()),
  trace: array(TraceEntryStruct),
  importId: optional(nullable(string())),
  integration: optional(nullable(string())),
  dropped: optional(number()),
  loaded: optional(boolean()),
  auditLog: optional(
    type({
      importId: optional(string()),
      integration: optional(string()),
      fetchedAt: number(),
      importStatus: optional(string()),
      progress: optional(number()),
      entries: array(AuditLogEntryStruct),
    }),
  ),
});

const TraceFileStruct = type({
  version: literal(TRACE_FILE_VERSION),
  exportedAt: string(),
  actors: array(ActorStruct),
});

/** A trace file of the given actors. */
export function createTraceFile(actors: readonly InspectedActor[], now: Date = new Date()): TraceFile {
  return { version: TRACE_FILE_VERSION, exportedAt: now.toISOString(), actors: actors.map((actor) => ({ ...actor })) };
}

/** `subscope-trace-csvImport-1-2024-05-01T10-00-00Z.json`, or `…-all-…` for several actors. */
export function traceFileName(actors: readonly InspectedActor[], now: Date = new Date()): string {
  const [only] = actors;
  const what = actors.length === 1 && only ? only.id.replace(/\s*\(loaded\)$/, '').replace(/[^\w-]+/g, '-') : 'all';
  const when = now.toISOString().replace(/\.\d+Z$/, 'Z').replace(/:/g, '-');
  return `subscope-trace-${what}-${when}.json`;
}

function pathText(path: readonly (string | number)[]): string {
  return path.reduce<string>((text, key) => (typeof key === 'number' || /^\d+$/.test(String(key)) ? `${text}[${key}]` : text ? `${text}.${key}` : String(key)), '');
}

/**
 * Reads a trace file's text. Throws a TraceFileError whose message says what is wrong:
 * not JSON, another version, or the field that does not fit (`actors[0].trace[2].at: …`).
 */
export function parseTraceFile(text: string): TraceFile {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new TraceFileError('The file is not a trace: it is not valid JSON.');
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json) || !('actors' in json)) {
    throw new TraceFileError('The file is not a trace: it has no "actors" list (export one with "Export trace").');
  }
  const version = (json as { version?: unknown }).version;
  if (version !== TRACE_FILE_VERSION) {
    throw new TraceFileError(`The trace file is version ${JSON.stringify(version ?? null)}; the inspector reads version ${TRACE_FILE_VERSION}.`);
  }
  const [failure, file] = validate(json, TraceFileStruct);
  if (failure) {
    const where = pathText(failure.path) || 'the file';
    const why = failure.message.replace(/^At path: \S+ -- /, '');
    throw new TraceFileError(`The file is not a valid trace: ${where}: ${why.charAt(0).toLowerCase()}${why.slice(1)}`);
  }
  if (file.actors.length === 0) throw new TraceFileError('The trace file has no actors.');
  return file as TraceFile;
}

/** Saves a trace file through the browser's download. */
export function downloadTraceFile(file: TraceFile, fileName: string): void {
  const blob = new Blob([JSON.stringify(file, null, 2)], { type: 'application/json' });
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.rel = 'noopener';
  link.style.display = 'none';
  document.body.append(link);
  link.click();
  link.remove();
  // Revoked after the click has been handled.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
