import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import {
  BUCKET_MAX_BELOW_MIN,
  BUCKET_MAX_NOT_NUMBER,
  REQUIRED,
  SEGMENTATION_SAVE_FAILURE,
  SEGMENTERS_FETCH_FAILURE,
} from '../../../../models/segmentation';
import type { Bucket } from '../../../../models/segmentation';
import { segmentationKeys } from '../../../../src/api/graphql';
import { apiKey } from '../../../../src/api/queries';
import { invalidateSegmenterQueries } from '../../../../src/settings/segmentation/segmentationQueries';
import { testQueryClient } from '../../renderApp';
import { accountGraphql, card, COMPANY_SIZE, FAKE_TOKEN, ok, refused, renderSection } from './segmentationFixtures';
import type { User } from './segmentationFixtures';

/** Settings → Segmentation: the list of the account's segmentations, its in-place bucket editor, and delete. */

const bucketRows = (scope: ReturnType<typeof within>) => scope.getAllByTestId('bucket-row').map((row: HTMLElement) => within(row));
const maxInput = (scope: ReturnType<typeof within>, n: number) => scope.getByRole('textbox', { name: `Bucket ${n} max` });
const minInput = (scope: ReturnType<typeof within>, n: number) => scope.getByRole('textbox', { name: `Bucket ${n} min` });

async function openBucketEditor(user: User) {
  await screen.findByRole('listitem', { name: 'Company size' });
  await user.click(card('Company size').getByRole('button', { name: 'Edit buckets' }));
  return card('Company size');
}

async function retype(user: User, input: HTMLElement, text: string) {
  await user.clear(input);
  if (text) await user.type(input, text);
}

describe('the segmentation list', () => {
  it('shows skeletons while loading, then each segmentation with its attribute and configuration', async () => {
    const { graphql } = renderSection({ graphql: (() => {
      const fake = accountGraphql();
      fake.hold('SegmentationDefinitions');
      return fake;
    })() });
    expect(await screen.findByLabelText('Loading segmentations')).toBeInTheDocument();
    await waitFor(() => expect(graphql.callsOf('SegmentationDefinitions')).toHaveLength(1));
    // The service is called with the signed-in user's token.
    expect(graphql.callsOf('SegmentationDefinitions')[0]?.headers.get('Authorization')).toBe(`Bearer ${FAKE_TOKEN}`);
    graphql.release('SegmentationDefinitions', ok({ segmentation_definitions: [COMPANY_SIZE] }));

    const size = await screen.findByRole('listitem', { name: 'Company size' });
    expect(screen.queryByLabelText('Loading segmentations')).not.toBeInTheDocument();
    expect(within(size).getByRole('heading', { name: 'Company size' })).toBeInTheDocument();
    expect(await within(size).findByText('Employees · Customer attributes')).toBeInTheDocument();
    const table = within(within(size).getByRole('table', { name: 'Buckets of Company size' }));
    const rows = table.getAllByRole('row').slice(1).map((row) => row.textContent);
    expect(rows).toEqual(['Small0 - 49', '50 - 19950 - 199', '> 199> 199']);
  });

  it('shows mapping groups with their values and the products of a product segmentation', async () => {
    renderSection();
    const plan = await screen.findByRole('listitem', { name: 'Plan groups' });
    expect(await within(plan).findByText('Plan · Customer attributes')).toBeInTheDocument();
    const groups = within(within(plan).getByRole('list', { name: 'Groups of Plan groups' }));
    expect(within(groups.getByRole('listitem', { name: 'Premium' })).getByText('gold')).toBeInTheDocument();
    expect(within(groups.getByRole('listitem', { name: 'Premium' })).getByText('platinum')).toBeInTheDocument();
    expect(within(groups.getByRole('listitem', { name: 'Free' })).getByText('free')).toBeInTheDocument();
    // Only bucket segmentations are edited in the list.
    expect(within(plan).queryByRole('button', { name: 'Edit buckets' })).not.toBeInTheDocument();

    const products = card('Flagship products');
    expect(products.getByText('Product · Payment attributes')).toBeInTheDocument();
    expect(within(products.getByRole('list', { name: 'Products of Flagship products' })).getAllByRole('listitem').map((item) => item.textContent)).toEqual(['pro', 'team']);
    // Sorted by name, as the service answers.
    expect(within(screen.getByRole('list', { name: 'Segmentations' })).getAllByRole('heading').map((heading) => heading.textContent)).toEqual(['Company size', 'Flagship products', 'Plan groups']);
  });

  it(`says '${SEGMENTERS_FETCH_FAILURE}' when the list cannot be read, and reads it again on Try again`, async () => {
    const graphql = accountGraphql();
    graphql.on('SegmentationDefinitions', () => refused(500, { detail: 'boom' }));
    const { user } = renderSection({ graphql });
    expect(await screen.findByRole('alert')).toHaveTextContent(SEGMENTERS_FETCH_FAILURE);

    graphql.on('SegmentationDefinitions', () => ok({ segmentation_definitions: [COMPANY_SIZE] }));
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('listitem', { name: 'Company size' })).toBeInTheDocument();
    expect(screen.queryByText(SEGMENTERS_FETCH_FAILURE)).not.toBeInTheDocument();
  });

  it("shows an empty state whose 'New segmentation' opens the drawer", async () => {
    const { user } = renderSection({ graphql: accountGraphql([]) });
    expect(await screen.findByText('No segmentations yet')).toBeInTheDocument();
    const buttons = screen.getAllByRole('button', { name: 'New segmentation' });
    expect(buttons).toHaveLength(1);
    await user.click(buttons[0]!);
    expect(await screen.findByRole('dialog', { name: 'New segmentation' })).toBeInTheDocument();
  });
});

