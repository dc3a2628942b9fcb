import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { UserEvent } from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import type { MappingWizardSnapshot } from '../../../machines/mappingWizard/mappingWizardMachine';
import { roleOfColumn } from '../../../machines/mappingWizard/mapping';
import {
  allRecordsImportedMessage,
  PAYMENTS_MAPPING_INCOMPLETE_MESSAGE,
  paymentsImport,
  paymentsImportMachine,
} from '../../../machines/mappingWizard/paymentsImport';
import {
  NO_FILE_MESSAGE,
  ONLY_CSV_MESSAGE,
  STATUS_CHECK_FAILURE_MESSAGE,
  STATUS_LIMIT_MESSAGE,
} from '../../../machines/mappingWizard/messages';
import { ImportWizard } from '../../../src/imports/ImportWizard';
import { apiImportView, apiUploadAnswer } from '../../machines/mappingWizard/paymentsImportApiAnswers';
import {
  anyPaymentsImportTestModel,
  finalizeRefusal,
  modelInput,
  modelPreview,
  modelStatuses,
  pathTestParams,
  POLL_DUE_EVENT,
  pollWaitMs,
  uploadRefusal,
} from '../../machines/mappingWizard/paymentsImportModel';
import type { PaymentsImportExecutors, PaymentsImportModelEvent } from '../../machines/mappingWizard/paymentsImportModel';
import { coverageGaps, coveringPaths, describePath, generatePaths } from '../../machines/support/modelPaths';
import type { AnyTestPath } from '../../machines/support/modelPaths';
import { fullAccessUser, renderWithProviders } from '../renderApp';
import { apiErrors, createFakeApi } from '../support/fakeApi';
import type { FakeAnswer, FakeApi } from '../support/fakeApi';

/**
 * The payments import's generated paths (the mapping wizard, payments config) walked through the real page: each event is made to
 * happen the way a user or the server makes it (choosing a file, picking a field in a column's
 * menu, the fake API answering, the poll interval passing on a simulated clock), and after
 * every step what the user sees must match the state the model expects.
 */

const UPLOAD = 'POST /subscriptions/csv_import';
const FINALIZE = 'POST /subscriptions/csv_import/:id/finalize';
const STATUS = 'GET /subscriptions/csv_import/:id';
type HeldRoute = typeof UPLOAD | typeof FINALIZE | typeof STATUS;

function fakeServer(): FakeApi {
  const api = createFakeApi();
  for (const route of [UPLOAD, FINALIZE, STATUS]) api.hold(route);
  return api;
}

/** The server's answer that makes a done/error event happen. */
function answerFor(event: PaymentsImportModelEvent): [HeldRoute, FakeAnswer] {
  switch (event.type) {
    case 'xstate.done.actor.upload':
      return [UPLOAD, { status: 200, body: apiUploadAnswer(event.output) }];
    case 'xstate.error.actor.upload':
      return [UPLOAD, apiErrors(413, { pointer: '/body/csv', detail: uploadRefusal.messages[0] ?? '' })];
    case 'xstate.done.actor.finalize':
      return [FINALIZE, { status: 200, body: apiImportView(modelPreview.importId, event.output) }];
    case 'xstate.error.actor.finalize':
      return [FINALIZE, apiErrors(422, { pointer: '/params/id', detail: finalizeRefusal.messages[0] ?? '' })];
    case 'xstate.done.actor.fetchStatus':
      return [STATUS, { status: 200, body: apiImportView(modelPreview.importId, event.output) }];
    case 'xstate.error.actor.fetchStatus':
      return [STATUS, { status: 503 }];
    default:
      throw new Error(`${event.type} has no server answer`);
  }
}

interface Walk {
  user: UserEvent;
  api: FakeApi;
  clock: SimulatedClock;
  container: HTMLElement;
  /** The state the model expected after the previous step. */
  previous: MappingWizardSnapshot | undefined;
}

function fileInput(walk: Walk): HTMLInputElement {
  const input = walk.container.querySelector<HTMLInputElement>('input[type="file"]');
  if (!input) throw new Error('no file input');
  return input;
}

