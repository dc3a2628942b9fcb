import { assign, setup } from 'xstate';

/**
 * A small import-like machine for the inspector's tests: upload a file, get an import id,
 * poll, finish. Its context carries the file (described, not recorded) and the import id.
 */
export interface DemoContext {
  importId: string | null;
  polls: number;
  file: File | null;
}

export type DemoEvent = { type: 'upload'; file: File } | { type: 'uploaded'; importId: string } | { type: 'poll' } | { type: 'finish' };

export const demoImportMachine = setup({
  types: { context: {} as DemoContext, events: {} as DemoEvent },
}).createMachine({
  id: 'demoImport',
  initial: 'idle',
  context: { importId: null, polls: 0, file: null },
  states: {
    idle: { on: { upload: { target: 'uploading', actions: assign({ file: ({ event }) => event.file }) } } },
    uploading: { on: { uploaded: { target: 'polling', actions: assign({ importId: ({ event }) => event.importId }) } } },
    polling: {
      on: {
        poll: { actions: assign({ polls: ({ context }) => context.polls + 1 }) },
        finish: 'finished',
      },
    },
    finished: { type: 'final' },
  },
});

export const importIdOf = (context: unknown) => (context as DemoContext).importId;

export function csvFile(name = 'subscriptions.csv'): File {
  return new File(['customer_id,amount\nc1,10\n'], name, { type: 'text/csv' });
}