describe('the bucket editor in the list', () => {
  it('shows the saved buckets as rows whose mins follow the previous max, without the final open bucket', async () => {
    const { user } = renderSection();
    const size = await openBucketEditor(user);
    expect(bucketRows(size)).toHaveLength(2);
    expect(size.getByRole('textbox', { name: 'Bucket 1 name' })).toHaveValue('Small');
    expect(minInput(size, 1)).toHaveValue('0');
    expect(maxInput(size, 1)).toHaveValue('49');
    expect(minInput(size, 2)).toHaveValue('50');
    expect(maxInput(size, 2)).toHaveValue('199');
    expect(size.getByText("Values above 199 go to one more bucket, '> 199', added on save.")).toBeInTheDocument();
  });

  it('fills in the next min as the max plus one while the max is typed', async () => {
    const { user } = renderSection();
    const size = await openBucketEditor(user);
    await retype(user, maxInput(size, 1), '99');
    expect(minInput(size, 2)).toHaveValue('100');
    await user.click(size.getByRole('button', { name: 'Add bucket' }));
    expect(minInput(size, 3)).toHaveValue('200');
    await user.type(maxInput(size, 3), '499');
    // An empty name becomes 'from - to'.
    expect(size.getByRole('textbox', { name: 'Bucket 3 name' })).toHaveAttribute('placeholder', '200 - 499');
    expect(size.getByText("Values above 499 go to one more bucket, '> 499', added on save.")).toBeInTheDocument();
  });

  it('lets the first bucket be removed only when it is the only one', async () => {
    const { user } = renderSection();
    const size = await openBucketEditor(user);
    expect(size.getByRole('button', { name: 'Remove bucket 1' })).toBeDisabled();
    expect(size.getByRole('button', { name: 'Remove bucket 2' })).toBeEnabled();
    await user.click(size.getByRole('button', { name: 'Remove bucket 2' }));
    expect(bucketRows(size)).toHaveLength(1);
    expect(size.getByRole('button', { name: 'Remove bucket 1' })).toBeEnabled();
  });

  it.each([
    ['', REQUIRED],
    ['12a', BUCKET_MAX_NOT_NUMBER],
    ['1.5', BUCKET_MAX_NOT_NUMBER],
    ['20', BUCKET_MAX_BELOW_MIN],
  ])("refuses the max '%s' of the second bucket (min 50) with '%s' and saves nothing", async (max, message) => {
    const { user, graphql } = renderSection();
    const size = await openBucketEditor(user);
    await retype(user, maxInput(size, 2), max);
    await user.click(size.getByRole('button', { name: 'Save buckets' }));
    expect(await size.findByText(message)).toBeInTheDocument();
    expect(maxInput(size, 2)).toHaveAttribute('aria-invalid', 'true');
    expect(graphql.callsOf('UpdateSegmentation')).toHaveLength(0);
    // Typing in the field clears its message.
    await user.type(maxInput(size, 2), '0');
    expect(size.queryByText(message)).not.toBeInTheDocument();
  });

  it('saves the edited buckets, names the unnamed ones and appends the open bucket, then lists them', async () => {
    const { user, graphql } = renderSection();
    const size = await openBucketEditor(user);
    await retype(user, size.getByRole('textbox', { name: 'Bucket 2 name' }), 'Medium');
    await user.click(size.getByRole('button', { name: 'Add bucket' }));
    await user.type(maxInput(size, 3), '999');
    await user.click(size.getByRole('button', { name: 'Save buckets' }));

    await waitFor(() => expect(graphql.callsOf('UpdateSegmentation')).toHaveLength(1));
    const expected: Bucket[] = [
      { name: 'Small', from: 0, to: 49 },
      { name: 'Medium', from: 50, to: 199 },
      { name: '200 - 999', from: 200, to: 999 },
      { name: '> 999', from: 1000, to: null },
    ];
    expect(graphql.callsOf('UpdateSegmentation')[0]?.variables).toEqual({
      id: COMPANY_SIZE.id,
      input: { name: 'Company size', type_name: 'customer_segment', segment_id: COMPANY_SIZE.segment_id, buckets: expected },
    });
    // The editor closes and the list is read again.
    await waitFor(() => expect(card('Company size').queryByRole('button', { name: 'Save buckets' })).not.toBeInTheDocument());
    const table = within(await card('Company size').findByRole('table', { name: 'Buckets of Company size' }));
    await waitFor(() => expect(table.getAllByRole('row')).toHaveLength(5));
    expect(table.getAllByRole('row')[3]).toHaveTextContent('200 - 999200 - 999');
    expect(graphql.callsOf('SegmentationDefinitions')).toHaveLength(2);
  });

  it("shows the server's refusal (422) under 'Could not add segmentation' and keeps what was typed", async () => {
    const graphql = accountGraphql();
    graphql.on('UpdateSegmentation', () => refused(422, { pointer: '/buckets/1/to', detail: BUCKET_MAX_BELOW_MIN }));
    const { user } = renderSection({ graphql });
    const size = await openBucketEditor(user);
    await user.click(size.getByRole('button', { name: 'Save buckets' }));
    expect(await size.findByRole('alert')).toHaveTextContent(SEGMENTATION_SAVE_FAILURE);
    expect(size.getByText(BUCKET_MAX_BELOW_MIN)).toBeInTheDocument();
    // What was typed stays.
    expect(maxInput(size, 2)).toHaveValue('199');
  });

  it("says 'Could not add segmentation' when the save fails, and Cancel leaves the saved buckets", async () => {
    const graphql = accountGraphql();
    graphql.on('UpdateSegmentation', () => refused(500, { detail: 'boom' }));
    const { user } = renderSection({ graphql });
    const size = await openBucketEditor(user);
    await retype(user, maxInput(size, 1), '10');
    await user.click(size.getByRole('button', { name: 'Save buckets' }));
    expect(await size.findByRole('alert')).toHaveTextContent(SEGMENTATION_SAVE_FAILURE);
    await user.click(size.getByRole('button', { name: 'Cancel' }));
    expect(size.getByRole('table', { name: 'Buckets of Company size' })).toHaveTextContent('0 - 49');
  });
});