const importButton = () => screen.getByRole('button', { name: /^Import \d+ rows?$/ });

function viewExecutors(walk: Walk): PaymentsImportExecutors {
  const { user, api } = walk;

  const answer = async (event: PaymentsImportModelEvent) => {
    const [route, reply] = answerFor(event);
    await waitFor(() => expect(api.waiting(route)).toBe(1));
    api.release(route, reply);
  };

  return {
    'mappingWizard.fileChosen': async (event) => {
      if (event.type !== 'mappingWizard.fileChosen' || !event.file) throw new Error('a file to choose');
      await user.upload(fileInput(walk), event.file);
    },
    'mappingWizard.upload': async () => {
      await user.click(screen.getByRole('button', { name: 'Upload' }));
    },
    'mappingWizard.cancelUpload': async () => {
      await user.click(screen.getByRole('button', { name: 'Cancel' }));
    },
    'mappingWizard.mapColumn': async (event) => {
      if (event.type !== 'mappingWizard.mapColumn') throw new Error('a column to map');
      await user.click(screen.getByRole('combobox', { name: `Field of column ${event.column + 1}` }));
      const label = event.role ? paymentsImport.labels[event.role as keyof typeof paymentsImport.labels] : 'Not mapped';
      await user.click(await screen.findByRole('option', { name: label }));
    },
    'mappingWizard.skipHeadersChanged': async (event) => {
      if (event.type !== 'mappingWizard.skipHeadersChanged') throw new Error('a skip-headers choice');
      const toggle = screen.getByRole('switch', { name: /Skip headers/ });
      expect((toggle as HTMLInputElement).checked).toBe(!event.skipHeaders);
      await user.click(toggle);
    },
    'mappingWizard.finalize': async () => {
      await user.click(importButton());
    },
    'mappingWizard.reset': async () => {
      const button = screen.queryByRole('button', { name: 'Choose another file' }) ?? screen.getByRole('button', { name: 'Import another file' });
      await user.click(button);
    },
    'xstate.done.actor.upload': answer,
    'xstate.error.actor.upload': answer,
    'xstate.done.actor.finalize': answer,
    'xstate.error.actor.finalize': answer,
    [POLL_DUE_EVENT]: async () => {
      if (!walk.previous) throw new Error('the poll is due after a state');
      const wait = pollWaitMs(walk.previous);
      walk.clock.increment(wait - 1);
      await new Promise((resolve) => setTimeout(resolve, 0));
      expect(api.waiting(STATUS), `no status poll ${wait - 1} ms in`).toBe(0);
      walk.clock.increment(1);
      await waitFor(() => expect(api.waiting(STATUS)).toBe(1));
    },
    'xstate.done.actor.fetchStatus': answer,
    'xstate.error.actor.fetchStatus': answer,
  } satisfies PaymentsImportExecutors;
}

/** Every message the model can make the page show: none may show unless the state carries it. */
const ALL_MESSAGES = [
  NO_FILE_MESSAGE,
  ONLY_CSV_MESSAGE,
  ...uploadRefusal.messages,
  PAYMENTS_MAPPING_INCOMPLETE_MESSAGE,
  ...finalizeRefusal.messages,
  modelStatuses.failed.error,
  STATUS_LIMIT_MESSAGE,
  STATUS_CHECK_FAILURE_MESSAGE,
];

function messagesOf(expected: MappingWizardSnapshot): string[] {
  const messages = [...(expected.context.failure?.messages ?? [])];
  if (expected.matches('finalizing') && expected.context.statusCheckFailed) messages.push(STATUS_CHECK_FAILURE_MESSAGE);
  return messages;
}

function expectMessages(expected: MappingWizardSnapshot) {
  const shown = messagesOf(expected);
  for (const message of ALL_MESSAGES) {
    if (shown.includes(message)) expect(screen.getByText(message)).toBeInTheDocument();
    else expect(screen.queryByText(message)).not.toBeInTheDocument();
  }
}

const isLoading = (button: HTMLElement) => button.hasAttribute('data-loading');

