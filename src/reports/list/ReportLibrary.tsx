import { Card, SimpleGrid, Skeleton, Stack } from '@mantine/core';
import { IconFile, IconTemplate } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { useLocation } from 'wouter';
import { useApi } from '../../api/ApiContext';
import { toastError } from '../../notifications/toast';
import { BLANK_REPORT_NAME_SUFFIX, defaultReportTitle } from './defaultReportTitle';
import { REPORT_ADD_FAILURE_MESSAGE, TEMPLATES_FETCH_FAILURE_MESSAGE } from './messages';
import { createReport } from './reportCalls';
import { TemplateCard } from './TemplateCard';
import { latestReportsKey } from './useLatestReports';
import { useReportTemplates } from './useReportTemplates';
import { RetryAlert } from '../../components/RetryAlert';

/** The key of the blank report among the choices (templates have the server's ids). */
const BLANK_REPORT = 'blank';

/**
 * The report library: a blank report and the server's templates (GET /business_report/templates).
 * Choosing one creates the report (POST /business_reports, titled by the date and the template's
 * suffix) and opens it at /reports/{secret}; a failure toasts and leaves the page as it was.
 */
export function ReportLibrary() {
  const client = useApi();
  const queryClient = useQueryClient();
  const [, navigate] = useLocation();
  const { state, reload } = useReportTemplates();
  const [creating, setCreating] = useState<string | null>(null);
  // A report created after the user left the page does not take them back to it.
  const mounted = useRef(false);
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);

  const handleCreate = async (choice: string, title: string, definitionIds: readonly string[]): Promise<boolean> => {
    setCreating(choice);
    const secret = await createReport(client, title, definitionIds);
    // The list of reports has one more.
    if (secret) void queryClient.invalidateQueries({ queryKey: latestReportsKey });
    if (!mounted.current) return true;
    if (!secret) {
      setCreating(null);
      toastError(REPORT_ADD_FAILURE_MESSAGE);
      return false;
    }
    navigate(`/reports/${secret}`);
    return true;
  };

  const blankTitle = defaultReportTitle(BLANK_REPORT_NAME_SUFFIX);
  return (
    <Stack gap="lg">
      {state.status === 'failed' ? (
        <RetryAlert message={TEMPLATES_FETCH_FAILURE_MESSAGE} onRetry={reload}>
          You can still start from a blank report.
        </RetryAlert>
      ) : null}
      <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} spacing="lg">
        <TemplateCard
          icon={IconFile}
          name="Blank report"
          description="An empty report over the last 12 months: add the charts you need, one by one."
          sections={0}
          actionLabel="Create blank report"
          reportTitle={blankTitle}
          creating={creating === BLANK_REPORT}
          disabled={creating !== null && creating !== BLANK_REPORT}
          onCreate={() => handleCreate(BLANK_REPORT, blankTitle, [])}
        />
        {state.status === 'loading' ? <TemplateSkeletons /> : null}
        {state.status === 'loaded'
          ? state.data.map((template) => {
              const title = defaultReportTitle(template.name_suffix);
              return (
                <TemplateCard
                  key={template.id}
                  icon={IconTemplate}
                  name={template.name}
                  description={template.description}
                  sections={template.definitions.length}
                  actionLabel={`Create report from ${template.name}`}
                  reportTitle={title}
                  creating={creating === template.id}
                  disabled={creating !== null && creating !== template.id}
                  onCreate={() => handleCreate(template.id, title, template.definitions)}
                />
              );
            })
          : null}
      </SimpleGrid>
    </Stack>
  );
}

function TemplateSkeletons() {
  return (
    <>
      {[0, 1].map((index) => (
        <Card key={index} aria-busy="true" aria-label="Loading templates">
          <Stack gap="sm">
            <Skeleton height={44} width={44} radius="md" />
            <Skeleton height={20} width="60%" />
            <Skeleton height={12} />
            <Skeleton height={12} width="75%" />
            <Skeleton height={30} width={130} mt="sm" />
          </Stack>
        </Card>
      ))}
    </>
  );
}
