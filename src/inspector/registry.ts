import type { InspectionEvent } from 'xstate';

/**
 * The live machine actors of the page, for the state inspector (support staff step through
 * them to see why an import or a report is stuck). A view that runs a machine registers it:
 *
 *   const inspect = useInspection('csvImport');
 *   const actor = useActorRef(csvImportMachine, { inspect });
 *
 * and the registry records, per actor, every event it received and every snapshot it reached,
 * with times, redacting passwords and tokens. The panel (InspectorPanel) reads it.
 */

export interface TraceEntry {
  /** Position in the trace (0 = the first snapshot). */
  index: number;
  /** ms since the epoch. */
  at: number;
  /** The event that led here (`xstate.init` for the first snapshot). */
  event: { type: string; [key: string]: unknown };
  /** The state value after the event. */
  value: unknown;
  /** The context after the event (redacted). */
  context: unknown;
  status: string;
}

export interface InspectedActor {
  /** Unique per actor: `${name}#${n}`. */
  id: string;
  name: string;
  startedAt: number;
  /** False once the view that ran it is gone (its trace stays until cleared). */
  live: boolean;
  trace: TraceEntry[];
  /** For an import: the server's audit log of that import, fetched on demand by the panel. */
  importId?: string | null;
}

type Listener = () => void;

const REDACTED = '[redacted]';
const SECRET_KEY = /pass(word)?|token|secret|authorization|jwt/i;
/** Traces are capped so a long session cannot grow without bound. */
export const MAX_TRACE_ENTRIES = 500;

/** A copy of a value with every secret-looking key's value replaced, and files/functions described. */
export function redact(value: unknown, depth = 0): unknown {
  if (depth > 8) return '…';
  if (value === null || typeof value !== 'object') return typeof value === 'function' ? '[function]' : value;
  if (typeof File !== 'undefined' && value instanceof File) return { file: value.name, size: value.size, type: value.type };
  if (typeof Blob !== 'undefined' && value instanceof Blob) return { blob: value.size };
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.slice(0, 200).map((item) => redact(item, depth + 1));
  if ('sessionId' in value && 'send' in value) return { actor: (value as { id?: string }).id ?? 'actor' };
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value as Record<string, unknown>)) out[key] = SECRET_KEY.test(key) ? REDACTED : redact(inner, depth + 1);
  return out;
}

class InspectorRegistry {
  private readonly actors = new Map<string, InspectedActor>();
  private readonly listeners = new Set<Listener>();
  private counter = 0;
  private version = 0;

  /** An observer for `createActor(machine, { inspect })` that records the root actor under `name`. */
  track(name: string, options: { importIdOf?: (context: unknown) => string | null | undefined } = {}): { id: string; inspect: (event: InspectionEvent) => void; stop: () => void } {
    this.counter += 1;
    const id = `${name}#${this.counter}`;
    const entry: InspectedActor = { id, name, startedAt: Date.now(), live: true, trace: [] };
    this.actors.set(id, entry);
    let rootSessionId: string | undefined;
    let lastEvent: TraceEntry['event'] = { type: 'xstate.init' };
    const inspect = (event: InspectionEvent) => {
      // Only the root actor (the view's machine); invoked children show through its events.
      if (rootSessionId === undefined && event.type === '@xstate.actor') rootSessionId = event.actorRef.sessionId;
      if (event.actorRef.sessionId !== rootSessionId) return;
      if (event.type === '@xstate.event') {
        lastEvent = redact(event.event) as TraceEntry['event'];
      } else if (event.type === '@xstate.snapshot') {
        const snapshot = event.snapshot as { value?: unknown; context?: unknown; status?: string };
        entry.trace.push({
          index: entry.trace.length,
          at: Date.now(),
          event: lastEvent,
          value: snapshot.value,
          context: redact(snapshot.context),
          status: snapshot.status ?? 'active',
        });
        if (entry.trace.length > MAX_TRACE_ENTRIES) {
          entry.trace.splice(0, entry.trace.length - MAX_TRACE_ENTRIES);
          entry.trace.forEach((t, k) => (t.index = k));
        }
        const importId = options.importIdOf?.(snapshot.context);
        if (importId !== undefined) entry.importId = importId;
        this.changed();
      }
    };
    return {
      id,
      inspect,
      stop: () => {
        entry.live = false;
        this.changed();
      },
    };
  }

  list(): InspectedActor[] {
    return [...this.actors.values()];
  }

  get(id: string): InspectedActor | undefined {
    return this.actors.get(id);
  }

  /** Adds a trace read from an exported JSON file (replayed without a server). */
  load(actor: Omit<InspectedActor, 'id' | 'live'>): string {
    this.counter += 1;
    const id = `${actor.name}#${this.counter} (loaded)`;
    this.actors.set(id, { ...actor, id, live: false });
    this.changed();
    return id;
  }

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
    for (const listener of this.listeners) listener();
  }
}

/** The page's one registry. */
export const inspectorRegistry = new InspectorRegistry();
