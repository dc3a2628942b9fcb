import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { build } from 'esbuild';
import type { BatchPlan, ParsedBatch, ParseTotals } from './subscriptionBatches';

/**
 * The job's side of the reading worker (subscriptionParseWorker.ts): feeds it the stored file's
 * chunks as it asks (one read ahead), and yields its batches in file order; each `next()` after
 * a batch tells the worker that batch is written. The worker's heap is bounded, and its garbage
 * (every cell of every row) is collected apart from the server's.
 */

export type ToParseWorker = { type: 'chunk'; bytes: Uint8Array } | { type: 'eof' } | { type: 'credit' };
export type FromParseWorker =
  | { type: 'need' }
  | { type: 'batch'; batch: ParsedBatch }
  | { type: 'end'; totals: ParseTotals; firstRows?: [string, number][] }
  | { type: 'error'; message: string };

const WORKER_ENTRY = fileURLToPath(new URL('./subscriptionParseWorker.ts', import.meta.url));
let workerCode: Promise<string> | null = null;
/**
 * The worker's code: its module and what it imports, bundled once per process by esbuild into
 * one script the worker evaluates. The server's own modules are TypeScript run through tsx,
 * whose loader a worker would have to register again (one more thread for its hooks, and every
 * module compiled again): 30 ms once against some 500 ms and tens of MB per import.
 */
function bundledWorker(): Promise<string> {
  workerCode ??= build({ entryPoints: [WORKER_ENTRY], bundle: true, platform: 'node', format: 'cjs', target: 'node20', write: false, logLevel: 'silent' }).then(
    (result) => result.outputFiles[0]?.text ?? '',
    (error: unknown) => {
      workerCode = null;
      throw error;
    },
  );
  return workerCode;
}

/**
 * Limits of the worker's heap. Old generation: a batch (at most 20,000 rows and 4 M characters
 * of cells, subscriptionBatches.ts) as rows and as COPY text, the megabyte of text it parses at
 * once; the keys it remembers and its filter of payment ids are typed arrays, outside the heap.
 * (With the keys in the heap, 64 MB ran out at 5,000,000 rows.) Young generation: small, so its short-lived garbage (every cell of
 * every row) is collected often instead of growing the process (measured at 1,000,000 rows:
 * the reader about 0.5 s slower, the peak RSS some 40 MB lower).
 */
const WORKER_HEAP_MB = 64;
const WORKER_YOUNG_MB = 8;

export async function* parseInWorker(plan: BatchPlan, file: AsyncIterator<Uint8Array>): AsyncGenerator<ParsedBatch, ParseTotals> {
  return (yield* inWorker(plan, file)).totals;
}

/** The first valid row of the file naming each of `ids`, read in the worker as parseInWorker reads (subscriptionBatches.ts `firstRowsOf`). */
export async function firstRowsInWorker(plan: BatchPlan, ids: readonly string[], file: AsyncIterator<Uint8Array>): Promise<Map<string, number>> {
  const reader = inWorker({ ...plan, firstRowsOf: [...ids] }, file);
  for (;;) {
    const next = await reader.next();
    if (next.done) return new Map(next.value.firstRows);
  }
}

async function* inWorker(plan: BatchPlan & { firstRowsOf?: string[] }, file: AsyncIterator<Uint8Array>): AsyncGenerator<ParsedBatch, { totals: ParseTotals; firstRows?: [string, number][] }> {
  const worker = new Worker(await bundledWorker(), {
    eval: true,
    workerData: plan,
    resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB, maxYoungGenerationSizeMb: WORKER_YOUNG_MB },
  });
  const inbox: FromParseWorker[] = [];
  let wake: (() => void) | null = null;
  const deliver = (message: FromParseWorker) => {
    inbox.push(message);
    const resume = wake;
    wake = null;
    resume?.();
  };
  let ahead: Promise<IteratorResult<Uint8Array>> | null = file.next();
  const feed = async () => {
    try {
      const next = await (ahead ?? file.next());
      ahead = next.done ? null : file.next();
      // Sent by transfer when the bytes own their buffer (not a slice of a pooled one).
      if (next.done) worker.postMessage({ type: 'eof' } satisfies ToParseWorker);
      else if (next.value.byteOffset === 0 && next.value.byteLength === next.value.buffer.byteLength) worker.postMessage({ type: 'chunk', bytes: next.value } satisfies ToParseWorker, [next.value.buffer as ArrayBuffer]);
      else worker.postMessage({ type: 'chunk', bytes: next.value } satisfies ToParseWorker);
    } catch (error) {
      deliver({ type: 'error', message: error instanceof Error ? error.message : String(error) });
    }
  };
  worker.on('message', (message: FromParseWorker) => (message.type === 'need' ? void feed() : deliver(message)));
  worker.on('error', (error) => deliver({ type: 'error', message: `The import's reader failed: ${error.message}` }));
  worker.on('exit', (code) => deliver({ type: 'error', message: `The import's reader stopped (exit code ${code})` }));
  try {
    for (;;) {
      if (inbox.length === 0) await new Promise<void>((resolve) => (wake = resolve));
      const message = inbox.shift() as FromParseWorker;
      if (message.type === 'error') throw new Error(message.message);
      if (message.type === 'end') return message;
      if (message.type === 'batch') {
        yield message.batch;
        worker.postMessage({ type: 'credit' } satisfies ToParseWorker);
      }
    }
  } finally {
    worker.removeAllListeners('exit');
    await worker.terminate();
    // A read still running ahead (after a failure) ends before the transaction is let go.
    await ahead?.then(
      () => {},
      () => {},
    );
  }
}
