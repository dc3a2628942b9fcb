import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { ATTRIBUTES_FETCH_FAILURE } from '../../../models/attributes';
import { fullAccessUser, renderApp } from '../renderApp';
import { channelAttribute, planAttribute, settingsServer, attribute } from '../settings/settingsFixtures';

/** /import-segments: choosing the attribute whose values are imported, the address following the choice. */

const industry = attribute('att_industry', 'Industry', 'customer');

describe('the attribute values import page: choosing the attribute', () => {
  it('offers the customer attributes when the address names none, and puts the choice in the address', async () => {
    const user = userEvent.setup({ delay: null });
    const { location } = renderApp({ path: '/import-segments', user: fullAccessUser, api: settingsServer({ attributes: [planAttribute, industry, channelAttribute] }).api });

    expect(await screen.findByRole('heading', { level: 2, name: 'Choose an attribute' })).toBeInTheDocument();
    await user.click(await screen.findByRole('combobox', { name: 'Attribute' }));
    expect((await screen.findAllByRole('option')).map((option) => option.textContent)).toEqual(['Industry', 'Plan']);
    await user.click(screen.getByRole('option', { name: 'Industry' }));

    await waitFor(() => expect(location.history?.at(-1)).toBe('/import-segments?segment=seg_att_industry'));
    expect(await screen.findByText('Choose a .csv file')).toBeInTheDocument();
    expect(screen.getByRole('combobox', { name: 'Attribute' })).toHaveValue('Industry');
  });

  it('names the attribute of ?segment= and changes it', async () => {
    const user = userEvent.setup({ delay: null });
    const { location } = renderApp({
      path: `/import-segments?segment=${planAttribute.segment_id}`,
      user: fullAccessUser,
      api: settingsServer({ attributes: [planAttribute, industry] }).api,
    });

    const picker = await screen.findByRole('combobox', { name: 'Attribute' });
    await waitFor(() => expect(picker).toHaveValue('Plan'));
    await user.click(picker);
    await user.click(await screen.findByRole('option', { name: 'Industry' }));
    await waitFor(() => expect(location.history?.at(-1)).toBe('/import-segments?segment=seg_att_industry'));
    expect(screen.getByRole('combobox', { name: 'Attribute' })).toHaveValue('Industry');
  });

  it('sends to Settings when the account has no customer attribute', async () => {
    renderApp({ path: '/import-segments', user: fullAccessUser, api: settingsServer({ attributes: [channelAttribute] }).api });
    expect(await screen.findByRole('heading', { level: 2, name: 'No customer attributes yet' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Go to Settings' })).toHaveAttribute('href', '/settings');
  });

  it(`says '${ATTRIBUTES_FETCH_FAILURE}' at the picker when the attributes cannot be fetched`, async () => {
    renderApp({ path: '/import-segments', user: fullAccessUser, api: settingsServer({ overrides: { 'GET /object_attributes': () => ({ status: 500 }) } }).api });
    expect(await screen.findByRole('combobox', { name: 'Attribute' })).toHaveAccessibleDescription(ATTRIBUTES_FETCH_FAILURE);
  });
});
