import type { InspectedSnapshotEvent, InspectionEvent } from 'xstate';

/**
 * The live machine actors of the page, for the state inspector (support staff step through
 * them to see why an import or a report is stuck). A view that runs a machine registers it:
 *
 *   const inspect = useInspection('csvImport', { importIdOf: (context) => … });
 *   const actor = useActorRef(csvImportMachine, { inspect });
 *
 * and the registry records, per root actor, every event it processed and the snapshot it
 * reached, with times, redacting passwords and tokens. The panel (InspectorPanel) reads it.
 * Outside React: `const tracker = inspectorRegistry.track('name'); createActor(machine, { inspect: tracker.inspect })`.
 */

export interface TraceEntry {
  /** Position in the trace (0 = the oldest snapshot kept). */
  index: number;
  /** ms since the epoch. */
  at: number;
  /** The event that led here (`xstate.init` for the first snapshot), redacted. */
  event: { type: string; [key: string]: unknown };
  /** The state value after the event. */
  value: unknown;
  /** The context after the event (redacted). */
  context: unknown;
  /** 'active', 'done', 'error' or 'stopped'. */
  status: string;
  /** The snapshot's error, for status 'error' (redacted). */
  error?: unknown;
}

/** One entry of the server's audit log of an import (GET /subscriptions/csv_import/{id}). */
export interface AuditLogEntry {
  event: string;
  status: string | null;
  details: Record<string, unknown>;
  created_at: string;
}

/** The server's audit log as the panel last fetched it (kept with the trace, so an export carries it). */
export interface AttachedAuditLog {
  /** The import the log is of. */
  importId?: string;
  /** The integration the log is of (an integration's sync log). */
  integration?: string;
  fetchedAt: number;
  /** The import's status and progress on the server when fetched. */
  importStatus?: string;
  progress?: number;
  entries: AuditLogEntry[];
}

export interface InspectedActor {
  /** Unique per actor: `${name}#${n}` (`… (loaded)` for a trace read from a file). */
  id: string;
  name: string;
  startedAt: number;
  /** False once the actor stopped, finished or its view is gone (its trace stays until cleared). */
  live: boolean;
  trace: TraceEntry[];
  /** For an import: the server's audit log of that import, fetched on demand by the panel. */
  importId?: string | null;
  /** For an integration card: the integration whose server sync log the panel shows. */
  integration?: string | null;
  /** Snapshots dropped from the start of the trace by the cap. */
  dropped?: number;
  /** Read from an exported trace file (replayed without a server). */
  loaded?: boolean;
  auditLog?: AttachedAuditLog;
}

export interface TrackOptions {
  /** Where the machine keeps its server import id (shown with the server's audit log). */
  importIdOf?: (context: unknown) => string | null | undefined;
  /** Which integration the machine is about (its server sync log is shown beside it). */
  integrationOf?: (context: unknown) => string | null | undefined;
  /**
   * Record the root's invoked child of this id instead of the root (a machine a page machine
   * runs as its child: the report page's `recalculation` and `reportFilter`). The tracker's
   * `inspect` is then given to the root actor with the root's own tracker.
   */
  childId?: string;
}

export interface Tracker {
  /** The actor's id in the registry (it appears there with its first snapshot). */
  readonly id: string;
  /** The `inspect` observer for `createActor` / `useActorRef`. */
  inspect: (event: InspectionEvent) => void;
  /** The view is gone: the actor is no longer live. */
  stop: () => void;
  /** The view is back (React's development double effects): live again if the actor is active. */
  resume: () => void;
}

export interface RegistryOptions {
  /** Traces are capped so a long session cannot grow without bound (default MAX_TRACE_ENTRIES). */
  maxTraceEntries?: number;
  /** The clock (tests). */
  now?: () => number;
}

type Listener = () => void;

