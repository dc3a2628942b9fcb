import { Paper, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import { IconLink } from '@tabler/icons-react';
import { hasFullAccess } from '../../models/auth';
import { PageHeader } from '../components/PageHeader';
import { ReportList } from '../reports/list/ReportList';
import { useSession } from '../session/SessionContext';

/**
 * The reports list for full-access users (src/reports/list; the first steps while the account
 * has no report). A shared_report_only user sees only that reports open through their share
 * URL, and the list is never fetched for them.
 */
export function HomePage() {
  const { user } = useSession();
  if (!hasFullAccess(user)) return <SharedReportOnlyNotice />;
  return (
    <>
      <PageHeader
        title="Reports"
        description="Monthly business reports of your MRR, churn, retention, cohorts and costs, ready to share and present."
      />
      <ReportList />
    </>
  );
}

/** All a shared_report_only user sees at home: no reports list, no import, no navigation. */
function SharedReportOnlyNotice() {
  return (
    <>
      <PageHeader title="Reports" />
      <Paper withBorder p={{ base: 'xl', sm: 56 }}>
        <Stack align="center" ta="center" gap="md" maw={520} mx="auto">
          <ThemeIcon size={64} radius={32} variant="light" aria-hidden>
            <IconLink size={30} stroke={1.6} />
          </ThemeIcon>
          <Title order={2} fz="lg">
            Reports are accessible via their share URL
          </Title>
          <Text c="dimmed">
            Your access lets you read the reports shared with you. Open a report with the share link you received; ask
            the person who shared it to send it again if you cannot find it.
          </Text>
        </Stack>
      </Paper>
    </>
  );
}
