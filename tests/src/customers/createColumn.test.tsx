import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { COLUMN_SAVE_FAILURE_MESSAGE } from '../../../machines/columnRecalculation/messages';
import { DRAWER_WIDTH_MAX, HELP_EMAIL } from '../../../models/constants';
import {
  COLUMN_NAME_REQUIRED_MESSAGE,
  END_MONTH_REQUIRED_MESSAGE,
  END_YEAR_REQUIRED_MESSAGE,
  FETCHER_REQUIRED_MESSAGE,
  FORMULA_REQUIRED_MESSAGE,
  FROM_AFTER_TO_MESSAGE,
  START_MONTH_REQUIRED_MESSAGE,
  START_YEAR_REQUIRED_MESSAGE,
} from '../../../models/customerColumns';
import { apiErrors } from '../support/fakeApi';
import { columns, customersApi, definition, DEFINITION_ID, matchEmptyMediaQuery, page, renderCustomersPage, row, sent } from './customersPageFixtures';

vi.mock('react-apexcharts/core', () => ({ default: () => <div data-testid="apex-chart" /> }));

type User = ReturnType<typeof userEvent.setup>;

const drawer = () => within(screen.getByRole('dialog', { name: /Create column|Edit column/ }));
const variable = (n: number) => within(drawer().getByRole('group', { name: `Variable ${n}` }));

async function openCreate(): Promise<User> {
  const user = userEvent.setup({ delay: null });
  await user.click(await editColumnsButton());
  await user.click(await within(await screen.findByRole('dialog', { name: 'Edit columns' })).findByRole('button', { name: 'Add column' }));
  await screen.findByRole('dialog', { name: 'Create column' });
  return user;
}

async function choose(user: User, n: number, label: string, option: string) {
  await user.click(variable(n).getByRole('combobox', { name: label }));
  await user.click(await screen.findByRole('option', { name: option }));
}

/** Fills variable n: a calculation, a name, From and (for booked value) To. */
async function fillVariable(user: User, n: number, values: { calculation: string; name: string; from: [string, string]; to?: [string, string] }) {
  await choose(user, n, 'Calculation', values.calculation);
  await user.type(variable(n).getByRole('textbox', { name: 'Name' }), values.name);
  await choose(user, n, 'From month', values.from[0]);
  await choose(user, n, 'From year', values.from[1]);
  if (values.to) {
    await choose(user, n, 'To month', values.to[0]);
    await choose(user, n, 'To year', values.to[1]);
  }
}

/** 'Edit columns', once the user's columns are in (disabled until then). */
async function editColumnsButton(): Promise<HTMLElement> {
  const button = await screen.findByRole('button', { name: 'Edit columns' });
  await waitFor(() => expect(button).toBeEnabled());
  return button;
}

