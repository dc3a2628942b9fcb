import { Button, Menu } from '@mantine/core';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { ReportSection } from '../../../../src/reports/page/reportApi';
import { KeyNumberMenuItem } from '../../../../src/reports/keyNumbers/KeyNumberMenuItem';
import { KeyNumbersProvider } from '../../../../src/reports/keyNumbers/KeyNumbersContext';
import { KeyNumbersStrip } from '../../../../src/reports/keyNumbers/KeyNumbersStrip';
import type { KeyNumber } from '../../../../src/reports/keyNumbers/keyNumbersApi';
import { mrrSection } from '../charts/sectionFixtures';
import { defaultFakeApi, fullAccessUser, renderWithProviders } from '../../renderApp';
import { apiErrors, type FakeApi } from '../../support/fakeApi';

const SECRET = 'S'.repeat(32);
const LIST = 'GET /business_reports/by_secret/key_numbers';
const ADD = 'POST /business_reports/by_secret/key_numbers';
const REMOVE = 'DELETE /business_reports/by_secret/key_numbers';

const mrr = mrrSection({ id: 'sec_mrr', title: 'MRR' }) as ReportSection;
const churn = mrrSection({
  id: 'sec_churn',
  definition_id: 'customer_churn_rate',
  title: 'Customer churn rate',
  unit: 'fraction',
  currency: null,
  decimal: true,
  key_number: { value: 0.0525, kind: 'percent', time: '2025-03-01' },
}) as ReportSection;

const mrrItem: KeyNumber = { section_id: 'sec_mrr', definition_id: 'mrr', title: 'MRR', value: 212_345, kind: 'currency', unit: 'minor_units', currency: 'USD', time: '2025-03-01' };
const churnItem: KeyNumber = { section_id: 'sec_churn', definition_id: 'customer_churn_rate', title: 'Customer churn rate', value: 0.0525, kind: 'percent', unit: 'fraction', currency: null, time: '2025-03-01' };

/** A fake API whose key numbers list is `items`, changed by POST and DELETE as the server does. */
function keyNumbersApi(initial: KeyNumber[], all: KeyNumber[] = [mrrItem, churnItem]): { api: FakeApi; items: () => KeyNumber[] } {
  let items = [...initial];
  const api = defaultFakeApi();
  api.on(LIST, () => ({ status: 200, body: { items } }));
  api.on(ADD, ({ body }) => {
    const { section_id } = body as { section_id: string };
    const added = all.find((item) => item.section_id === section_id);
    if (added && !items.includes(added)) items = [...items, added];
    return { status: 201, body: { items } };
  });
  api.on(REMOVE, ({ body }) => {
    const { section_id } = body as { section_id: string };
    items = items.filter((item) => item.section_id !== section_id);
    return { status: 204 };
  });
  return { api, items: () => items };
}

/** The strip over the sections, and each section's menu with the key number item, as on the report page. */
function renderStrip(api: FakeApi, { canEdit = true, sections = [mrr, churn], currency = 'USD' }: { canEdit?: boolean; sections?: ReportSection[]; currency?: string } = {}) {
  return renderWithProviders(
    <KeyNumbersProvider secret={SECRET} canEdit={canEdit}>
      <KeyNumbersStrip sections={sections} currency={currency} />
      {sections.map((section) => (
        <Menu key={section.id}>
          <Menu.Target>
            <Button>{`Section menu of ${section.title}`}</Button>
          </Menu.Target>
          <Menu.Dropdown>
            <Menu.Item>Move up</Menu.Item>
            <KeyNumberMenuItem section={section} />
          </Menu.Dropdown>
        </Menu>
      ))}
    </KeyNumbersProvider>,
    { user: fullAccessUser, api },
  );
}

const strip = () => screen.getByRole('region', { name: 'Key numbers' });

