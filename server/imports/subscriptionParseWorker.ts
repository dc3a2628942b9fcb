import { parentPort, workerData } from 'node:worker_threads';
import { batchBuffers, firstRowsOf, subscriptionBatches, type BatchPlan } from './subscriptionBatches';
import type { FromParseWorker, ToParseWorker } from './parseWorker';

/**
 * Worker thread of a subscription import (started by parseWorker.ts): asks the job for the
 * stored file a chunk at a time, and hands back batches of ready COPY text, one ahead of the
 * one being written (a credit per batch written), so it never holds more than two. Or, when
 * the plan names payment ids (`firstRowsOf`), finds the first row naming each and ends.
 */
const port = parentPort;
if (!port) throw new Error('subscriptionParseWorker.ts runs as a worker thread');
const plan = workerData as BatchPlan & { firstRowsOf?: string[] };
const post = (message: FromParseWorker, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);

let credits = 1;
let onCredit: (() => void) | null = null;
let onChunk: ((message: ToParseWorker) => void) | null = null;
port.on('message', (message: ToParseWorker) => {
  if (message.type === 'credit') {
    credits++;
    const resume = onCredit;
    onCredit = null;
    resume?.();
    return;
  }
  const deliver = onChunk;
  onChunk = null;
  deliver?.(message);
});

async function* chunks(): AsyncGenerator<Uint8Array> {
  for (;;) {
    const message = await new Promise<ToParseWorker>((resolve) => {
      onChunk = resolve;
      post({ type: 'need' });
    });
    if (message.type !== 'chunk') return;
    yield message.bytes;
  }
}

async function run(): Promise<void> {
  try {
    if (plan.firstRowsOf) {
      const found = await firstRowsOf(chunks(), plan, plan.firstRowsOf);
      post({ type: 'end', totals: { seen: 0, valid: 0, failed: 0 }, firstRows: [...found] });
      return;
    }
    const batches = subscriptionBatches(chunks(), plan);
    for (;;) {
      const next = await batches.next();
      if (next.done) {
        post({ type: 'end', totals: next.value });
        break;
      }
      if (credits === 0) await new Promise<void>((resolve) => (onCredit = resolve));
      credits--;
      post({ type: 'batch', batch: next.value }, batchBuffers(next.value));
    }
  } catch (error) {
    post({ type: 'error', message: error instanceof Error ? error.message : String(error) });
  }
}

void run();