/** What the user must see in each state of the machine. */
async function expectUiOf(walk: Walk, expected: MappingWizardSnapshot) {
  await waitFor(() => {
    const { context } = expected;
    if (expected.matches('not_started')) {
      expect(isLoading(screen.getByRole('button', { name: 'Upload' }))).toBe(false);
      expect(screen.queryByRole('table', { name: 'Preview of the first rows' })).not.toBeInTheDocument();
      if (context.file) expect(screen.getByText(context.file.name)).toBeInTheDocument();
      else expect(screen.getByText('Choose a .csv file')).toBeInTheDocument();
    } else if (expected.matches('uploading')) {
      expect(isLoading(screen.getByRole('button', { name: 'Upload' }))).toBe(true);
      expect(screen.getByLabelText('Loading preview')).toBeInTheDocument();
    } else if (expected.matches('preview') || expected.matches({ finalizing: 'submitting' })) {
      const table = screen.getByRole('table', { name: 'Preview of the first rows' });
      for (let column = 0; column < (context.preview?.columns ?? 0); column += 1) {
        const field = roleOfColumn(paymentsImport, context.mapping, column);
        expect(within(table).getByRole('combobox', { name: `Field of column ${column + 1}` })).toHaveValue(
          field ? paymentsImport.labels[field as keyof typeof paymentsImport.labels] : 'Not mapped',
        );
      }
      expect(screen.getByRole('switch', { name: /Skip headers/ })).toHaveProperty('checked', context.skipHeaders);
      expect(isLoading(importButton())).toBe(expected.matches('finalizing'));
    } else if (expected.matches('finalizing')) {
      expect(screen.getByRole('progressbar', { name: 'Import progress' })).toHaveAttribute('aria-valuenow', String(context.progress));
      expect(walk.api.waiting(STATUS)).toBe(expected.matches({ finalizing: 'polling' }) ? 1 : 0);
    } else if (expected.matches({ finalized: 'succeeded' })) {
      expect(screen.getByText(allRecordsImportedMessage(context.result?.successCount ?? -1))).toBeInTheDocument();
    } else if (expected.matches({ finalized: 'withErrors' })) {
      expect(screen.getByText('1 record imported, 1 row could not be imported.')).toBeInTheDocument();
      const table = screen.getByRole('table', { name: 'Rows that could not be imported' });
      for (const failure of context.result?.failures ?? []) {
        const row = within(table).getByRole('row', { name: new RegExp(`^${failure.rowNumber}`) });
        expect(within(row).getByText(failure.row)).toBeInTheDocument();
        expect(within(row).getByText(failure.message)).toBeInTheDocument();
      }
    } else if (expected.matches({ finalized: 'failed' })) {
      expect(screen.getByText('The import failed')).toBeInTheDocument();
    } else {
      throw new Error(`No view expectation for ${JSON.stringify(expected.value)}`);
    }
    expectMessages(expected);
  });
}

// Every state and transition, through the component: the fewest generated paths that cover
// them (the machine's own suite walks all of them against the machine alone).
const paths = coveringPaths(paymentsImportMachine, generatePaths(anyPaymentsImportTestModel()));

it('the walked paths reach every state and take every transition of the machine', () => {
  expect(coverageGaps(paymentsImportMachine, paths)).toEqual({ states: [], transitions: [] });
});

describe('the payments import page along its generated paths', () => {
  // The longest paths walk a dozen steps through the rendered page: on a loaded machine more than the suites' 20 s.
  it.each(paths.map((path): [string, AnyTestPath] => [describePath(path), path]))('%s', async (_, path) => {
    const api = fakeServer();
    const clock = new SimulatedClock();
    const { container } = renderWithProviders(<ImportWizard clock={clock} input={modelInput} />, { user: fullAccessUser, api });
    // The page's file input accepts .csv; a user can still pick another file in the system dialog.
    const walk: Walk = { user: userEvent.setup({ applyAccept: false, delay: null }), api, clock, container, previous: undefined };

    await path.test(
      pathTestParams(viewExecutors(walk), async (expected) => {
        await expectUiOf(walk, expected);
        walk.previous = expected;
      }),
    );
  }, 60_000);
});