describe('deleting a segmentation', () => {
  it('asks first, then deletes it and reads the list again', async () => {
    const { user, graphql } = renderSection();
    await screen.findByRole('listitem', { name: 'Plan groups' });
    await user.click(card('Plan groups').getByRole('button', { name: 'Delete Plan groups' }));
    const confirm = within(await screen.findByRole('dialog', { name: 'Delete segmentation' }));
    expect(confirm.getByText(/Delete “Plan groups”\?/)).toBeInTheDocument();
    expect(graphql.callsOf('DeleteSegmentation')).toHaveLength(0);
    await user.click(confirm.getByRole('button', { name: 'Delete segmentation' }));

    await waitFor(() => expect(screen.queryByRole('listitem', { name: 'Plan groups' })).not.toBeInTheDocument());
    expect(graphql.callsOf('DeleteSegmentation')[0]?.variables).toEqual({ id: 'seg_plan' });
    expect(screen.getByRole('listitem', { name: 'Company size' })).toBeInTheDocument();
  });

  it('keeps it when the confirmation is cancelled', async () => {
    const { user, graphql } = renderSection();
    await screen.findByRole('listitem', { name: 'Plan groups' });
    await user.click(card('Plan groups').getByRole('button', { name: 'Delete Plan groups' }));
    await user.click(within(await screen.findByRole('dialog', { name: 'Delete segmentation' })).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Delete segmentation' })).not.toBeInTheDocument());
    expect(graphql.callsOf('DeleteSegmentation')).toHaveLength(0);
    expect(screen.getByRole('listitem', { name: 'Plan groups' })).toBeInTheDocument();
  });

  it("shows the server's detail when it refuses (422), and keeps the segmentation", async () => {
    const detail = "Segmentation is pinned by a share link of 'Business overview'. Revoke the link first.";
    const graphql = accountGraphql();
    graphql.on('DeleteSegmentation', () => refused(422, { detail }, { detail: 'A second problem' }));
    const { user } = renderSection({ graphql });
    await screen.findByRole('listitem', { name: 'Plan groups' });
    await user.click(card('Plan groups').getByRole('button', { name: 'Delete Plan groups' }));
    await user.click(within(await screen.findByRole('dialog', { name: 'Delete segmentation' })).getByRole('button', { name: 'Delete segmentation' }));
    expect(await screen.findByText(detail)).toBeInTheDocument();
    expect(screen.queryByText('A second problem')).not.toBeInTheDocument();
    expect(screen.getByRole('listitem', { name: 'Plan groups' })).toBeInTheDocument();
  });
});

describe('invalidateSegmenterQueries', () => {
  it('invalidates every cached list of segmenters and nothing else', async () => {
    const queryClient = testQueryClient();
    const lists = [
      segmentationKeys.definitions,
      segmentationKeys.types,
      segmentationKeys.values('customer_segment', 'attr_plan', 'go'),
      apiKey('/business_report/section_definitions'),
      apiKey('/business_report_segment_values/by_secret', { secret: 's1', query: '', limit: 100 }),
      apiKey('/business_reports/{id}/share_secrets', { id: 'rep1' }),
    ];
    const unrelated = [apiKey('/users'), apiKey('/business_reports/{id}/group_secrets', { id: 'rep1' })];
    for (const key of [...lists, ...unrelated]) queryClient.setQueryData(key, { items: [] });

    await invalidateSegmenterQueries(queryClient);

    for (const key of lists) expect(queryClient.getQueryState(key)?.isInvalidated, JSON.stringify(key)).toBe(true);
    for (const key of unrelated) expect(queryClient.getQueryState(key)?.isInvalidated, JSON.stringify(key)).toBe(false);
  });
});
