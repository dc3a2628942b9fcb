import { ActionIcon, Alert, Anchor, Badge, Box, Button, Card, Group, Loader, Paper, Select, Stack, Text, Title, Tooltip } from '@mantine/core';
import { useActorRef, useSelector } from '@xstate/react';
import { IconAdjustmentsHorizontal, IconFilter, IconPlus, IconPresentation, IconRefresh, IconShare } from '@tabler/icons-react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useState, type SetStateAction } from 'react';
import { recalculationActors } from '../../../machines/recalculation/recalculationActors';
import { recalculationMachine } from '../../../machines/recalculation/recalculationMachine';
import { controlsDisabled, isRecalculating, showsRecalculatingWarning, showsRefreshButton, showsStaleCallout } from '../../../machines/recalculation/selectors';
import { liveConnectionMachine } from '../../../machines/liveConnection/liveConnectionMachine';
import { isLive, showsConnectionLost } from '../../../machines/liveConnection/selectors';
import { showsCurrentMonth } from '../../../models/reportRange';
import { useInspection } from '../../inspector/useInspection';
import { toastError } from '../../notifications/toast';
import { EditableText } from './EditableText';
import { RangePicker, RANGE_UPDATE_FAILURE } from './RangePicker';
import { ReportCallouts } from './ReportCallouts';
import { ReportComments } from '../comments/ReportComments';
import { KeyNumbersProvider } from '../keyNumbers/KeyNumbersContext';
import { KeyNumbersStrip } from '../keyNumbers/KeyNumbersStrip';
import { saveDemoEdit } from './demoEdits';
import { SectionCard } from './SectionCard';
import { ReportDetails } from '../details/ReportDetails';
import { AddChartDialog } from './sections/AddChartDialog';
import { useSectionEditing } from './sections/useSectionEditing';
import { currenciesKey, dataExistenceKey, type ReportServices, type ReportSettings, type ReportUpdate, type ReportView as Report } from './reportApi';
import { SettingsPopover, SETTING_UPDATE_FAILURE } from './SettingsPopover';
import { ReportTags } from './ReportTags';
import { apiKey } from '../../api/queries';

export const CURRENCY_UPDATE_FAILURE = 'We could not update your report currency, please try again';
export const REPORT_UPDATE_FAILURE = 'Something went wrong and we could not update report';

interface ReportViewProps {
  /** The report as cached (its query's answer, with the page's edits and live updates applied). */
  report: Report;
  /** Changes the cached report (an edit that saved, a live update). */
  setReport(change: SetStateAction<Report>): void;
  services: ReportServices;
  /** Reads the report again (after a recalculation, or a reconnection): the fresh report, or undefined when it could not be read. */
  reload(): Promise<Report | undefined>;
  /** Today's month (the range rules and auto refresh depend on it). */
  today: { year: number; month: number };
  /** The public demo: read only, but title and summary can be edited in this browser. */
  demo?: boolean;
}

/** 'Refreshed 2 Mar 2026, 09:00'. */
function refreshedLabel(refreshedAt: string | null): string {
  if (!refreshedAt) return 'Not calculated yet';
  return `Refreshed ${new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(refreshedAt))}`;
}

/**
 * A loaded report: action bar, callouts, content table and sections. The recalculation machine
 * (machines/recalculation) says what runs and what is disabled; BusinessReportChannel feeds it
 * and replaces each section as its update arrives. Editing controls show for editors only
 * (`can_edit`).
 */