describe('the key numbers strip', () => {
  it('shows the public demo’s key numbers to an anonymous visitor, read only, never as lasting placeholders', async () => {
    const { api } = keyNumbersApi([mrrItem, churnItem]);
    renderWithProviders(
      <KeyNumbersProvider secret={SECRET} canEdit={false} demo>
        <KeyNumbersStrip sections={[mrr, churn]} currency="USD" />
      </KeyNumbersProvider>,
      { api },
    );
    const shown = await screen.findByRole('region', { name: 'Key numbers' });
    expect(within(shown).getByRole('group', { name: 'MRR' })).toBeInTheDocument();
    expect(within(shown).getByRole('group', { name: 'Customer churn rate' })).toBeInTheDocument();
    expect(screen.queryByLabelText('Loading key numbers')).not.toBeInTheDocument();
    expect(within(shown).queryByRole('button', { name: /^Remove / })).not.toBeInTheDocument();
  });

  it('shows nothing on a demo without key numbers, or when they cannot be read, once the answer is in', async () => {
    for (const answer of [{ status: 200, body: { items: [] } }, apiErrors(500, { detail: 'Something went wrong' })]) {
      const api = defaultFakeApi();
      api.on(LIST, () => answer);
      const { unmount } = renderWithProviders(
        <KeyNumbersProvider secret={SECRET} canEdit={false} demo>
          <KeyNumbersStrip sections={[mrr, churn]} currency="USD" />
        </KeyNumbersProvider>,
        { api },
      );
      await waitFor(() => expect(api.requestsTo(LIST).length).toBeGreaterThan(0));
      await waitFor(() => expect(screen.queryByLabelText('Loading key numbers')).not.toBeInTheDocument());
      expect(screen.queryByRole('region', { name: 'Key numbers' })).not.toBeInTheDocument();
      unmount();
    }
  });

  it('shows skeletons, then each key number with its value at the last complete period, formatted as its chart', async () => {
    const { api } = keyNumbersApi([mrrItem, churnItem]);
    api.hold(LIST);
    renderStrip(api);
    expect(screen.getByLabelText('Loading key numbers')).toBeInTheDocument();
    // StrictMode reads twice: answer every read.
    await waitFor(() => expect(api.waiting(LIST)).toBeGreaterThan(0));
    while (api.waiting(LIST) > 0) api.release(LIST, { status: 200, body: { items: [mrrItem, churnItem] } });

    const mrrCard = within(await screen.findByRole('region', { name: 'Key numbers' })).getByRole('group', { name: 'MRR' });
    expect(mrrCard).toHaveTextContent('$2,123');
    expect(mrrCard).toHaveTextContent('2025-03');
    // A percentage with the section's two decimals.
    expect(within(strip()).getByRole('group', { name: 'Customer churn rate' })).toHaveTextContent('5.25%');
    expect(screen.queryByLabelText('Loading key numbers')).not.toBeInTheDocument();
  });

  it('formats a number whose section the page does not have by its kind: money in the report currency, a count as a number', async () => {
    const orphanMoney: KeyNumber = { section_id: 'sec_gone', definition_id: 'arpa', title: 'ARPA', value: 9_950, kind: 'currency', unit: 'minor_units', currency: null, time: '2025-02-01' };
    const count: KeyNumber = { section_id: 'sec_count', definition_id: 'customers', title: 'Customers', value: 1_234, kind: 'other', unit: 'count', currency: null, time: '2025-02-01' };
    const { api } = keyNumbersApi([orphanMoney, count]);
    renderStrip(api, { sections: [], currency: 'EUR' });
    expect(await screen.findByRole('group', { name: 'ARPA' })).toHaveTextContent('€100');
    expect(screen.getByRole('group', { name: 'ARPA' })).toHaveTextContent('2025-02');
    expect(screen.getByRole('group', { name: 'Customers' })).toHaveTextContent('1,234');
  });

  it('adds a section’s number from its menu: it shows in the strip, and the menu then offers to remove it', async () => {
    const user = userEvent.setup({ delay: null });
    const { api } = keyNumbersApi([mrrItem]);
    renderStrip(api);
    await screen.findByRole('group', { name: 'MRR' });
    expect(screen.queryByRole('group', { name: 'Customer churn rate' })).not.toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Section menu of Customer churn rate' }));
    await user.click(await screen.findByRole('menuitem', { name: 'Add to key numbers' }));
    expect(await within(strip()).findByRole('group', { name: 'Customer churn rate' })).toHaveTextContent('5.25%');
    expect(api.requestsTo(ADD).at(-1)?.body).toEqual({ secret: SECRET, section_id: 'sec_churn', definition_id: 'customer_churn_rate' });

    await user.click(screen.getByRole('button', { name: 'Section menu of Customer churn rate' }));
    expect(await screen.findByRole('menuitem', { name: 'Remove from key numbers' })).toBeInTheDocument();
    expect(screen.queryByRole('menuitem', { name: 'Add to key numbers' })).not.toBeInTheDocument();
  });

  it('removes a number from the strip with its ×, and from a section’s menu', async () => {
    const user = userEvent.setup({ delay: null });
    const { api, items } = keyNumbersApi([mrrItem, churnItem]);
    renderStrip(api);
    await user.click(await screen.findByRole('button', { name: 'Remove MRR from key numbers' }));
    await waitFor(() => expect(screen.queryByRole('group', { name: 'MRR' })).not.toBeInTheDocument());
    expect(api.requestsTo(REMOVE)[0]?.body).toEqual({ secret: SECRET, section_id: 'sec_mrr', definition_id: 'mrr' });

    await user.click(screen.getByRole('button', { name: 'Section menu of Customer churn rate' }));
    await user.click(await screen.findByRole('menuitem', { name: 'Remove from key numbers' }));
    // None left: the editor sees how to add one.
    expect(await screen.findByText('No key numbers yet: add one from a section’s menu.')).toBeInTheDocument();
    expect(items()).toEqual([]);
  });

  it('keeps the strip as it was, with the spec’s toast, when a change is not saved', async () => {
    const user = userEvent.setup({ delay: null });
    const { api } = keyNumbersApi([mrrItem]);
    api.on(REMOVE, () => apiErrors(500, { detail: 'boom' }));
    api.on(ADD, () => apiErrors(500, { detail: 'boom' }));
    renderStrip(api);
    await user.click(await screen.findByRole('button', { name: 'Remove MRR from key numbers' }));
    expect(await screen.findByText('We could not save your changes. Please try again.')).toBeInTheDocument();
    expect(screen.getByRole('group', { name: 'MRR' })).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Section menu of Customer churn rate' }));
    await user.click(await screen.findByRole('menuitem', { name: 'Add to key numbers' }));
    await waitFor(() => expect(api.requestsTo(ADD)).toHaveLength(1));
    expect(screen.queryByRole('group', { name: 'Customer churn rate' })).not.toBeInTheDocument();
  });

  it('shows a reader who may not edit the numbers only: no remove, no menu item, no hint when there are none', async () => {
    const user = userEvent.setup({ delay: null });
    const { api } = keyNumbersApi([mrrItem]);
    const view = renderStrip(api, { canEdit: false });
    expect(await screen.findByRole('group', { name: 'MRR' })).toHaveTextContent('$2,123');
    expect(screen.queryByRole('button', { name: /from key numbers/ })).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Section menu of MRR' }));
    expect(await screen.findByRole('menuitem', { name: 'Move up' })).toBeInTheDocument();
    expect(screen.queryByRole('menuitem', { name: /key numbers/ })).not.toBeInTheDocument();
    view.unmount();

    const empty = keyNumbersApi([]);
    renderStrip(empty.api, { canEdit: false });
    await waitFor(() => expect(empty.api.requestsTo(LIST).length).toBeGreaterThan(0));
    expect(screen.queryByLabelText('Loading key numbers')).not.toBeInTheDocument();
    expect(screen.queryByText(/No key numbers yet/)).not.toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'Key numbers' })).not.toBeInTheDocument();
  });
});
