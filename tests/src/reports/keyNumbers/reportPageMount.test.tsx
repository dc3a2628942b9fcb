import { screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import type { LiveChannels } from '../../../../src/cable/liveChannels';
import type { ReportView } from '../../../../src/reports/page/reportApi';
import { ReportPageLoader } from '../../../../src/reports/page/ReportPageLoader';
import { mrrSection } from '../charts/sectionFixtures';
import { reportView } from '../page/reportFixtures';
import { defaultFakeApi, fullAccessUser, renderWithProviders } from '../../renderApp';

vi.mock('react-apexcharts/core', () => ({ default: () => <div data-testid="apex-chart" /> }));
vi.mock('apexcharts/line', () => ({}));
vi.mock('apexcharts/bar', () => ({}));
vi.mock('apexcharts/features/annotations', () => ({}));

const SECRET = 'S'.repeat(32);
const noChannels: LiveChannels = { subscribe: () => () => {}, close: () => {} };

const report: ReportView = reportView({
  secret: SECRET,
  account_id: fullAccessUser.account_id,
  summary: '',
  tags: [],
  owner: { name: 'Ada Lovelace' },
  period: { start_year: 2025, start_month: 1, end_year: 2025, end_month: 3 },
  created_at: '2025-03-01T09:00:00.000Z',
  refreshed_at: '2025-03-02T08:00:00.000Z',
  sections: [mrrSection({ id: 'sec_mrr', title: 'MRR' }) as ReportView['sections'][number]],
});

const follows = (first: Element, second: Element) => Boolean(first.compareDocumentPosition(second) & Node.DOCUMENT_POSITION_FOLLOWING);

describe('the report page with key numbers and comments', () => {
  it('shows the key numbers strip above the sections and the comments below them', async () => {
    const api = defaultFakeApi();
    api.on('GET /business_reports/by_secret', () => ({ status: 200, body: report }));
    api.on('GET /data_existence', () => ({ status: 200, body: { finance: true } }));
    api.on('GET /currencies', () => ({ status: 200, body: { items: [] } }));
    api.on('GET /business_reports/by_secret/key_numbers', () => ({
      status: 200,
      body: { items: [{ section_id: 'sec_mrr', definition_id: 'mrr', title: 'MRR', value: 212_345, kind: 'currency', unit: 'minor_units', currency: 'USD', time: '2025-03-01' }] },
    }));
    api.on('GET /comments', () => ({
      status: 200,
      body: { items: [{ id: 'cmt1', content: 'Good quarter.', user: { name: 'Ada Lovelace' }, added_at: '2025-03-02T09:00:00.000Z', pinned_at: null }] },
    }));
    renderWithProviders(<ReportPageLoader secret={SECRET} channels={noChannels} now={() => new Date(2025, 2, 2, 9)} />, { user: fullAccessUser, api });

    const strip = await screen.findByRole('region', { name: 'Key numbers' });
    expect(within(strip).getByRole('group', { name: 'MRR' })).toHaveTextContent('$2,123');
    const section = screen.getByRole('region', { name: 'MRR' });
    const comment = await screen.findByRole('article', { name: 'Comment by Ada Lovelace' });
    expect(comment).toHaveTextContent('Good quarter.');
    expect(follows(strip, section)).toBe(true);
    expect(follows(section, screen.getByRole('heading', { name: 'Comments' }))).toBe(true);
    expect(screen.getByRole('textbox', { name: 'New comment' })).toBeInTheDocument();
  });
});