export const REDACTED = '[redacted]';
/** Keys whose values are never recorded, at any depth. */
const SECRET_KEY = /passw|passphrase|^pass$|pwd|token|secret|authori[sz]ation|jwt|api[-_]?key|cookie|credential|private[-_]?key/i;
/** A JSON web token inside any string (a /sign_in_via_token/{jwt} path, a header value). */
const JWT_IN_TEXT = /\beyJ[\w-]{4,}\.[\w-]{4,}\.[\w-]*/g;
/** `Bearer …` inside any string. */
const BEARER_IN_TEXT = /\bBearer\s+[\w.~+/=-]+/gi;
/** `?token=…` and the like inside a URL. */
const SECRET_QUERY_PARAM = /([?&#;](?:[\w-]*(?:passw|token|secret|jwt|api[-_]?key)[\w-]*)=)[^&#\s]*/gi;
const MAX_DEPTH = 12;
const MAX_ARRAY_ITEMS = 200;
const MAX_STRING_LENGTH = 4_000;
/** Traces are capped so a long session cannot grow without bound. */
export const MAX_TRACE_ENTRIES = 500;

function redactText(text: string): string {
  const clean = text.replace(JWT_IN_TEXT, REDACTED).replace(BEARER_IN_TEXT, `Bearer ${REDACTED}`).replace(SECRET_QUERY_PARAM, `$1${REDACTED}`);
  return clean.length > MAX_STRING_LENGTH ? `${clean.slice(0, MAX_STRING_LENGTH)}… (${clean.length} characters)` : clean;
}

function isActorRef(value: object): boolean {
  return 'sessionId' in value && 'send' in value && typeof (value as { send: unknown }).send === 'function';
}

function redactWith(value: unknown, depth: number, seen: WeakSet<object>): unknown {
  if (typeof value === 'string') return redactText(value);
  if (typeof value === 'function') return '[function]';
  if (typeof value === 'bigint' || typeof value === 'symbol') return String(value);
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth > MAX_DEPTH) return '…';
  if (seen.has(value)) return '[circular]';
  if (typeof File !== 'undefined' && value instanceof File) return { file: value.name, size: value.size, type: value.type };
  if (typeof Blob !== 'undefined' && value instanceof Blob) return { blob: value.size, type: value.type };
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? 'Invalid Date' : value.toISOString();
  if (value instanceof Error) return { error: value.name, message: redactText(value.message) };
  if (typeof AbortSignal !== 'undefined' && value instanceof AbortSignal) return { signal: value.aborted ? 'aborted' : 'active' };
  if (isActorRef(value)) return { actor: (value as { id?: string }).id ?? 'actor' };
  seen.add(value);
  try {
    if (Array.isArray(value)) {
      const items = value.slice(0, MAX_ARRAY_ITEMS).map((item) => redactWith(item, depth + 1, seen));
      return value.length > MAX_ARRAY_ITEMS ? [...items, `… ${value.length - MAX_ARRAY_ITEMS} more`] : items;
    }
    if (value instanceof Map) return redactWith(Object.fromEntries([...value.entries()].map(([k, v]) => [String(k), v])), depth, seen);
    if (value instanceof Set) return redactWith([...value], depth, seen);
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
      out[key] = SECRET_KEY.test(key) ? REDACTED : redactWith(inner, depth + 1, seen);
    }
    return out;
  } finally {
    seen.delete(value);
  }
}

/**
 * A JSON-safe copy of a value with every secret kept out: the values of secret-looking keys
 * (password, token, authorization, secret, jwt, api key, cookie… at any depth) are replaced,
 * JWTs, `Bearer …` and `?token=…` inside strings are masked, files, errors and actors described.
 */
export function redact(value: unknown, depth = 0): unknown {
  return redactWith(value, depth, new WeakSet());
}

/** A JSON-safe copy of a state value (state names are the machine's own, never secrets). */
function copyStateValue(value: unknown): unknown {
  if (value === undefined) return null;
  try {
    return JSON.parse(JSON.stringify(value)) as unknown;
  } catch {
    return String(value);
  }
}

function redactEvent(event: unknown): TraceEntry['event'] {
  const copy = redact(event);
  if (copy !== null && typeof copy === 'object' && !Array.isArray(copy) && typeof (copy as { type?: unknown }).type === 'string') {
    return copy as TraceEntry['event'];
  }
  return { type: 'unknown', event: copy };
}

export class InspectorRegistry {
  private readonly actors = new Map<string, InspectedActor>();
  private readonly listeners = new Set<Listener>();
  private readonly counters = new Map<string, number>();
  private loadedCounter = 0;
  private version = 0;
  private readonly maxTraceEntries: number;
  private readonly now: () => number;

  constructor(options: RegistryOptions = {}) {
    this.maxTraceEntries = Math.max(1, options.maxTraceEntries ?? MAX_TRACE_ENTRIES);
    this.now = options.now ?? Date.now;
  }

  private nextId(name: string): string {
    const n = (this.counters.get(name) ?? 0) + 1;
    this.counters.set(name, n);
    return `${name}#${n}`;
  }