export function ReportBody({ report, setReport, services, reload: readAgain, today, demo = false }: ReportViewProps) {
  const queryClient = useQueryClient();
  const canEdit = report.can_edit;
  // Only editors can import (and only the account's users may ask); asked again with each reload.
  const { data: hasFinanceData = true } = useQuery({ queryKey: dataExistenceKey, queryFn: ({ signal }) => services.hasFinanceData(signal), enabled: canEdit });
  const noFinanceData = canEdit && !hasFinanceData;
  const { data: currencies = [] } = useQuery({ queryKey: currenciesKey, queryFn: ({ signal }) => services.currencies(signal), enabled: canEdit });

  const logic = useMemo(
    () =>
      recalculationMachine.provide({
        actors: recalculationActors({ refresh: (reportId) => services.refresh(reportId) }),
        actions: { notify: (_, params) => toastError(params.message) },
      }),
    [services],
  );
  const actor = useActorRef(logic, {
    inspect: useInspection('recalculation'),
    input: {
      reportId: report.id,
      canEdit: report.can_edit,
      recalculationStatus: report.recalculation_status,
      freshnessStatus: report.freshness_status,
      sectionIds: report.sections.map((section) => section.id),
    },
  });
  const recalculating = useSelector(actor, isRecalculating);
  const disabled = useSelector(actor, controlsDisabled);
  const refreshing = useSelector(actor, (snapshot) => snapshot.matches('refreshing'));
  const recalculatingWarning = useSelector(actor, showsRecalculatingWarning);
  const staleCallout = useSelector(actor, showsStaleCallout);
  const refreshButton = useSelector(actor, showsRefreshButton);
  const pending = useSelector(actor, (snapshot) => snapshot.context.pendingSections);

  // A reload tells the machine the report's statuses as they are now (an import may have
  // brought finance data: that is asked again too).
  const reload = useCallback(async () => {
    const fresh = await readAgain();
    if (!fresh) return;
    actor.send({ type: 'recalculation.reportUpdated', recalculationStatus: fresh.recalculation_status, freshnessStatus: fresh.freshness_status });
    void queryClient.invalidateQueries({ queryKey: dataExistenceKey });
  }, [readAgain, actor, queryClient]);

  // Section editing (src/reports/page/sections): definitions, section actions, 'Add chart'.
  const recalculationStarted = useCallback(() => actor.send({ type: 'recalculation.settingsChanged' }), [actor]);
  const sectionEditing = useSectionEditing({ report, setReport, reload, recalculationStarted, canEdit });
  const [addingChart, setAddingChart] = useState(false);

  // The live channel's connection: after a drop, the report is read again (what was missed).
  const connectionLogic = useMemo(() => liveConnectionMachine.provide({ actions: { resync: () => void reload() } }), [reload]);
  const connection = useActorRef(connectionLogic, { inspect: useInspection('liveConnection') });
  const live = useSelector(connection, isLive);
  const connectionLost = useSelector(connection, showsConnectionLost);

  // Live updates patch the cached report (a section's new numbers, the report's statuses).
  const onUpdate = useCallback(
    (update: ReportUpdate) => {
      if (update.object === 'business_report') {
        actor.send({ type: 'recalculation.reportUpdated', recalculationStatus: update.recalculation_status, freshnessStatus: update.freshness_status });
        setReport((current) => ({ ...current, recalculation_status: update.recalculation_status, freshness_status: update.freshness_status, refreshed_at: update.refreshed_at }));
        // The whole report once it is done (sections sent partially, key numbers, anything missed).
        if (update.recalculation_status !== 'recalculating') void reload();
        return;
      }
      actor.send({ type: 'recalculation.sectionUpdated', sectionId: update.section.id, recalculationStatus: update.section.recalculation_status });
      if (update.partial !== true) {
        const section = update.section;
        setReport((current) => ({ ...current, sections: current.sections.map((s) => (s.id === section.id ? section : s)) }));
      }
    },
    [actor, reload, setReport],
  );

  useEffect(() => {
    if (!canEdit) return;
    const stop = services.watch(report.secret, report.id, {
      update: onUpdate,
      connected: () => connection.send({ type: 'liveConnection.connected' }),
      lost: () => connection.send({ type: 'liveConnection.disconnected' }),
    });
    return stop;
  }, [services, report.secret, report.id, canEdit, onUpdate, connection]);

  const saveReport = async (body: { title?: string; summary?: string; tags?: string[] }) => {
    if (demo) {
      saveDemoEdit(report.id, body);
      setReport((current) => ({ ...current, ...body }));
      return;
    }
    try {
      await services.updateReport(report.id, body, REPORT_UPDATE_FAILURE);
      setReport((current) => ({ ...current, ...body }));
    } catch (error) {
      toastError(error instanceof Error ? error.message : REPORT_UPDATE_FAILURE);
      throw error;
    }
  };

  const saveSettings = async (change: Partial<ReportSettings>, failure: string) => {
    try {
      const settings = await services.updateSettings(report.id, change, failure);
      setReport((current) => ({ ...current, settings, ...(change.currency ? { currency: change.currency } : {}) }));
      if ('currency' in change || 'subtract_forever_discount_from_mrr' in change || 'subtract_finite_discount_from_mrr' in change) actor.send({ type: 'recalculation.settingsChanged' });
    } catch {
      toastError(failure);
    }
  };

  const currentMonth = showsCurrentMonth(report.period, today);

  return (
    <KeyNumbersProvider secret={report.secret} canEdit={canEdit} demo={demo}>
      <Stack gap="lg">
        <Stack gap={4}>
          <EditableText value={report.title} placeholder="Untitled report" label="Title" editable={canEdit || demo} onSave={(title) => saveReport({ title })}>
            {(title) => <Title order={1}>{title || 'Untitled report'}</Title>}
          </EditableText>
          <EditableText value={report.summary} placeholder="Add a summary" label="Summary" editable={canEdit || demo} multiline onSave={(summary) => saveReport({ summary })}>
            {(summary) => (
              <Text c="dimmed" style={{ whiteSpace: 'pre-wrap' }}>
                {summary}
              </Text>
            )}
          </EditableText>
          <Group gap="xs">
            {report.owner && (
              <Text size="sm" c="dimmed">
                By {report.owner.name}
              </Text>
            )}
            <ReportTags
              tags={report.tags}
              editable={canEdit && !demo}
              onChange={async (tags) => {
                await saveReport({ tags });
                // The reports list filters by tags: it reads them again.
                void queryClient.invalidateQueries({ queryKey: apiKey('/business_reports/latest') });
              }}
            />
          </Group>
        </Stack>

        <Paper withBorder p="sm" radius="md">
          {/* One row at 1440 px and 1280 px: the features still to come are icons with a tooltip. */}
          <Group justify="space-between" gap="sm" wrap="nowrap" role="toolbar" aria-label="Report actions">
            <Group gap="xs" wrap="nowrap">
              {canEdit && (
                <>
                  <Button variant="default" leftSection={<IconPlus size={16} />} onClick={() => setAddingChart(true)} disabled={sectionEditing.definitions === 'failed'}>
                    Add chart
                  </Button>
                  <Button leftSection={<IconRefresh size={16} />} onClick={() => actor.send({ type: 'recalculation.refresh' })} loading={refreshing} disabled={disabled}>
                    Recalculate
                  </Button>
                </>
              )}
              <ComingSoonAction label="Present" tooltip="Presentation mode: coming soon" icon={<IconPresentation size={18} />} />
              {canEdit && (
                <>
                  <ComingSoonAction label="Create view" tooltip="Report views: coming soon" icon={<IconAdjustmentsHorizontal size={18} />} />
                  <ComingSoonAction label="Share" tooltip="Share links: coming soon" icon={<IconShare size={18} />} />
                </>
              )}
            </Group>
            <Group gap="xs" wrap="nowrap" miw={0}>
              {/* Below 1408 px (Mantine's xl) the refreshed time moves into the badge's tooltip, so nothing is cut. */}
              <Tooltip label={refreshedLabel(report.refreshed_at)}>
                <Box style={{ flexShrink: 0 }}>
                  <FreshnessBadge recalculating={recalculating} stale={report.freshness_status === 'stale'} />
                </Box>
              </Tooltip>
              {canEdit && <LiveBadge live={live} lost={connectionLost} />}
              <Text size="sm" c="dimmed" truncate="end" miw={0} visibleFrom="xl" title={refreshedLabel(report.refreshed_at)}>
                {refreshedLabel(report.refreshed_at)}
              </Text>
              {canEdit && (
                <Select
                  aria-label="Report currency"
                  w={100}
                  data={currencies.length > 0 ? currencies : [report.currency]}
                  value={report.currency}
                  searchable
                  allowDeselect={false}
                  disabled={disabled}
                  onChange={(currency) => currency && currency !== report.currency && void saveSettings({ currency }, CURRENCY_UPDATE_FAILURE)}
                />
              )}
              {canEdit ? (
                <RangePicker
                  period={report.period}
                  today={today}
                  disabled={disabled}
                  onSave={async (period) => {
                    try {
                      await services.updateReport(report.id, { period }, RANGE_UPDATE_FAILURE);
                    } catch (error) {
                      // A rule the server enforces says which; anything else is the spec's message.
                      toastError(error instanceof Error && error.message ? error.message : RANGE_UPDATE_FAILURE);
                      throw error;
                    }
                    setReport((current) => ({ ...current, period }));
                    actor.send({ type: 'recalculation.settingsChanged' });
                  }}
                />
              ) : null}
              {canEdit && <SettingsPopover settings={report.settings} showsCurrentMonth={currentMonth} onChange={(change) => void saveSettings(change, SETTING_UPDATE_FAILURE)} />}
              <ComingSoonAction label="Filter" tooltip="Filters: coming soon" icon={<IconFilter size={18} />} />
            </Group>
          </Group>
        </Paper>

        {demo && (
          <Alert variant="light" color="brand" icon={<IconPresentation size={18} />} title="A demo report">
            Built from a made-up subscription business. Explore it freely: the changes you make to its title and summary stay in this browser.
          </Alert>
        )}

        <ReportCallouts
          noFinanceData={noFinanceData}
          recalculating={recalculatingWarning}
          stale={staleCallout}
          canRefresh={refreshButton}
          refreshing={refreshing}
          onRefresh={() => actor.send({ type: 'recalculation.refresh' })}
        />

        <KeyNumbersStrip sections={report.sections} currency={report.currency} />

        {report.sections.length === 0 ? (
          <Card withBorder padding="xl" radius="md">
            <Text ta="center" c="dimmed">
              This report has no charts yet.
            </Text>
          </Card>
        ) : (
          <>
            <Box component="nav" aria-label="Contents">
              <Group gap="xs">
                {report.sections.map((section) => (
                  <Anchor key={section.id} href={`#section-${section.id}`} size="sm">
                    {section.title}
                  </Anchor>
                ))}
              </Group>
            </Box>
            <ReportDetails report={report} demo={demo}>
              <Stack gap="lg">
                {report.sections.map((section, index) => (
                  <SectionCard
                    key={section.id}
                    section={section}
                    displayQuarters={report.settings.display_quarters}
                    recalculating={recalculating && (pending.includes(section.id) || section.recalculation_status === 'recalculating')}
                    canEdit={canEdit}
                    first={index === 0}
                    last={index === report.sections.length - 1}
                    definition={sectionEditing.definitionOf(section.definition_id)}
                    actions={sectionEditing.actions}
                  />
                ))}
              </Stack>
            </ReportDetails>
          </>
        )}

        {canEdit && <AddChartDialog opened={addingChart} onClose={() => setAddingChart(false)} definitions={sectionEditing.definitions} onAdd={sectionEditing.addCharts} />}

        <ReportComments reportId={report.id} accountId={report.account_id} demo={demo} />
      </Stack>
    </KeyNumbersProvider>
  );
}

