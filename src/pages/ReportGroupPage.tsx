import { Skeleton, Stack } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useEffect } from 'react';
import { useLocation, useParams, useSearch } from 'wouter';
import { useApi } from '../api/ApiContext';
import { ApiCallError, apiKey } from '../api/queries';
import { FailureAlert } from '../components/FailureAlert';
import { PageHeader } from '../components/PageHeader';
import { currencyOfSearch, currencySearch } from '../reports/page/currencyQuery';
import { REPORT_FETCH_FAILURE } from '../reports/page/reportApi';

/**
 * /reports/group/:secret: a group link. It asks which report is the group's newest
 * (`GET /business_report_groups/by_secret`) and goes there, keeping the link's currency
 * query; the spec's message when it cannot (a revoked link, a deleted group, no answer).
 */
export function ReportGroupPage() {
  const { secret } = useParams<{ secret: string }>();
  const currency = currencyOfSearch(useSearch());
  const client = useApi();
  const [, navigate] = useLocation();
  const query = useQuery({
    queryKey: apiKey('/business_report_groups/by_secret', { secret, ...(currency ? { currency } : {}) }),
    // No abort signal: the app shell may remount the page while the signed-in user is read
    // again at load, and a lookup cancelled then was left pending with no retry.
    queryFn: async () => {
      const { data, response } = await client.GET('/business_report_groups/by_secret', { params: { query: { secret, ...(currency ? { currency } : {}) } } });
      if (!data) throw new ApiCallError(REPORT_FETCH_FAILURE, response.status);
      return data;
    },
    gcTime: 0,
    retry: false,
  });
  const latest = query.data?.latest_report.secret;

  useEffect(() => {
    if (latest) navigate(`/reports/${latest}${currencySearch(currency)}`, { replace: true });
  }, [latest, currency, navigate]);

  if (query.isError) {
    return (
      <Stack gap="lg">
        <PageHeader title="Report" />
        <FailureAlert messages={[REPORT_FETCH_FAILURE]} />
      </Stack>
    );
  }
  return (
    <Stack gap="lg" aria-busy="true" aria-label="Opening the newest report">
      <Skeleton height={36} width="40%" />
      <Skeleton height={56} />
      <Skeleton height={400} />
    </Stack>
  );
}
