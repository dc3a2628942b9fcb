import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import type { FilterItem, ReportViewFilter } from '../../../../models/reportFilter';
import { ActiveFilter } from '../../../../src/reports/filters/ActiveFilter';
import { fullAccessUser, renderWithProviders } from '../../renderApp';

const plan: FilterItem = { type: 'segment', id: 'customer_segment:seg_plan', name: 'Plan', value: 'Pro', negated: false };
const view: ReportViewFilter = {
  operator: 'and',
  arguments: [
    { type: 'deal_owner', owner_name: 'Anna Smith', negated: false },
    { type: 'product', product_key: 'basic', name: 'Basic', negated: true },
  ],
};

function renderActive(props: Partial<Parameters<typeof ActiveFilter>[0]> = {}) {
  const onClear = vi.fn();
  const result = renderWithProviders(<ActiveFilter item={null} view={null} applying={false} onClear={onClear} {...props} />, { user: fullAccessUser });
  return { ...result, onClear };
}

describe('ActiveFilter', () => {
  it('shows nothing without a filter or a view', () => {
    renderActive();
    expect(screen.queryByRole('status', { name: 'Active filter' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Clear filter' })).not.toBeInTheDocument();
  });

  it("shows the picker's filter with 'Clear filter'", async () => {
    const { onClear } = renderActive({ item: plan });

    expect(screen.getByText('Plan is Pro')).toBeInTheDocument();
    await userEvent.setup({ delay: null }).click(screen.getByRole('button', { name: 'Clear filter' }));
    expect(onClear).toHaveBeenCalledTimes(1);
  });

  it('says "is not" for a negated filter', () => {
    renderActive({ item: { ...plan, negated: true } });
    expect(screen.getByText('Plan is not Pro')).toBeInTheDocument();
  });

  it("shows the report's view, its conditions joined by 'and', without 'Clear filter'", () => {
    renderActive({ view });
    expect(screen.getByText('View: Deal owner is Anna Smith and Product is not Basic')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Clear filter' })).not.toBeInTheDocument();
  });

  it("shows an 'or' view beside the picker's filter", () => {
    renderActive({ item: plan, view: { ...view, operator: 'or' } });
    expect(screen.getByText('View: Deal owner is Anna Smith or Product is not Basic')).toBeInTheDocument();
    expect(screen.getByText('Plan is Pro')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Clear filter' })).toBeInTheDocument();
  });

  it('shows a loader while the filter applies', () => {
    renderActive({ item: plan, applying: true });
    expect(screen.getByLabelText('Applying filter')).toBeInTheDocument();
  });
});