/** A feature of the action bar still to come: an icon, named for screen readers, its tooltip says so. */
function ComingSoonAction({ label, tooltip, icon }: { label: string; tooltip: string; icon: React.ReactNode }) {
  return (
    <Tooltip label={tooltip}>
      <ActionIcon variant="default" size={36} aria-label={label} disabled>
        {icon}
      </ActionIcon>
    </Tooltip>
  );
}

/** Whether the page hears the report's updates live (the liveConnection machine). */
function LiveBadge({ live, lost }: { live: boolean; lost: boolean }) {
  if (live) return null;
  return (
    <Tooltip label={lost ? 'The live connection dropped; the report is read again once it is back' : 'Connecting to live updates'}>
      <Badge color={lost ? 'red' : 'gray'} variant="dot">
        {lost ? 'Offline' : 'Connecting'}
      </Badge>
    </Tooltip>
  );
}

function FreshnessBadge({ recalculating, stale }: { recalculating: boolean; stale: boolean }) {
  if (recalculating)
    return (
      <Badge color="yellow" variant="light" leftSection={<Loader size={10} color="yellow" />}>
        Recalculating
      </Badge>
    );
  return stale ? (
    <Badge color="orange" variant="light">
      Outdated
    </Badge>
  ) : (
    <Badge color="teal" variant="light">
      Up to date
    </Badge>
  );
}