// Each variable is several selects picked with the mouse: slow on a busy machine.
describe('the Create column drawer', { timeout: 60_000 }, () => {
  beforeEach(matchEmptyMediaQuery);

  it(`says what is missing, in the spec’s words (${DRAWER_WIDTH_MAX} wide)`, async () => {
    const api = customersApi();
    renderCustomersPage(api);
    const user = await openCreate();
    expect(screen.getByRole('dialog', { name: 'Create column' }).closest('.mantine-Drawer-root')?.getAttribute('style')).toContain(`--drawer-size: ${DRAWER_WIDTH_MAX}`);
    await user.click(drawer().getByRole('button', { name: 'Create column' }));
    for (const message of [COLUMN_NAME_REQUIRED_MESSAGE, FETCHER_REQUIRED_MESSAGE, START_MONTH_REQUIRED_MESSAGE, START_YEAR_REQUIRED_MESSAGE, END_MONTH_REQUIRED_MESSAGE, END_YEAR_REQUIRED_MESSAGE]) {
      expect(drawer().getByText(message)).toBeInTheDocument();
    }
    expect(['Column name is required', 'Calculation is required', 'Starting month must be set', 'Starting year must be set', 'Ending month must be set', 'Ending year must be set']).toEqual([
      COLUMN_NAME_REQUIRED_MESSAGE,
      FETCHER_REQUIRED_MESSAGE,
      START_MONTH_REQUIRED_MESSAGE,
      START_YEAR_REQUIRED_MESSAGE,
      END_MONTH_REQUIRED_MESSAGE,
      END_YEAR_REQUIRED_MESSAGE,
    ]);
    expect(api.requestsTo('POST /customer_related_metric_definitions')).toHaveLength(0);
  });

  it('asks for a formula with more than one variable, and for From not after To', async () => {
    renderCustomersPage();
    const user = await openCreate();
    await user.type(drawer().getByRole('textbox', { name: 'Column name' }), 'Two');
    await fillVariable(user, 1, { calculation: 'Booked total contract value', name: 'tcv', from: ['December', '2025'], to: ['January', '2025'] });
    await user.click(drawer().getByRole('button', { name: 'Add variable' }));
    await fillVariable(user, 2, { calculation: 'MRR', name: 'mrr', from: ['March', '2026'] });
    await user.click(drawer().getByRole('button', { name: 'Create column' }));
    expect(drawer().getByText(FORMULA_REQUIRED_MESSAGE)).toBeInTheDocument();
    expect(drawer().getByText(FROM_AFTER_TO_MESSAGE)).toBeInTheDocument();
    expect(FORMULA_REQUIRED_MESSAGE).toBe('Formula is required when using more than one variable');
    expect(FROM_AFTER_TO_MESSAGE).toBe('From date can not be ahead of the To date');
  });

  it('makes To the same month as From for MRR, and cannot change it', async () => {
    renderCustomersPage();
    const user = await openCreate();
    await choose(user, 1, 'From month', 'March');
    await choose(user, 1, 'From year', '2026');
    await choose(user, 1, 'Calculation', 'MRR');
    expect(variable(1).getByRole('combobox', { name: 'To month' })).toBeDisabled();
    expect(variable(1).getByRole('combobox', { name: 'To month' })).toHaveValue('March');
    expect(variable(1).getByRole('combobox', { name: 'To year' })).toHaveValue('2026');
    await choose(user, 1, 'From month', 'May');
    expect(variable(1).getByRole('combobox', { name: 'To month' })).toHaveValue('May');
  });

  it('uses a single variable’s name as the formula and previews formulas with sample values', async () => {
    renderCustomersPage();
    const user = await openCreate();
    await fillVariable(user, 1, { calculation: 'Booked total contract value', name: 'tcv', from: ['January', '2025'], to: ['December', '2025'] });
    expect(drawer().getByRole('textbox', { name: 'Formula' })).toHaveValue('tcv');
    expect(drawer().getByRole('textbox', { name: 'Formula' })).toBeDisabled();
    await user.click(drawer().getByRole('button', { name: 'Add variable' }));
    await fillVariable(user, 2, { calculation: 'MRR', name: 'mrr', from: ['December', '2025'] });
    await user.type(drawer().getByRole('textbox', { name: 'Formula' }), 'tcv / mrr');
    const preview = drawer().getByRole('status', { name: 'Formula preview' });
    expect(preview).toHaveTextContent('tcv = 120,000, mrr = 20,000');
    expect(preview).toHaveTextContent('tcv / mrr = 6');
    await user.clear(drawer().getByRole('textbox', { name: 'Formula' }));
    await user.type(drawer().getByRole('textbox', { name: 'Formula' }), 'tcv / arr');
    expect(drawer().getByRole('status', { name: 'Formula preview' })).toHaveTextContent('Unknown variable: arr');
  });

  it('creates the column, closes, and shows it “Calculating:” until the live event fills it in', async () => {
    const api = customersApi({ columns: columns(null), rows: [row('c1', 'Acme')] });
    api.on('POST /customer_related_metric_definitions', () => ({ status: 201, body: definition('in_progress') }));
    const { live } = renderCustomersPage(api);
    const user = await openCreate();
    await user.type(drawer().getByRole('textbox', { name: 'Column name' }), 'Bookings per MRR');
    await fillVariable(user, 1, { calculation: 'Booked total contract value', name: 'tcv', from: ['January', '2025'], to: ['December', '2025'] });
    await user.click(drawer().getByRole('button', { name: 'Add variable' }));
    await fillVariable(user, 2, { calculation: 'MRR', name: 'mrr', from: ['December', '2025'] });
    await user.type(drawer().getByRole('textbox', { name: 'Formula' }), 'tcv / mrr');
    api.on('GET /users/me', () => ({ status: 200, body: { user: { customer_columns: columns(definition('in_progress')) } } }));
    await user.click(drawer().getByRole('button', { name: 'Create column' }));

    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Create column' })).not.toBeInTheDocument());
    expect(sent(api, 'POST /customer_related_metric_definitions')[0]?.body).toEqual({
      name: 'Bookings per MRR',
      formula: 'tcv / mrr',
      variables: [
        { fetcher: 'BookedTotalContractValue', name: 'tcv', start_month: 1, start_year: 2025, end_month: 12, end_year: 2025 },
        { fetcher: 'Mrr', name: 'mrr', start_month: 12, start_year: 2025, end_month: 12, end_year: 2025 },
      ],
    });
    const table = screen.getByRole('table', { name: 'Customers' });
    expect(await within(table).findByText('Calculating: Bookings per MRR')).toBeInTheDocument();

    api.on('GET /customers', () => ({ status: 200, body: page([row('c1', 'Acme', { calculated: 12 })]) }));
    api.on('GET /users/me', () => ({ status: 200, body: { user: { customer_columns: columns(definition('finished')) } } }));
    live.tell((handlers) => handlers.received?.({ object: 'customer_related_metric_definition', id: DEFINITION_ID, recalculation_status: 'finished' }));
    expect(await within(table).findByText('12')).toBeInTheDocument();
    expect(within(table).queryByText(/Calculating:/)).not.toBeInTheDocument();
  });

  it('lists the server’s errors of a 422 and keeps what was typed', async () => {
    const api = customersApi();
    api.on('POST /customer_related_metric_definitions', () =>
      apiErrors(422, { pointer: '/body/formula', detail: 'The formula divides by zero' }, { pointer: '/body/name', detail: 'A column of this name exists' }),
    );
    renderCustomersPage(api);
    const user = await openCreate();
    await user.type(drawer().getByRole('textbox', { name: 'Column name' }), 'Bookings');
    await fillVariable(user, 1, { calculation: 'MRR', name: 'mrr', from: ['December', '2025'] });
    await user.click(drawer().getByRole('button', { name: 'Create column' }));
    const alert = await drawer().findByRole('alert');
    expect(within(alert).getByText('The formula divides by zero')).toBeInTheDocument();
    expect(within(alert).getByText('A column of this name exists')).toBeInTheDocument();
    expect(drawer().getByRole('textbox', { name: 'Column name' })).toHaveValue('Bookings');
    expect(variable(1).getByRole('textbox', { name: 'Name' })).toHaveValue('mrr');
  });

  it('says a generic message with a support contact for another failure', async () => {
    const api = customersApi();
    api.on('POST /customer_related_metric_definitions', () => apiErrors(500, { detail: 'boom' }));
    renderCustomersPage(api);
    const user = await openCreate();
    await user.type(drawer().getByRole('textbox', { name: 'Column name' }), 'Bookings');
    await fillVariable(user, 1, { calculation: 'MRR', name: 'mrr', from: ['December', '2025'] });
    await user.click(drawer().getByRole('button', { name: 'Create column' }));
    expect(await drawer().findByRole('alert')).toHaveTextContent(COLUMN_SAVE_FAILURE_MESSAGE);
    expect(COLUMN_SAVE_FAILURE_MESSAGE).toContain(HELP_EMAIL);
  });

  it('edits a calculated column with PUT, starting from its definition', async () => {
    const api = customersApi();
    api.on('PUT /customer_related_metric_definitions/:id', ({ body }) => ({ status: 200, body: { ...definition('in_progress'), ...(body as object) } }));
    renderCustomersPage(api);
    const user = userEvent.setup({ delay: null });
    await user.click(await editColumnsButton());
    await user.click(await within(await screen.findByRole('dialog', { name: 'Edit columns' })).findByRole('button', { name: 'Edit Bookings per MRR' }));
    await screen.findByRole('dialog', { name: 'Edit column: Bookings per MRR' });
    expect(drawer().getByRole('textbox', { name: 'Formula' })).toHaveValue('tcv / mrr');
    expect(variable(2).getByRole('combobox', { name: 'To month' })).toBeDisabled();
    await user.clear(drawer().getByRole('textbox', { name: 'Column name' }));
    await user.type(drawer().getByRole('textbox', { name: 'Column name' }), 'Renamed');
    await user.click(drawer().getByRole('button', { name: 'Save column' }));
    await waitFor(() => expect(sent(api, `PUT /customer_related_metric_definitions/${DEFINITION_ID}`)).toHaveLength(1));
    expect((sent(api, `PUT /customer_related_metric_definitions/${DEFINITION_ID}`)[0]?.body as { name: string }).name).toBe('Renamed');
    await waitFor(() => expect(screen.queryByRole('dialog', { name: /Edit column:/ })).not.toBeInTheDocument());
  });
});
