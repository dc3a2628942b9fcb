import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { DRAWER_WIDTH_MAX } from '../../../../models/constants';
import {
  POSSIBLE_VALUES_FETCH_FAILURE,
  REQUIRED,
  SEGMENTATION_ATTRIBUTE_REQUIRED,
  SEGMENTATION_NAME_REQUIRED,
  SEGMENTATION_NAME_TOO_SHORT,
  SEGMENTATION_PRODUCT_REQUIRED,
  SEGMENTATION_SAVE_FAILURE,
  SEGMENTER_TYPES_FETCH_FAILURE,
} from '../../../../models/segmentation';
import { apiKey } from '../../../../src/api/queries';
import { testQueryClient } from '../../renderApp';
import { accountGraphql, card, choose, drawer, refused, renderSection } from './segmentationFixtures';
import type { FakeGraphql, User } from './segmentationFixtures';

/** The segmentation drawer: name, attribute by group, then mappings, buckets or products; create, edit and the server's refusals. */

const NEW = 'New segmentation';

async function openNew(user: User) {
  await user.click(await screen.findByRole('button', { name: NEW }));
  await screen.findByRole('dialog', { name: NEW });
  return drawer(NEW);
}

const submit = (user: User, scope: ReturnType<typeof within>, label = 'Create segmentation') => user.click(scope.getByRole('button', { name: label }));
const group = (scope: ReturnType<typeof within>, n: number) => within(scope.getByRole('group', { name: `Group ${n}` }));

