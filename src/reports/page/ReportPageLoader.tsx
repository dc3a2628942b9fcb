import { Button, Skeleton, Stack, Text } from '@mantine/core';
import { IconArrowLeft } from '@tabler/icons-react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useRef, type SetStateAction } from 'react';
import { Link, useLocation } from 'wouter';
import { SIGN_IN_PATH } from '../../../machines/auth/redirect';
import { selectUser } from '../../../machines/auth/selectors';
import { useCurrentPath } from '../../session/currentPath';
import { useAuthActor, useAuthSelector } from '../../session/SessionContext';
import { useApi } from '../../api/ApiContext';
import { errorStatus } from '../../api/queries';
import type { LiveChannels } from '../../cable/liveChannels';
import { useLiveChannels } from '../../cable/LiveChannelsContext';
import { FailureAlert } from '../../components/FailureAlert';
import { PageHeader } from '../../components/PageHeader';
import { preloadApexChart } from '../charts/LazyApexChart';
import { createReportServices, REPORT_FETCH_FAILURE, REPORT_NOT_FOUND, reportKey, type ReportServices, type ReportVariant, type ReportView, type SharedReportView } from './reportApi';
import { withDemoEdits } from './demoEdits';
import { ReportBody } from './ReportView';

interface ReportPageLoaderProps {
  secret: string;
  /**
   * 'demo': the public demo (`GET /demo`), read only, with the visitor's edits kept in the
   * browser; 'shared': a share link (`GET /business_reports/by_shared_secret`), read only.
   */
  variant?: ReportVariant;
  /** The currency the link asks for (`?currency=`): the numbers are converted for this visit, nothing is saved. */
  currency?: string | null;
  /** The calls; by default the API client's and the app's live channels. */
  services?: ReportServices;
  channels?: LiveChannels;
  /** Today (tests pin it); by default the browser's clock. */
  now?: () => Date;
}

/**
 * `/reports/{secret}`: loads the report (skeleton meanwhile; 'Report not found' when the server
 * has none by that secret, the spec's message when it cannot be read), then shows it. The report
 * is the cached answer of its query (`reportKey`); once shown, the page's machine
 * (machines/reportPage) holds it, takes the page's edits and the live channel's updates and
 * writes it back to the cache (`setReport`); `reload` reads it again.
 */
export function ReportPageLoader({ secret, variant = 'normal', currency = null, services: given, channels, now = () => new Date() }: ReportPageLoaderProps) {
  const client = useApi();
  const live = useLiveChannels(channels);
  const services = useMemo(() => given ?? createReportServices(client, live), [given, client, live]);
  const queryClient = useQueryClient();
  const key = useMemo(() => reportKey(secret, variant, currency), [secret, variant, currency]);

  const query = useQuery<ReportView | SharedReportView>({
    queryKey: key,
    queryFn: async ({ signal }) => {
      if (variant === 'demo') return withDemoEdits(await services.fetchDemoReport(secret, signal));
      if (variant === 'shared') return services.fetchSharedReport(secret, currency, signal);
      return services.fetchReport(secret, signal, currency);
    },
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
        shared={variant === 'shared'}
        sharedFilter={variant === 'shared' ? ((query.data as SharedReportView).shared_filter ?? null) : null}
        currencyOverride={variant === 'normal' ? currency : null}
      />
    );
  }
  if (query.isError && !query.isFetching) {
    const status = errorStatus(query.error);
    if (status === 404) return <ReportNotFound shared={variant === 'shared'} />;
    // Signed out, on an account that requires signing in: sign in, then back here.
    if (status === 401 && variant === 'normal') return <SignInToRead />;
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

/** No report by this secret (404): it was deleted, the link was revoked, or it is mistyped. */
function ReportNotFound({ shared }: { shared: boolean }) {
  const signedIn = useAuthSelector((snapshot) => selectUser(snapshot) !== null);
  return (
    <Stack gap="lg" align="flex-start">
      <PageHeader title={REPORT_NOT_FOUND} />
      <Text c="dimmed">
        {shared ? 'This link was revoked, or its report was deleted. Ask whoever shared it for a new link.' : 'This report does not exist or was deleted. Check the link, or head back to your reports.'}
      </Text>
      {signedIn && (
        <Button component={Link} href="/" variant="default" leftSection={<IconArrowLeft size={16} />}>
          Back to reports
        </Button>
      )}
    </Stack>
  );
}

/**
 * A signed-out visitor on a report whose account requires signing in (anonymous access off):
 * the sign-in page, which comes back to this report (path and query) once signed in.
 */
function SignInToRead() {
  const actor = useAuthActor();
  const anonymous = useAuthSelector((snapshot) => selectUser(snapshot) === null);
  const path = useCurrentPath();
  const [, navigate] = useLocation();
  // Once: the path it remembers is the report's, not where it went.
  const sent = useRef(false);
  useEffect(() => {
    // A signed-in user's 401 is the session's to handle (it signs out and remembers the path).
    if (!anonymous || sent.current) return;
    sent.current = true;
    actor.send({ type: 'auth.signInRequested', path });
    navigate(SIGN_IN_PATH, { replace: true });
  }, [actor, anonymous, path, navigate]);
  return <Skeleton height={36} width="40%" aria-label="Going to sign in" />;
}
