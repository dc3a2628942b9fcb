import { Button, Skeleton, Stack, Text } from '@mantine/core';
import { IconArrowLeft } from '@tabler/icons-react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, type SetStateAction } from 'react';
import { Link } from 'wouter';
import { useApi } from '../../api/ApiContext';
import { errorStatus } from '../../api/queries';
import type { LiveChannels } from '../../cable/liveChannels';
import { useLiveChannels } from '../../cable/LiveChannelsContext';
import { FailureAlert } from '../../components/FailureAlert';
import { PageHeader } from '../../components/PageHeader';
import { preloadApexChart } from '../charts/LazyApexChart';
import { createReportServices, REPORT_FETCH_FAILURE, REPORT_NOT_FOUND, reportKey, type ReportServices, type ReportView } from './reportApi';
import { withDemoEdits } from './demoEdits';
import { ReportBody } from './ReportView';

interface ReportPageLoaderProps {
  secret: string;
  /** 'demo': the public demo (`GET /demo`), read only, with the visitor's edits kept in the browser. */
  variant?: 'normal' | 'demo';
  /** The calls; by default the API client's and the app's live channels. */
  services?: ReportServices;
  channels?: LiveChannels;
  /** Today (tests pin it); by default the browser's clock. */
  now?: () => Date;
  /** A shared report (read by its share link): no editing and never a filter. */
  shared?: boolean;
}

/**
 * `/reports/{secret}`: loads the report (skeleton meanwhile; 'Report not found' when the server
 * has none by that secret, the spec's message when it cannot be read), then shows it. The report
 * is the cached answer of its query (`reportKey`); once shown, the page's machine
 * (machines/reportPage) holds it, takes the page's edits and the live channel's updates and
 * writes it back to the cache (`setReport`); `reload` reads it again.
 */
export function ReportPageLoader({ secret, variant = 'normal', services: given, channels, now = () => new Date(), shared = false }: ReportPageLoaderProps) {
  const client = useApi();
  const live = useLiveChannels(channels);
  const services = useMemo(() => given ?? createReportServices(client, live), [given, client, live]);
  const queryClient = useQueryClient();
  const key = useMemo(() => reportKey(secret, variant), [secret, variant]);

  const query = useQuery({
    queryKey: key,
    queryFn: async ({ signal }) => (variant === 'demo' ? withDemoEdits(await services.fetchDemoReport(secret, signal)) : services.fetchReport(secret, signal)),
    // The page's machines start from the report they are given: each visit reads it afresh
    // (skeleton first), and only the page reads it again while it is open.
    gcTime: 0,
    refetchOnMount: 'always',
  });

  const { refetch } = query;
  /** Reads the report again; the fresh report, or undefined when it could not be read (the page keeps what it shows). */
  const reload = useCallback(async (): Promise<ReportView | undefined> => {
    const result = await refetch();
    return result.isSuccess ? result.data : undefined;
  }, [refetch]);
  const setReport = useCallback(
    (change: SetStateAction<ReportView>) =>
      queryClient.setQueryData<ReportView>(key, (current) => (current === undefined ? current : typeof change === 'function' ? change(current) : change)),
    [queryClient, key],
  );

  // The chart library downloads while the report does.
  useEffect(() => {
    preloadApexChart().catch(() => {
      // A failed download shows in the sections (their error boundary), not here.
    });
  }, []);

  if (query.data) {
    const today = now();
    return (
      <ReportBody
        key={query.data.id}
        report={query.data}
        setReport={setReport}
        services={services}
        reload={reload}
        today={{ year: today.getFullYear(), month: today.getMonth() + 1 }}
        demo={variant === 'demo'}
        shared={shared}
      />
    );
  }
  if (query.isError && !query.isFetching) {
    if (errorStatus(query.error) === 404) return <ReportNotFound />;
    return (
      <Stack gap="lg">
        <PageHeader title="Report" />
        <FailureAlert messages={[REPORT_FETCH_FAILURE]} />
      </Stack>
    );
  }
  return (
    <Stack gap="lg" aria-busy="true" aria-label="Loading report">
      <Skeleton height={36} width="40%" />
      <Skeleton height={18} width="60%" />
      <Skeleton height={56} />
      <Skeleton height={400} />
      <Skeleton height={400} />
    </Stack>
  );
}

/** No report by this secret (404): it was deleted, or the link is mistyped. */
function ReportNotFound() {
  return (
    <Stack gap="lg" align="flex-start">
      <PageHeader title={REPORT_NOT_FOUND} />
      <Text c="dimmed">This report does not exist or was deleted. Check the link, or head back to your reports.</Text>
      <Button component={Link} href="/" variant="default" leftSection={<IconArrowLeft size={16} />}>
        Back to reports
      </Button>
    </Stack>
  );
}
