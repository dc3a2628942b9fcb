import { Skeleton, Stack } from '@mantine/core';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { useApi } from '../../api/ApiContext';
import type { LiveChannels } from '../../cable/liveChannels';
import { useLiveChannels } from '../../cable/LiveChannelsContext';
import { FailureAlert } from '../../components/FailureAlert';
import { PageHeader } from '../../components/PageHeader';
import { preloadApexChart } from '../charts/LazyApexChart';
import { createReportServices, type ReportServices, type ReportView } from './reportApi';
import { withDemoEdits } from './demoEdits';
import { ReportBody } from './ReportView';

export const REPORT_FETCH_FAILURE = 'Uh :( we failed to fetch report';

interface ReportPageLoaderProps {
  secret: string;
  /** 'demo': the public demo (`GET /demo`), read only, with the visitor's edits kept in the browser. */
  variant?: 'normal' | 'demo';
  /** The calls; by default the API client's and the app's live channels. */
  services?: ReportServices;
  channels?: LiveChannels;
  /** Today (tests pin it); by default the browser's clock. */
  now?: () => Date;
}

/** `/reports/{secret}`: loads the report (skeleton meanwhile, the spec's message when it cannot), then shows it. */
export function ReportPageLoader({ secret, variant = 'normal', services: given, channels, now = () => new Date() }: ReportPageLoaderProps) {
  const client = useApi();
  const live = useLiveChannels(channels);
  const services = useMemo(() => given ?? createReportServices(client, live), [given, client, live]);
  const [state, setState] = useState<{ status: 'loading' } | { status: 'failed' } | { status: 'ready'; report: ReportView }>({ status: 'loading' });

  const load = useCallback(async () => {
    try {
      const report = variant === 'demo' ? withDemoEdits(await services.fetchDemoReport(secret)) : await services.fetchReport(secret);
      setState({ status: 'ready', report });
    } catch {
      setState((current) => (current.status === 'ready' ? current : { status: 'failed' }));
    }
  }, [services, secret, variant]);

  useEffect(() => {
    setState({ status: 'loading' });
    void load();
  }, [load]);
  // The chart library downloads while the report does.
  useEffect(() => {
    preloadApexChart().catch(() => {
      // A failed download shows in the sections (their error boundary), not here.
    });
  }, []);

  if (state.status === 'loading') {
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
  if (state.status === 'failed') {
    return (
      <Stack gap="lg">
        <PageHeader title="Report" />
        <FailureAlert messages={[REPORT_FETCH_FAILURE]} />
      </Stack>
    );
  }
  const today = now();
  return <ReportBody key={state.report.id} report={state.report} services={services} reload={load} today={{ year: today.getFullYear(), month: today.getMonth() + 1 }} demo={variant === 'demo'} />;
}