describe('the segmentation drawer', () => {
  it(`opens on the right, ${DRAWER_WIDTH_MAX} wide, titled 'New segmentation', and Cancel closes it`, async () => {
    const { user, graphql } = renderSection();
    await openNew(user);
    const dialog = screen.getByRole('dialog', { name: NEW });
    expect(dialog.closest('.mantine-Drawer-root')?.getAttribute('style')).toContain(`--drawer-size: ${DRAWER_WIDTH_MAX}`);
    await user.click(drawer(NEW).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog', { name: NEW })).not.toBeInTheDocument());
    expect(graphql.callsOf('CreateSegmentation')).toHaveLength(0);
  });

  it(`requires a name of at least 3 characters and an attribute: '${SEGMENTATION_NAME_REQUIRED}', '${SEGMENTATION_NAME_TOO_SHORT}', '${SEGMENTATION_ATTRIBUTE_REQUIRED}'`, async () => {
    const { user, graphql } = renderSection();
    const form = await openNew(user);
    await submit(user, form);
    expect(await form.findByText(SEGMENTATION_NAME_REQUIRED)).toBeInTheDocument();
    expect(form.getByText(SEGMENTATION_ATTRIBUTE_REQUIRED)).toBeInTheDocument();

    await user.type(form.getByRole('textbox', { name: 'Name' }), ' ab ');
    await submit(user, form);
    expect(await form.findByText(SEGMENTATION_NAME_TOO_SHORT)).toBeInTheDocument();
    expect(graphql.callsOf('CreateSegmentation')).toHaveLength(0);
  });

  it('offers the attributes grouped by their group label', async () => {
    const { user } = renderSection();
    const form = await openNew(user);
    await user.click(form.getByRole('combobox', { name: 'Attribute' }));
    const customer = within(await screen.findByRole('group', { name: 'Customer attributes' }));
    expect(customer.getAllByRole('option').map((option) => option.textContent)).toEqual(['Plan', 'Employees']);
    const payment = within(screen.getByRole('group', { name: 'Payment attributes' }));
    expect(payment.getAllByRole('option').map((option) => option.textContent)).toEqual(['Product', 'Currency']);
  });

  it(`says '${SEGMENTER_TYPES_FETCH_FAILURE}' when the attributes cannot be read`, async () => {
    const graphql = accountGraphql();
    graphql.on('SegmenterTypes', () => refused(500, { detail: 'boom' }));
    const { user } = renderSection({ graphql });
    const form = await openNew(user);
    expect(await form.findByRole('alert')).toHaveTextContent(SEGMENTER_TYPES_FETCH_FAILURE);
  });
});

describe('a bucket segmentation in the drawer', () => {
  it('creates ranges: mins filled in, the empty name as from - to, the open bucket appended; the drawer closes and the list shows it', async () => {
    const queryClient = testQueryClient();
    queryClient.setQueryData(apiKey('/business_report/section_definitions'), { items: [] });
    const { user, graphql } = renderSection({ queryClient });
    const form = await openNew(user);
    await user.type(form.getByRole('textbox', { name: 'Name' }), 'Team size');
    await choose(user, form, 'Attribute', 'Employees');
    // Employees allows mappings and ranges: ranges are chosen.
    await user.click(form.getByRole('radio', { name: 'Ranges' }));
    expect(form.getByRole('textbox', { name: 'Bucket 1 min' })).toHaveValue('0');

    await submit(user, form);
    expect(await form.findByText(REQUIRED)).toBeInTheDocument();

    await user.type(form.getByRole('textbox', { name: 'Bucket 1 name' }), 'Solo');
    await user.type(form.getByRole('textbox', { name: 'Bucket 1 max' }), '1');
    await user.click(form.getByRole('button', { name: 'Add bucket' }));
    expect(form.getByRole('textbox', { name: 'Bucket 2 min' })).toHaveValue('2');
    await user.type(form.getByRole('textbox', { name: 'Bucket 2 max' }), '1');
    await submit(user, form);
    expect(await form.findByText('Max value can not be smaller than its min value')).toBeInTheDocument();
    await user.type(form.getByRole('textbox', { name: 'Bucket 2 max' }), '0');
    await submit(user, form);

    await waitFor(() => expect(screen.queryByRole('dialog', { name: NEW })).not.toBeInTheDocument());
    expect(graphql.callsOf('CreateSegmentation')[0]?.variables).toEqual({
      input: {
        name: 'Team size',
        type_name: 'customer_segment',
        segment_id: 'attr_employees',
        buckets: [
          { name: 'Solo', from: 0, to: 1 },
          { name: '2 - 10', from: 2, to: 10 },
          { name: '> 10', from: 11, to: null },
        ],
      },
    });
    const created = within(await screen.findByRole('listitem', { name: 'Team size' }));
    expect(created.getByText('Employees · Customer attributes')).toBeInTheDocument();
    expect(created.getByRole('table', { name: 'Buckets of Team size' })).toHaveTextContent('Solo0 - 1');
    // Add chart's segment lists (the section definitions) are read again.
    expect(queryClient.getQueryState(apiKey('/business_report/section_definitions'))?.isInvalidated).toBe(true);
  }, 40_000);
});

describe('a mapping segmentation in the drawer', () => {
  async function startMappings(user: User) {
    const form = await openNew(user);
    await user.type(form.getByRole('textbox', { name: 'Name' }), 'Paying or not');
    await choose(user, form, 'Attribute', 'Plan');
    return form;
  }

  it("requires each group's name and values ('Required'), offers a value to one group only, and creates the mappings", async () => {
    const { user, graphql } = renderSection();
    const form = await startMappings(user);
    expect(form.getByRole('radio', { name: 'Group values' })).toBeChecked();
    await submit(user, form);
    await waitFor(() => expect(group(form, 1).getAllByText(REQUIRED)).toHaveLength(2));

    await user.type(group(form, 1).getByRole('textbox', { name: 'Group name' }), 'Paid');
    // The values are searched as one types.
    await user.type(group(form, 1).getByRole('combobox', { name: 'Values' }), 'go');
    await waitFor(() => expect(graphql.callsOf('SegmenterValues').map((call) => call.variables)).toContainEqual({ type_name: 'customer_segment', segment_id: 'attr_plan', query: 'go' }));
    await waitFor(() => expect(screen.getAllByRole('option').map((option) => option.textContent)).toEqual(['gold']));
    await user.click(screen.getByRole('option', { name: 'gold' }));
    await user.keyboard('{Escape}');

    await user.click(form.getByRole('button', { name: 'Add group' }));
    await user.type(group(form, 2).getByRole('textbox', { name: 'Group name' }), 'Free');
    await user.click(group(form, 2).getByRole('combobox', { name: 'Values' }));
    expect(await screen.findByRole('option', { name: 'free' })).toBeInTheDocument();
    // gold is in the first group already.
    expect(screen.queryByRole('option', { name: 'gold' })).not.toBeInTheDocument();
    await user.click(screen.getByRole('option', { name: 'free' }));
    await user.keyboard('{Escape}');

    await submit(user, form);
    await waitFor(() => expect(screen.queryByRole('dialog', { name: NEW })).not.toBeInTheDocument());
    expect(graphql.callsOf('CreateSegmentation')[0]?.variables).toEqual({
      input: {
        name: 'Paying or not',
        type_name: 'customer_segment',
        segment_id: 'attr_plan',
        mappings: [
          { value: 'gold', name: 'Paid' },
          { value: 'free', name: 'Free' },
        ],
      },
    });
    expect(await screen.findByRole('listitem', { name: 'Paying or not' })).toBeInTheDocument();
  }, 40_000);

  it(`says '${POSSIBLE_VALUES_FETCH_FAILURE}' when the values cannot be read`, async () => {
    const graphql = accountGraphql();
    graphql.on('SegmenterValues', () => refused(500, { detail: 'boom' }));
    const { user } = renderSection({ graphql });
    const form = await startMappings(user);
    expect(await group(form, 1).findByRole('alert')).toHaveTextContent(POSSIBLE_VALUES_FETCH_FAILURE);
  });
});

describe('a product segmentation in the drawer', () => {
  it(`requires a product ('${SEGMENTATION_PRODUCT_REQUIRED}') picked from the product search, and creates it`, async () => {
    const { user, graphql, api } = renderSection();
    const form = await openNew(user);
    await user.type(form.getByRole('textbox', { name: 'Name' }), 'Pro only');
    await choose(user, form, 'Attribute', 'Product');
    // Products are the only configuration of the product attribute.
    expect(form.queryByRole('radio')).not.toBeInTheDocument();
    await submit(user, form);
    expect(await form.findByText(SEGMENTATION_PRODUCT_REQUIRED)).toBeInTheDocument();

    await user.type(form.getByRole('combobox', { name: 'Products' }), 'pro');
    await user.click(await screen.findByRole('option', { name: 'Pro plan' }));
    expect(api.requestsTo('GET /product/search').length).toBeGreaterThan(0);
    await user.keyboard('{Escape}');
    await submit(user, form);

    await waitFor(() => expect(screen.queryByRole('dialog', { name: NEW })).not.toBeInTheDocument());
    expect(graphql.callsOf('CreateSegmentation')[0]?.variables).toEqual({ input: { name: 'Pro only', type_name: 'subscription_segment', segment_id: 'product', products: ['pro'] } });
  });
});

describe('saving', () => {
  async function fillValid(user: User) {
    const form = await openNew(user);
    await user.type(form.getByRole('textbox', { name: 'Name' }), 'Pro only');
    await choose(user, form, 'Attribute', 'Product');
    await user.type(form.getByRole('combobox', { name: 'Products' }), 'pro');
    await user.click(await screen.findByRole('option', { name: 'Pro plan' }));
    await user.keyboard('{Escape}');
    return form;
  }

  it(`says '${SEGMENTATION_SAVE_FAILURE}' when the save fails, and keeps the drawer open with what was typed`, async () => {
    const graphql: FakeGraphql = accountGraphql();
    graphql.on('CreateSegmentation', () => refused(500, { detail: 'boom' }));
    const { user } = renderSection({ graphql });
    const form = await fillValid(user);
    await submit(user, form);
    expect(await form.findByRole('alert')).toHaveTextContent(SEGMENTATION_SAVE_FAILURE);
    expect(form.getByRole('textbox', { name: 'Name' })).toHaveValue('Pro only');
    expect(screen.getByRole('dialog', { name: NEW })).toBeInTheDocument();
  });

  it("shows the server's message of a refused save (422)", async () => {
    const graphql: FakeGraphql = accountGraphql();
    graphql.on('CreateSegmentation', () => refused(422, { pointer: '/name', detail: 'A segmentation with this name already exists' }));
    const { user } = renderSection({ graphql });
    const form = await fillValid(user);
    await submit(user, form);
    expect(await form.findByText('A segmentation with this name already exists')).toBeInTheDocument();
    expect(form.getByRole('alert')).toHaveTextContent(SEGMENTATION_SAVE_FAILURE);
  });
});

describe('editing a segmentation', () => {
  it("opens titled with its name and filled in, and saves it under its id", async () => {
    const { user, graphql } = renderSection();
    await screen.findByRole('listitem', { name: 'Plan groups' });
    await user.click(card('Plan groups').getByRole('button', { name: 'Edit Plan groups' }));
    const form = drawer('Plan groups');
    expect(form.getByRole('textbox', { name: 'Name' })).toHaveValue('Plan groups');
    expect(form.getByRole('combobox', { name: 'Attribute' })).toHaveValue('Plan');
    expect(group(form, 1).getByRole('textbox', { name: 'Group name' })).toHaveValue('Premium');
    expect(group(form, 1).getByText('gold')).toBeInTheDocument();
    expect(group(form, 1).getByText('platinum')).toBeInTheDocument();
    expect(group(form, 2).getByRole('textbox', { name: 'Group name' })).toHaveValue('Free');

    await user.clear(form.getByRole('textbox', { name: 'Name' }));
    await user.type(form.getByRole('textbox', { name: 'Name' }), 'Plan tiers');
    await submit(user, form, 'Save segmentation');

    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Plan groups' })).not.toBeInTheDocument());
    expect(graphql.callsOf('UpdateSegmentation')[0]?.variables).toEqual({
      id: 'seg_plan',
      input: {
        name: 'Plan tiers',
        type_name: 'customer_segment',
        segment_id: 'attr_plan',
        mappings: [
          { value: 'gold', name: 'Premium' },
          { value: 'platinum', name: 'Premium' },
          { value: 'free', name: 'Free' },
        ],
      },
    });
    expect(await screen.findByRole('listitem', { name: 'Plan tiers' })).toBeInTheDocument();
  });
});
