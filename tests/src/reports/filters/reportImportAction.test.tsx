import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { ReportImportAction } from '../../../../src/reports/filters/ReportImportAction';
import { ReportCallouts } from '../../../../src/reports/page/ReportCallouts';
import { fullAccessUser, renderWithProviders } from '../../renderApp';

describe('ReportImportAction', () => {
  it("opens the CSV import dialog of Settings from 'Import data'", async () => {
    renderWithProviders(<ReportImportAction />, { user: fullAccessUser });
    const user = userEvent.setup({ delay: null });

    await user.click(screen.getByRole('button', { name: 'Import data' }));

    const dialog = within(await screen.findByRole('dialog', { name: 'Import CSV' }));
    expect(dialog.getByLabelText('CSV file')).toBeInTheDocument();
    await user.click(dialog.getByRole('button', { name: 'Cancel' }));
    expect(screen.getByRole('button', { name: 'Import data' })).toBeInTheDocument();
  });

  it("offers the same dialog from the report's prompt to import", async () => {
    renderWithProviders(
      <ReportCallouts noFinanceData recalculating={false} stale={false} canRefresh={false} refreshing={false} onRefresh={() => {}} />,
      { user: fullAccessUser },
    );

    expect(screen.getByRole('link', { name: 'Settings' })).toHaveAttribute('href', '/settings');
    await userEvent.setup({ delay: null }).click(screen.getByRole('button', { name: 'Import CSV' }));

    expect(within(await screen.findByRole('dialog', { name: 'Import CSV' })).getByLabelText('CSV file')).toBeInTheDocument();
  });
});
