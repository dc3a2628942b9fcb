import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { UserEvent } from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { roleOfColumn } from '../../../machines/mappingWizard/mapping';
import {
  NO_FILE_MESSAGE,
  ONLY_CSV_MESSAGE,
  STATUS_CHECK_FAILURE_MESSAGE,
  STATUS_LIMIT_MESSAGE,
} from '../../../machines/mappingWizard/messages';
import type { MappingWizardSnapshot } from '../../../machines/mappingWizard/mappingWizardMachine';
import {
  allValuesImportedMessage,
  CUSTOMER_COLUMN_REQUIRED_MESSAGE,
  SEGMENTS_MAPPING_INCOMPLETE_MESSAGE,
  segmentsImport,
  segmentsImportMachine,
} from '../../../machines/mappingWizard/segmentsImport';
import { SegmentsImport } from '../../../src/imports/SegmentsImport';
import { apiDraftAnswer, apiSegmentsImportView } from '../../machines/mappingWizard/segmentsImportApiAnswers';
import {
  anySegmentsImportTestModel,
  finalizeRefusal,
  MODEL_MAX_POLLS,
  MODEL_SEGMENT_ID,
  modelPreview,
  modelStatuses,
  pathTestParams,
  POLL_DUE_EVENT,
  pollWaitMs,
  uploadRefusal,
} from '../../machines/mappingWizard/segmentsImportModel';
import type { SegmentsImportExecutors, SegmentsImportModelEvent } from '../../machines/mappingWizard/segmentsImportModel';
import { coverageGaps, coveringPaths, describePath, generatePaths } from '../../machines/support/modelPaths';
import type { AnyTestPath } from '../../machines/support/modelPaths';
import { createFakeLiveChannels } from '../cable/fakeLiveChannels';
import type { FakeLiveChannels } from '../cable/fakeLiveChannels';
import { fullAccessUser, renderWithProviders } from '../renderApp';
import { apiErrors, createFakeApi } from '../support/fakeApi';
import type { FakeAnswer, FakeApi } from '../support/fakeApi';

/**
 * The segments import machine's generated paths walked through the real component: each event
 * is made to happen the way a user or the server makes it (choosing a file, picking a role in
 * a column's menu, the fake API answering, the live channel reporting, the poll interval
 * passing on a simulated clock), and after every step what the user sees must match the state
 * the model expects.
 */

const DRAFT = 'POST /segments_importer/draft';
const FINALIZE = 'POST /segments_importer/finalize';
const STATUS = 'GET /segments_importer/:id';
type HeldRoute = typeof DRAFT | typeof FINALIZE | typeof STATUS;

function fakeServer(): FakeApi {
  const api = createFakeApi();
  for (const route of [DRAFT, FINALIZE, STATUS]) api.hold(route);
  return api;
}

/** The server's answer that makes a done/error event happen. */
function answerFor(event: SegmentsImportModelEvent): [HeldRoute, FakeAnswer] {
  switch (event.type) {
    case 'xstate.done.actor.upload':
      return [DRAFT, { status: 200, body: apiDraftAnswer(event.output) }];
    case 'xstate.error.actor.upload':
      return [DRAFT, apiErrors(413, { pointer: '/body/csv', detail: uploadRefusal.messages[0] ?? '' })];
    case 'xstate.done.actor.finalize':
      return [FINALIZE, { status: 200, body: apiSegmentsImportView(modelPreview.importId, event.output) }];
    case 'xstate.error.actor.finalize':
      return [FINALIZE, apiErrors(404, { pointer: '/customer_segment_id', detail: finalizeRefusal.messages[0] ?? '' })];
    case 'xstate.done.actor.fetchStatus':
      return [STATUS, { status: 200, body: apiSegmentsImportView(modelPreview.importId, event.output) }];
    case 'xstate.error.actor.fetchStatus':
      return [STATUS, { status: 503 }];
    default:
      throw new Error(`${event.type} has no server answer`);
  }
}

