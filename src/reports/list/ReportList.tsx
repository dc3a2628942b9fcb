import { SimpleGrid, Stack, Text } from '@mantine/core';
import { useApi } from '../../api/ApiContext';
import { toastError, toastSuccess } from '../../notifications/toast';
import { REPORT_REMOVE_FAILURE_MESSAGE } from './messages';
import { ReportCard } from './ReportCard';
import { ReportListSkeleton } from './ReportListSkeleton';
import { ReportsEmptyState } from './ReportsEmptyState';
import { ReportsFailure } from './ReportsFailure';
import { ReportTagFilter } from './ReportTagFilter';
import { deleteReport } from './reportCalls';
import { filterByTags, tagsOf, useStoredTagFilter } from './tagFilter';
import type { ReportListItem } from './types';
import { useLatestReports } from './useLatestReports';

/**
 * The reports list (GET /business_reports/latest): skeletons while it loads, the failure state,
 * the first steps when the account has no report, else the tag filter (kept in localStorage)
 * and a card per report.
 */
export function ReportList() {
  const client = useApi();
  const { state, reload, forget } = useLatestReports();
  const [chosenTags, setChosenTags] = useStoredTagFilter();

  const handleDelete = async (report: ReportListItem): Promise<boolean> => {
    const deleted = await deleteReport(client, report.id);
    if (!deleted) {
      toastError(REPORT_REMOVE_FAILURE_MESSAGE);
      return false;
    }
    forget(report.id);
    toastSuccess();
    return true;
  };

  if (state.status === 'loading') return <ReportListSkeleton />;
  if (state.status === 'failed') return <ReportsFailure onRetry={reload} />;
  if (state.data.length === 0) return <ReportsEmptyState />;

  const reports = state.data;
  const visible = filterByTags(reports, chosenTags);
  return (
    <Stack gap="lg">
      <ReportTagFilter tags={tagsOf(reports)} selected={chosenTags} onChange={setChosenTags} />
      {visible.length < reports.length ? (
        <Text size="sm" c="dimmed" aria-live="polite">
          Showing {visible.length} of {reports.length} reports
        </Text>
      ) : null}
      <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} spacing="lg">
        {visible.map((report) => (
          <ReportCard key={report.id} report={report} onDelete={handleDelete} />
        ))}
      </SimpleGrid>
    </Stack>
  );
}