  /**
   * An observer for `createActor(machine, { inspect })` that records the root actor under
   * `name`. The actor appears in the registry with its first snapshot, so an actor that is
   * created but never started (React's development double render) leaves no trace.
   */
  track(name: string, options: TrackOptions = {}): Tracker {
    let id: string | undefined;
    const ensureId = () => (id ??= this.nextId(name));
    let entry: InspectedActor | undefined;
    let viewGone = false;

    const record = (event: InspectedSnapshotEvent) => {
      const snapshot = event.snapshot as { value?: unknown; context?: unknown; status?: string; error?: unknown };
      const at = this.now();
      if (!entry) {
        entry = { id: ensureId(), name, startedAt: at, live: true, trace: [] };
        this.actors.set(entry.id, entry);
      }
      const status = snapshot.status ?? 'active';
      const eventType = (event.event as { type?: unknown } | undefined)?.type;
      const last = entry.trace.at(-1);
      // A stopped actor restarted from its own snapshot (React's development double effects,
      // an Activity shown again) reports its stop and a second `xstate.init` of the same state:
      // neither happened to the machine, so the trace keeps neither.
      if (eventType === 'xstate.init' && last?.event.type === 'xstate.stop' && entry.trace.length > 1) {
        entry.trace.pop();
        entry.live = !viewGone && status === 'active';
        this.changed();
        return;
      }
      entry.trace.push({
        index: entry.trace.length,
        at,
        event: redactEvent(event.event ?? { type: 'xstate.init' }),
        value: copyStateValue(snapshot.value),
        context: redact(snapshot.context),
        status,
        ...(status === 'error' ? { error: redact(snapshot.error) } : {}),
      });
      const excess = entry.trace.length - this.maxTraceEntries;
      if (excess > 0) {
        entry.trace.splice(0, excess);
        entry.trace.forEach((t, k) => (t.index = k));
        entry.dropped = (entry.dropped ?? 0) + excess;
      }
      entry.live = !viewGone && status === 'active';
      const importId = options.importIdOf?.(snapshot.context);
      if (importId !== undefined) entry.importId = importId;
      const integration = options.integrationOf?.(snapshot.context);
      if (integration !== undefined) entry.integration = integration;
      this.changed();
    };

    const inspect = (event: InspectionEvent) => {
      if (event.type !== '@xstate.snapshot') return;
      if (options.childId === undefined) {
        // Only the root actor (the view's machine); invoked children show through its events.
        if (event.actorRef.sessionId !== event.rootId) return;
      } else if ((event.actorRef as { id?: string }).id !== options.childId || event.actorRef.sessionId === event.rootId) {
        // Only the child registered under that id.
        return;
      }
      record(event);
    };

    return {
      get id() {
        return ensureId();
      },
      inspect,
      stop: () => {
        viewGone = true;
        if (entry?.live) {
          entry.live = false;
          this.changed();
        }
      },
      resume: () => {
        viewGone = false;
        const active = entry?.trace.at(-1)?.status === 'active';
        if (entry && active && !entry.live) {
          entry.live = true;
          this.changed();
        }
      },
    };
  }

  /** Every actor, in the order they appeared (loaded traces last). */
  list(): InspectedActor[] {
    return [...this.actors.values()];
  }

  get(id: string): InspectedActor | undefined {
    return this.actors.get(id);
  }

  /** Adds a trace read from an exported JSON file (replayed without a server). Returns its id. */
  load(actor: Omit<InspectedActor, 'id' | 'live'>): string {
    this.loadedCounter += 1;
    const id = `${actor.name}#${this.loadedCounter} (loaded)`;
    const trace: TraceEntry[] = actor.trace.map((t, index) => ({
      index,
      at: t.at,
      event: redactEvent(t.event),
      value: copyStateValue(t.value),
      context: redact(t.context),
      status: t.status,
      ...(t.error === undefined ? {} : { error: redact(t.error) }),
    }));
    this.actors.set(id, {
      name: actor.name,
      startedAt: actor.startedAt,
      trace,
      ...(actor.importId === undefined ? {} : { importId: actor.importId }),
      ...(actor.integration === undefined ? {} : { integration: actor.integration }),
      ...(actor.dropped ? { dropped: actor.dropped } : {}),
      ...(actor.auditLog ? { auditLog: redact(actor.auditLog) as AttachedAuditLog } : {}),
      id,
      live: false,
      loaded: true,
    });
    this.changed();
    return id;
  }

  /** Keeps the audit log the panel fetched for an import actor with its trace (exports carry it). */
  attachAuditLog(id: string, auditLog: AttachedAuditLog): void {
    const actor = this.actors.get(id);
    if (!actor) return;
    actor.auditLog = redact(auditLog) as AttachedAuditLog;
    this.changed();
  }

  /** Forgets the ended and loaded actors (live ones keep recording). */
  clear(): void {
    for (const [id, actor] of this.actors) if (!actor.live) this.actors.delete(id);
    this.changed();
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Changes with every recorded snapshot (for useSyncExternalStore). */
  getVersion(): number {
    return this.version;
  }

  private changed(): void {
    this.version += 1;
    for (const listener of [...this.listeners]) listener();
  }
}

/** A registry of its own (tests; a second inspector). */
export function createInspectorRegistry(options: RegistryOptions = {}): InspectorRegistry {
  return new InspectorRegistry(options);
}

/** The page's one registry. */
export const inspectorRegistry = createInspectorRegistry();