interface Walk {
  user: UserEvent;
  api: FakeApi;
  live: FakeLiveChannels;
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

function viewExecutors(walk: Walk): SegmentsImportExecutors {
  const { user, api } = walk;

  /** The server's part of the live channel: SegmentsImportChannel tells the page's subscription. */
  const channel = (tell: Parameters<FakeLiveChannels['tell']>[0]) => async () => {
    await waitFor(() => expect(walk.live.active()).toHaveLength(1));
    walk.live.tell(tell);
  };

  const answer = async (event: SegmentsImportModelEvent) => {
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
      await user.click(screen.getByRole('combobox', { name: `Role of column ${event.column + 1}` }));
      const label = event.role ? segmentsImport.labels[event.role as keyof typeof segmentsImport.labels] : 'Not mapped';
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
    'liveChannel.connected': channel((handlers) => handlers.connected?.()),
    'liveChannel.lost': channel((handlers) => handlers.lost?.()),
    'liveChannel.update': async (event) => {
      if (event.type !== 'liveChannel.update') throw new Error('an update to report');
      const { update } = event;
      // As the server sends it (server/cable/importEvents.ts).
      const message = {
        import_id: modelPreview.importId,
        kind: 'segments',
        status: update.status,
        progress: update.progress,
        event: update.status === 'done' ? 'committed' : 'commit started',
        success_count: update.successCount,
        failure_count: update.failureCount,
        error: update.error,
        created_at: '2026-03-02T09:00:00.000Z',
      };
      await channel((handlers) => handlers.received?.(message))();
    },
  } satisfies SegmentsImportExecutors;
}

/** Every message the model can make the page show: none may show unless the state carries it. */
const ALL_MESSAGES = [
  NO_FILE_MESSAGE,
  ONLY_CSV_MESSAGE,
  ...uploadRefusal.messages,
  CUSTOMER_COLUMN_REQUIRED_MESSAGE,
  SEGMENTS_MAPPING_INCOMPLETE_MESSAGE,
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
        const role = roleOfColumn(segmentsImport, context.mapping, column);
        expect(within(table).getByRole('combobox', { name: `Role of column ${column + 1}` })).toHaveValue(
          role ? segmentsImport.labels[role as keyof typeof segmentsImport.labels] : 'Not mapped',
        );
      }
      expect(screen.getByRole('switch', { name: /Skip headers/ })).toHaveProperty('checked', context.skipHeaders);
      expect(isLoading(importButton())).toBe(expected.matches('finalizing'));
    } else if (expected.matches('finalizing')) {
      expect(screen.getByRole('progressbar', { name: 'Import progress' })).toHaveAttribute('aria-valuenow', String(context.progress));
      expect(walk.api.waiting(STATUS)).toBe(expected.matches({ finalizing: 'polling' }) ? 1 : 0);
      if (context.live) expect(screen.getByText('Live')).toBeInTheDocument();
      else expect(screen.queryByText('Live')).not.toBeInTheDocument();
    } else if (expected.matches({ finalized: 'succeeded' })) {
      expect(screen.getByText(allValuesImportedMessage(context.result?.successCount ?? -1))).toBeInTheDocument();
    } else if (expected.matches({ finalized: 'withErrors' })) {
      expect(screen.getByText('1 value imported, 1 row could not be imported.')).toBeInTheDocument();
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
    // The page listens to its import's channel exactly while the import is being finalized.
    expect(walk.live.active().map((subscription) => subscription.params)).toEqual(
      expected.matches('finalizing') ? [{ channel: 'SegmentsImportChannel', id: modelPreview.importId }] : [],
    );
  });
}

// Every state and transition, through the component: the fewest generated paths that cover
// them (the machine's own suite walks all of them against the machine alone).
const paths = coveringPaths(segmentsImportMachine, generatePaths(anySegmentsImportTestModel()));

it('the walked paths reach every state and take every transition of the machine', () => {
  expect(coverageGaps(segmentsImportMachine, paths)).toEqual({ states: [], transitions: [] });
});

describe('the attribute values import page along the segments import paths', () => {
  // The longest paths walk a dozen steps through the rendered page: on a loaded machine more than the suites' 20 s.
  it.each(paths.map((path): [string, AnyTestPath] => [describePath(path), path]))('%s', async (_, path) => {
    const api = fakeServer();
    const live = createFakeLiveChannels();
    const clock = new SimulatedClock();
    const { container } = renderWithProviders(
      <SegmentsImport segmentId={MODEL_SEGMENT_ID} clock={clock} maxPolls={MODEL_MAX_POLLS} channels={live.channels} />,
      { user: fullAccessUser, api },
    );
    // The page's file input accepts .csv; a user can still pick another file in the system dialog.
    const walk: Walk = { user: userEvent.setup({ applyAccept: false, delay: null }), api, live, clock, container, previous: undefined };

    await path.test(
      pathTestParams(viewExecutors(walk), async (expected) => {
        await expectUiOf(walk, expected);
        walk.previous = expected;
      }),
    );
  }, 60_000);
});
