import { screen, within } from '@testing-library/react';
import { createActor } from 'xstate';
import { describe, expect, it } from 'vitest';
import { answerEvent } from '../../../../machines/integrationSync/answers';
import { integrationSyncMachine } from '../../../../machines/integrationSync/integrationSyncMachine';
import type { IntegrationSyncContext } from '../../../../machines/integrationSync/types';
import { InspectorProvider } from '../../../../src/inspector/InspectorContext';
import { InspectorPanel } from '../../../../src/inspector/InspectorPanel';
import { createInspectorRegistry } from '../../../../src/inspector/registry';
import { fullAccessUser, renderWithProviders } from '../../renderApp';
import { createFakeApi } from '../../support/fakeApi';
import { answers } from '../../../machines/integrationSync/integrationSyncModel';

/** A card's machine in the state inspector, with the server's sync log of its integration beside it. */

describe('integrationSync in the state inspector', () => {
  it('records the card machine tagged with its integration, redacts typed keys, and shows the server sync log', async () => {
    const registry = createInspectorRegistry();
    const tracker = registry.track('integrationSync', { integrationOf: (context) => (context as IntegrationSyncContext).name });
    const actor = createActor(integrationSyncMachine, { input: { name: 'chargebee' }, inspect: tracker.inspect }).start();
    actor.send(answerEvent(answers.notConfigured));
    actor.send({ type: 'integration.configure' });
    actor.send({ type: 'integration.save', configuration: { chargebee_site: 'acme', chargebee_api_key: 'live_secret_key' } });

    const [recorded] = registry.list();
    expect(recorded?.integration).toBe('chargebee');
    expect(JSON.stringify(recorded?.trace)).not.toContain('live_secret_key');

    const api = createFakeApi({
      'GET /integrations/:name/sync_log': ({ params }) => ({
        status: 200,
        body: {
          items: [
            { at: '2026-11-26T10:00:05.000Z', event: 'sync_failed', details: { error: 'Chargebee answered 401', integration: params.name } },
            { at: '2026-11-26T10:00:00.000Z', event: 'sync_started', details: {} },
          ],
        },
      }),
    });
    renderWithProviders(
      <InspectorProvider initiallyOpen registry={registry}>
        <InspectorPanel />
      </InspectorProvider>,
      { user: fullAccessUser, api },
    );
    const panel = within(await screen.findByRole('dialog', { name: 'State inspector' }));
    const entries = await panel.findByRole('table', { name: 'Server sync log entries' });
    const rows = within(entries).getAllByRole('row').slice(1);
    expect(rows.map((row) => within(row).getAllByRole('cell')[1]?.textContent)).toEqual(['sync_failed', 'sync_started']);
    expect(api.requestsTo('GET /integrations/chargebee/sync_log')).toHaveLength(1);
    expect(registry.get(recorded?.id ?? '')?.auditLog?.entries).toHaveLength(2);
    actor.stop();
  });
});
