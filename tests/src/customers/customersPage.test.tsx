import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { CUSTOMER_SEARCH_MAX_LIMIT, SEARCH_DEBOUNCE_MS } from '../../../models/constants';
import { CUSTOMER_LIST_FAILURE_MESSAGE } from '../../../models/customers';
import { apiErrors } from '../support/fakeApi';
import { columns, customersApi, definition, DEFINITION_ID, matchEmptyMediaQuery, page, queryOf, renderCustomersPage, row, sent } from './customersPageFixtures';

vi.mock('react-apexcharts/core', () => ({ default: () => <div data-testid="apex-chart" /> }));
vi.mock('apexcharts/line', () => ({}));
vi.mock('apexcharts/bar', () => ({}));
vi.mock('apexcharts/features/annotations', () => ({}));

const table = () => screen.getByRole('table', { name: 'Customers' });
const bodyRows = () => within(table()).getAllByRole('row').slice(1);

describe('the customers page', () => {
  beforeEach(matchEmptyMediaQuery);

  it('shows a skeleton, then the user’s columns with money, dates, attributes and calculated values', async () => {
    renderCustomersPage();
    expect(screen.getByLabelText('Loading customers')).toBeInTheDocument();
    expect(await screen.findByRole('heading', { level: 1, name: 'Customers' })).toBeInTheDocument();
    await screen.findByRole('link', { name: 'Acme' });
    const headers = [...table().querySelectorAll('thead th')].map((header) => header.textContent);
    expect(headers).toEqual(['Name', 'Customer ID', 'Added at', 'MRR', 'Total', 'Country', 'Bookings per MRR']);
    const [acme, globex] = bodyRows();
    expect(within(acme as HTMLElement).getAllByRole('cell').map((cell) => cell.textContent)).toEqual(['Acme', 'pub_c1', 'Jan 5, 2025', '$120', '$900', 'PL', '1.50']);
    // No attribute value and no calculated value: a dash.
    expect(within(globex as HTMLElement).getAllByRole('cell').map((cell) => cell.textContent)).toEqual(['Globex', 'pub_c2', 'Jan 5, 2025', '$50', '$900', '–', '–']);
    expect(screen.getByText('1–2 of 2')).toBeInTheDocument();
  });

  it('searches once the user stops typing, with the largest limit, and shows the matches', async () => {
    const user = userEvent.setup({ delay: null });
    const api = customersApi();
    renderCustomersPage(api);
    await screen.findByRole('link', { name: 'Acme' });
    await user.type(screen.getByRole('textbox', { name: 'Search customers' }), 'glo');
    await waitFor(() => expect(bodyRows()).toHaveLength(1));
    expect(screen.getByRole('link', { name: 'Globex' })).toBeInTheDocument();
    const searches = sent(api, 'GET /customer/search').map(queryOf);
    expect(searches.map((query) => query.get('query'))).toEqual(['glo']);
    expect(searches[0]?.get('limit')).toBe(String(CUSTOMER_SEARCH_MAX_LIMIT));
    expect(screen.getByText('1 match')).toBeInTheDocument();

    await user.clear(screen.getByRole('textbox', { name: 'Search customers' }));
    await waitFor(() => expect(bodyRows()).toHaveLength(2));
  });

  it(`waits ${SEARCH_DEBOUNCE_MS} ms after the last keystroke before it searches`, async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
      const api = customersApi();
      renderCustomersPage(api);
      await screen.findByRole('link', { name: 'Acme' });
      await user.type(screen.getByRole('textbox', { name: 'Search customers' }), 'ac');
      act(() => vi.advanceTimersByTime(SEARCH_DEBOUNCE_MS - 50));
      expect(api.requestsTo('GET /customer/search')).toHaveLength(0);
      act(() => vi.advanceTimersByTime(60));
      await waitFor(() => expect(sent(api, 'GET /customer/search')).toHaveLength(1));
    } finally {
      vi.useRealTimers();
    }
  });

  it('sorts by a column header: ascending, then descending, from the first page', async () => {
    const user = userEvent.setup({ delay: null });
    const api = customersApi();
    renderCustomersPage(api);
    await screen.findByRole('link', { name: 'Acme' });
    expect(queryOf(sent(api, 'GET /customers')[0]!).get('sort_by')).toBe('name:asc');
    await user.click(within(table()).getByRole('button', { name: /^MRR/ }));
    await waitFor(() => expect(queryOf(sent(api, 'GET /customers').at(-1)!).get('sort_by')).toBe('mrr:asc'));
    await user.click(within(table()).getByRole('button', { name: /^MRR/ }));
    await waitFor(() => expect(queryOf(sent(api, 'GET /customers').at(-1)!).get('sort_by')).toBe('mrr:desc'));
  });

  it('pages with the answer’s cursors and says which rows it shows', async () => {
    const user = userEvent.setup({ delay: null });
    const api = customersApi();
    api.on('GET /customers', (request) => {
      const query = queryOf(request);
      if (query.get('next') === 'cur_2') return { status: 200, body: page([row('c3', 'Initech')], { total_count: 3, current_range: { from: 3, to: 3 }, prev: 'cur_back' }) };
      return { status: 200, body: page([row('c1', 'Acme'), row('c2', 'Globex')], { total_count: 3, next: 'cur_2' }) };
    });
    renderCustomersPage(api);
    await screen.findByText('1–2 of 3');
    expect(screen.getByRole('button', { name: 'Previous page' })).toBeDisabled();
    await user.click(screen.getByRole('button', { name: 'Next page' }));
    expect(await screen.findByText('3–3 of 3')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Initech' })).toBeInTheDocument();
    expect(queryOf(sent(api, 'GET /customers').at(-1)!).get('next')).toBe('cur_2');
    expect(screen.getByRole('button', { name: 'Next page' })).toBeDisabled();
    await user.click(screen.getByRole('button', { name: 'Previous page' }));
    await waitFor(() => expect(queryOf(api.requestsTo('GET /customers').at(-1)!).get('prev')).toBe('cur_back'));
  });

  it('empties the table and says so when the customers cannot be fetched', async () => {
    const api = customersApi();
    api.on('GET /customers', () => apiErrors(500, { detail: 'boom' }));
    renderCustomersPage(api);
    expect(await screen.findByRole('alert')).toHaveTextContent(CUSTOMER_LIST_FAILURE_MESSAGE);
    expect(within(table()).queryAllByRole('cell').filter((cell) => cell.textContent)).toHaveLength(0);
    expect(screen.queryByRole('link', { name: 'Acme' })).not.toBeInTheDocument();
  });

  it('says when there are no customers yet', async () => {
    renderCustomersPage(customersApi({ rows: [] }));
    expect(await screen.findByText(/No customers yet/)).toBeInTheDocument();
  });

  it('opens a customer’s details over the table at /customers/{id}, and closes back to /customers', async () => {
    const user = userEvent.setup({ delay: null });
    const { location } = renderCustomersPage();
    await user.click((await screen.findByText('pub_c2')).closest('tr') as HTMLElement);
    expect(await screen.findByRole('dialog', { name: /Details: Globex/ })).toBeInTheDocument();
    expect(location.history.at(-1)).toBe('/customers/c2');
    await user.click(screen.getByRole('button', { name: 'Close details' }));
    await waitFor(() => expect(location.history.at(-1)).toBe('/customers'));
  });

  it('opens a customer from its URL', async () => {
    renderCustomersPage(customersApi(), '/customers/c1');
    expect(await screen.findByRole('dialog', { name: /Details: Acme/ })).toBeInTheDocument();
    expect(await screen.findByRole('link', { name: 'Acme' })).toBeInTheDocument();
  });

  it('shows “Calculating:” with a spinner over a column being computed, then its values after the live event', async () => {
    const api = customersApi({ columns: columns(definition('in_progress')), rows: [row('c1', 'Acme')] });
    const { live } = renderCustomersPage(api);
    expect(await within(await screen.findByRole('table', { name: 'Customers' })).findByText('Calculating: Bookings per MRR')).toBeInTheDocument();
    expect(live.active().map((subscription) => subscription.params)).toEqual([{ channel: 'CustomerColumnsChannel' }]);

    api.on('GET /customers', () => ({ status: 200, body: page([row('c1', 'Acme', { calculated: 2.25 })]) }));
    api.on('GET /users/me', () => ({ status: 200, body: { user: { customer_columns: columns(definition('finished')) } } }));
    live.tell((handlers) => handlers.received?.({ object: 'customer_related_metric_definition', id: DEFINITION_ID, recalculation_status: 'finished' }));
    expect(await within(table()).findByText('2.25')).toBeInTheDocument();
    expect(within(table()).queryByText(/Calculating:/)).not.toBeInTheDocument();
    expect(within(table()).getByText('Bookings per MRR')).toBeInTheDocument();
  });
});
