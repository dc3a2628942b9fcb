import { ActionIcon, Alert, Anchor, Badge, Box, Button, Card, Group, Loader, Paper, Select, Stack, Text, Title, Tooltip } from '@mantine/core';
import { useHotkeys, useMediaQuery } from '@mantine/hooks';
import { useActorRef, useSelector } from '@xstate/react';
import { IconAdjustmentsHorizontal, IconFilter, IconPlus, IconPresentation, IconRefresh, IconShare } from '@tabler/icons-react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useRef, useState, type SetStateAction } from 'react';
import { Link, useLocation } from 'wouter';
import type { InspectionEvent } from 'xstate';
import { recalculationActors } from '../../../machines/recalculation/recalculationActors';
import { recalculationMachine, type RecalculationActorRef } from '../../../machines/recalculation/recalculationMachine';
import { controlsDisabled, isRecalculating, showsRecalculatingWarning, showsRefreshButton, showsStaleCallout } from '../../../machines/recalculation/selectors';
import { reportFilterActors } from '../../../machines/reportFilter/reportFilterActors';
import { reportFilterMachine, type ReportFilterActorRef } from '../../../machines/reportFilter/reportFilterMachine';
import { activeItem, filteredSections, isApplying } from '../../../machines/reportFilter/selectors';
import { reportPageActors } from '../../../machines/reportPage/reportPageActors';
import { reportPageMachine } from '../../../machines/reportPage/reportPageMachine';
import { filterAvailable, filterBlocked, filterOf, pageReport, pickerOpen, recalculationOf, savingSettings } from '../../../machines/reportPage/selectors';
import type { SettingsChange } from '../../../machines/reportPage/types';
import { liveConnectionMachine } from '../../../machines/liveConnection/liveConnectionMachine';
import { isLive, showsConnectionLost } from '../../../machines/liveConnection/selectors';
import { FILTER_HOT_KEY } from '../../../models/constants';
import { FILTER_BLOCKED, filterItemLabel } from '../../../models/reportFilter';
import { showsCurrentMonth } from '../../../models/reportRange';
import { inspectorRegistry } from '../../inspector/registry';
import { useInspection } from '../../inspector/useInspection';
import { toastError, toastFilterWarning } from '../../notifications/toast';
import { ActiveFilter } from '../filters/ActiveFilter';
import { FilterPicker } from '../filters/FilterPicker';
import { ReportImportAction } from '../filters/ReportImportAction';
import { ReportViewDrawer } from '../filters/ReportViewDrawer';
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
import { isCustomSection, sectionEditorPath } from '../sectionEditor/sectionEditorPath';
import { useSectionEditing } from './sections/useSectionEditing';
import { currenciesKey, dataExistenceKey, type ReportSection, type ReportServices, type ReportSettings, type ReportUpdate, type ReportView as Report, type SharedFilter } from './reportApi';
import { SettingsPopover, SETTING_UPDATE_FAILURE } from './SettingsPopover';
import { ReportTags } from './ReportTags';
import { apiKey } from '../../api/queries';
import { useSession } from '../../session/SessionContext';
import { PresentationView } from '../presentation/PresentationView';
import { ShareDialog } from '../sharing/ShareDialog';
import { currencySearch } from './currencyQuery';

export const CURRENCY_UPDATE_FAILURE = 'We could not update your report currency, please try again';
export const REPORT_UPDATE_FAILURE = 'Something went wrong and we could not update report';

interface ReportViewProps {
  /** The report as loaded (the page machine's input; from then on the machine holds it and writes it back with `setReport`). */
  report: Report;
  /** Changes the cached report (the machine's report, written back to the query's cache). */
  setReport(change: SetStateAction<Report>): void;
  services: ReportServices;
  /** Reads the report again (after a recalculation, or a reconnection): the fresh report, or undefined when it could not be read. */
  reload(): Promise<Report | undefined>;
  /** Today's month (the range rules and auto refresh depend on it). */
  today: { year: number; month: number };
  /** The public demo: read only, but title and summary can be edited in this browser. */
  demo?: boolean;
  /** A shared report (its share link): no editing, never a filter, no details, no comments. */
  shared?: boolean;
  /** The segment value a pinned share link shows (its sections come filtered by it). */
  sharedFilter?: SharedFilter | null;
  /** The currency the page's link asks for: numbers converted for this visit, read only, nothing saved. */
  currencyOverride?: string | null;
}

/** Where the action bar has room for the refreshed time beside the badge (else it is the badge's tooltip). */
const REFRESHED_TIME_MEDIA_QUERY = '(min-width: 1600px)';

/** 'Refreshed 2 Mar 2026, 09:00'. */
function refreshedLabel(refreshedAt: string | null): string {
  if (!refreshedAt) return 'Not calculated yet';
  return `Refreshed ${new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(refreshedAt))}`;
}

/** Registers a child the page machine invokes with the state inspector (its trace next to the page's). */
function useChildInspection(childId: string): (event: InspectionEvent) => void {
  const [tracker] = useState(() => inspectorRegistry.track(childId, { childId }));
  useEffect(() => {
    tracker.resume();
    return () => tracker.stop();
  }, [tracker]);
  return tracker.inspect;
}

/**
 * A loaded report: action bar, callouts, active filter, content table and sections. The page's
 * workflow is the reportPage machine (machines/reportPage): it holds the report, takes the live
 * updates, runs the recalculation and the filter as its children and says what is open,
 * blocked or being saved; this view shows their snapshots and sends them the user's events.
 * Editing controls show for editors only (`can_edit`, never on a shared report).
 */
export function ReportBody({ report: loaded, setReport, services, reload: readAgain, today, demo = false, shared = false, sharedFilter = null, currencyOverride = null }: ReportViewProps) {
  const queryClient = useQueryClient();
  const reloadRef = useRef<() => Promise<void>>(async () => {});

  const logic = useMemo(
    () =>
      reportPageMachine.provide({
        actors: {
          recalculation: recalculationMachine.provide({
            actors: recalculationActors({ refresh: (reportId) => services.refresh(reportId) }),
            actions: { notify: (_, params) => toastError(params.message) },
          }),
          reportFilter: reportFilterMachine.provide({
            actors: reportFilterActors({ fetchFiltered: (secret, item, currency, signal) => services.fetchFiltered(secret, item, currency, signal) }),
            actions: { notify: (_, params) => toastError(params.message) },
          }),
          // The failure toast is the machine's (each change names its own).
          ...reportPageActors({ saveSettings: (reportId, change, failure) => services.updateSettings(reportId, change as Partial<ReportSettings>, failure) }),
        },
        actions: {
          notify: (_, params) => (params.kind === 'filterWarning' ? toastFilterWarning(params.message) : toastError(params.message)),
          reload: () => void reloadRef.current(),
          storeDemoEdit: (_, params) => saveDemoEdit(params.reportId, params.change),
        },
      }),
    [services],
  );
  const inspectPage = useInspection('reportPage');
  const inspectRecalculation = useChildInspection('recalculation');
  const inspectFilter = useChildInspection('reportFilter');
  const actor = useActorRef(logic, {
    inspect: (event) => {
      inspectPage(event);
      inspectRecalculation(event);
      inspectFilter(event);
    },
    input: { report: loaded, demo, shared },
  });

  const report = useSelector(actor, (snapshot) => pageReport<Report>(snapshot));
  // The children run as long as the page does.
  const recalculation = useSelector(actor, recalculationOf) as RecalculationActorRef;
  const filter = useSelector(actor, filterOf) as ReportFilterActorRef;

  // The query's cache holds what the page shows (other views of the report read it there).
  useEffect(() => {
    setReport(report);
  }, [report, setReport]);

  // A page in another currency than the report's (its link asked for one) is read only: nothing it shows is saved.
  const canEdit = report.can_edit && !shared && !currencyOverride;
  const { user } = useSession();
  // Only editors can import (and only the account's users may ask); asked again with each reload.
  const { data: hasFinanceData = true } = useQuery({ queryKey: dataExistenceKey, queryFn: ({ signal }) => services.hasFinanceData(signal), enabled: canEdit });
  const noFinanceData = canEdit && !hasFinanceData;
  // The currency list is for signed-in users only (spec); a read-only page switches its link's currency with it.
  const { data: currencies = [] } = useQuery({ queryKey: currenciesKey, queryFn: ({ signal }) => services.currencies(signal), enabled: canEdit || (user !== null && !demo) });
  const [sharing, setSharing] = useState(false);

  const recalculating = useSelector(recalculation, isRecalculating);
  const disabled = useSelector(recalculation, controlsDisabled);
  const refreshing = useSelector(recalculation, (snapshot) => snapshot.matches('refreshing'));
  const recalculatingWarning = useSelector(recalculation, showsRecalculatingWarning);
  const staleCallout = useSelector(recalculation, showsStaleCallout);
  const refreshButton = useSelector(recalculation, showsRefreshButton);
  const pending = useSelector(recalculation, (snapshot) => snapshot.context.pendingSections);

  const showsFilter = useSelector(actor, filterAvailable);
  const filterRefused = useSelector(actor, filterBlocked);
  const picking = useSelector(actor, pickerOpen);
  const saving = useSelector(actor, savingSettings);
  const filterItem = useSelector(filter, activeItem);
  const applying = useSelector(filter, isApplying);
  const filtered = useSelector(filter, (snapshot) => filteredSections<ReportSection>(snapshot));
  /** The sections the cards show: the filtered copies while a filter is on, else the report's own. */
  const sections = filtered ?? report.sections;

  // Shift+F asks for the picker (not while typing: useHotkeys leaves inputs, textareas and selects alone).
  // Not while presenting: the slideshow has the keyboard.
  const [presenting, setPresenting] = useState(false);
  useHotkeys([[FILTER_HOT_KEY, () => !presenting && actor.send({ type: 'filter.request' })]]);

  // A reload tells the machine the report as it is now (an import may have brought finance
  // data: that is asked again too).
  const reload = useCallback(async () => {
    const fresh = await readAgain();
    if (!fresh) return;
    actor.send({ type: 'report.reloaded', report: fresh });
    void queryClient.invalidateQueries({ queryKey: dataExistenceKey });
  }, [readAgain, actor, queryClient]);
  useEffect(() => {
    reloadRef.current = reload;
  }, [reload]);

  // Section editing (src/reports/page/sections): definitions, section actions, 'Add chart'.
  const recalculationStarted = useCallback(() => actor.send({ type: 'report.recalculationStarted' }), [actor]);
  const changeReport = useCallback(
    (change: (current: Report) => Report) => actor.send({ type: 'report.changed', report: change(pageReport<Report>(actor.getSnapshot())) }),
    [actor],
  );
  const onEditing = useCallback((sectionId: string, editing: boolean) => actor.send({ type: editing ? 'edit.started' : 'edit.ended', sectionId }), [actor]);
  const sectionEditing = useSectionEditing({ report, setReport: changeReport, reload, recalculationStarted, canEdit, onEditing });
  const [addingChart, setAddingChart] = useState(false);
  const [definingView, setDefiningView] = useState(false);

  // The live channel's connection: after a drop, the report is read again (what was missed).
  const connectionLogic = useMemo(() => liveConnectionMachine.provide({ actions: { resync: () => void reload() } }), [reload]);
  const connection = useActorRef(connectionLogic, { inspect: useInspection('liveConnection') });
  const live = useSelector(connection, isLive);
  const connectionLost = useSelector(connection, showsConnectionLost);

  // Live updates go to the page machine (the report's statuses, a section's new numbers, held while filtered).
  const onUpdate = useCallback((update: ReportUpdate) => actor.send({ type: 'live.update', update }), [actor]);

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
    // The demo's edits stay in this browser (the machine keeps them there).
    if (!demo) {
      try {
        await services.updateReport(report.id, body, REPORT_UPDATE_FAILURE);
      } catch (error) {
        toastError(error instanceof Error ? error.message : REPORT_UPDATE_FAILURE);
        throw error;
      }
    }
    actor.send({ type: 'report.edited', change: body });
  };

  const saveSettings = (change: Partial<ReportSettings>, failure: string) => actor.send({ type: 'settings.change', change: change as SettingsChange['change'], failure });

  const currentMonth = showsCurrentMonth(report.period, today);
  const roomForRefreshedTime = useMediaQuery(REFRESHED_TIME_MEDIA_QUERY) ?? false;
  // Editors' bar is full below 1600 px: its secondary actions are icons there (named, with a tooltip).
  const roomForLabels = roomForRefreshedTime || !canEdit;
  const viewFilter = report.filter ?? null;

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
                  <Button
                    variant="default"
                    leftSection={<IconPlus size={16} />}
                    onClick={() => {
                      actor.send({ type: 'chart.add' });
                      setAddingChart(true);
                    }}
                    disabled={sectionEditing.definitions === 'failed'}
                  >
                    Add chart
                  </Button>
                  <Button leftSection={<IconRefresh size={16} />} onClick={() => actor.send({ type: 'report.refresh' })} loading={refreshing} disabled={disabled}>
                    Recalculate
                  </Button>
                </>
              )}
              <BarAction label="Present" tooltip="Present the report as slides" icon={<IconPresentation size={16} />} wide={roomForLabels} onClick={() => setPresenting(true)} />
              {canEdit && !demo && (
                <>
                  <BarAction
                    label={viewFilter ? 'Edit view' : 'Create view'}
                    tooltip={viewFilter ? 'Edit the filter everyone sees this report with' : 'Define the filter everyone sees this report with'}
                    icon={<IconAdjustmentsHorizontal size={16} />}
                    wide={roomForLabels}
                    onClick={() => setDefiningView(true)}
                    disabled={disabled}
                  />
                  <BarAction label="Share" tooltip="Share links and group links of this report" icon={<IconShare size={16} />} wide={roomForLabels} onClick={() => setSharing(true)} />
                  <ReportImportAction />
                </>
              )}
            </Group>
            <Group gap="xs" wrap="nowrap" miw={0}>
              {/* Below 1600 px the refreshed time is in the badge's tooltip only, so nothing in the bar is cut. */}
              <Tooltip label={refreshedLabel(report.refreshed_at)}>
                <Box style={{ flexShrink: 0 }}>
                  <FreshnessBadge recalculating={recalculating} stale={report.freshness_status === 'stale'} />
                </Box>
              </Tooltip>
              {canEdit && <LiveBadge live={live} lost={connectionLost} />}
              {roomForRefreshedTime && (
              <Text size="sm" c="dimmed" truncate="end" miw={0} title={refreshedLabel(report.refreshed_at)}>
                {refreshedLabel(report.refreshed_at)}
              </Text>
              )}
              {!canEdit && !demo && (shared || currencyOverride) && (
                <ViewingCurrency currency={report.currency} currencies={currencies} />
              )}
              {canEdit && (
                <Select
                  aria-label="Report currency"
                  w={100}
                  style={{ flexShrink: 0 }}
                  data={currencies.length > 0 ? currencies : [report.currency]}
                  value={report.currency}
                  searchable
                  allowDeselect={false}
                  disabled={disabled || saving}
                  onChange={(currency) => currency && currency !== report.currency && saveSettings({ currency }, CURRENCY_UPDATE_FAILURE)}
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
                    actor.send({ type: 'report.periodSaved', period });
                  }}
                />
              ) : null}
              {canEdit && <SettingsPopover settings={report.settings} showsCurrentMonth={currentMonth} onChange={(change) => saveSettings(change, SETTING_UPDATE_FAILURE)} />}
              {showsFilter && (
                // Kept clickable while refused, so the warning can say why; marked as refused meanwhile.
                <Tooltip label={filterRefused ? FILTER_BLOCKED : 'Filter (Shift+F)'}>
                  <ActionIcon
                    variant={filterItem ? 'filled' : 'default'}
                    size={36}
                    aria-label="Filter"
                    data-refused={filterRefused || undefined}
                    style={filterRefused ? { opacity: 0.5, cursor: 'not-allowed' } : undefined}
                    onClick={() => actor.send({ type: 'filter.request' })}
                  >
                    <IconFilter size={18} />
                  </ActionIcon>
                </Tooltip>
              )}
            </Group>
          </Group>
        </Paper>

        {showsFilter && <ActiveFilter item={filterItem} view={viewFilter} applying={applying} onClear={() => actor.send({ type: 'filter.clear' })} />}

        {shared && <SharedNotice filter={sharedFilter} />}
        {currencyOverride && !shared && (
          <Alert variant="light" color="gray" title={`Shown in ${currencyOverride}`}>
            <Group gap="xs">
              <Text size="sm">This link shows the report converted to {currencyOverride} for this visit: nothing is saved, and the page is read only.</Text>
              <Anchor component={Link} href={`/reports/${report.secret}`} size="sm">
                Show it in the report’s own currency
              </Anchor>
            </Group>
          </Alert>
        )}

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
          onRefresh={() => actor.send({ type: 'report.refresh' })}
        />

        <KeyNumbersStrip sections={sections} currency={report.currency} />

        {sections.length === 0 ? (
          <Card withBorder padding="xl" radius="md">
            <Text ta="center" c="dimmed">
              This report has no charts yet.
            </Text>
          </Card>
        ) : (
          <>
            <Box component="nav" aria-label="Contents">
              <Group gap="xs">
                {sections.map((section) => (
                  <Anchor key={section.id} href={`#section-${section.id}`} size="sm">
                    {section.title}
                  </Anchor>
                ))}
              </Group>
            </Box>
            {/* Shared and converted views get no details (spec: details are for the account's users on the normal report). */}
            <ReportDetails report={filtered ? { ...report, sections } : report} demo={demo || shared || currencyOverride !== null} filter={filtered ? filterItem : null}>
              <Stack gap="lg">
                {sections.map((section, index) => (
                  <SectionCard
                    key={section.id}
                    section={section}
                    displayQuarters={report.settings.display_quarters}
                    recalculating={recalculating && (pending.includes(section.id) || section.recalculation_status === 'recalculating')}
                    canEdit={canEdit}
                    first={index === 0}
                    last={index === sections.length - 1}
                    definition={sectionEditing.definitionOf(section.definition_id)}
                    calculationHref={canEdit && isCustomSection(section) ? sectionEditorPath(report.secret, section.id) : undefined}
                    actions={sectionEditing.actions}
                  />
                ))}
              </Stack>
            </ReportDetails>
          </>
        )}

        {canEdit && (
          <AddChartDialog
            opened={addingChart}
            onClose={() => setAddingChart(false)}
            definitions={sectionEditing.definitions}
            onAdd={sectionEditing.addCharts}
            customSectionHref={sectionEditorPath(report.secret)}
          />
        )}
        {showsFilter && (
          <FilterPicker
            opened={picking}
            onClose={() => actor.send({ type: 'picker.close' })}
            secret={report.secret}
            signedIn={report.can_edit && !demo}
            onApply={(item) => actor.send({ type: 'filter.apply', item })}
          />
        )}
        {canEdit && !demo && (
          <ReportViewDrawer
            opened={definingView}
            onClose={() => setDefiningView(false)}
            reportId={report.id}
            secret={report.secret}
            filter={viewFilter}
            onSaved={(saved) => {
              setDefiningView(false);
              actor.send({ type: 'report.viewSaved', filter: saved });
            }}
          />
        )}

        {!shared && <ReportComments reportId={report.id} accountId={report.account_id} demo={demo} />}
        {canEdit && !demo && <ShareDialog opened={sharing} onClose={() => setSharing(false)} reportId={report.id} secret={report.secret} />}
        <PresentationView
          report={report}
          sections={sections}
          displayQuarters={report.settings.display_quarters}
          opened={presenting}
          onClose={() => setPresenting(false)}
          scope={sharedFilter ? `${sharedFilterLabel(sharedFilter)} only` : filtered && filterItem ? filterItemLabel(filterItem) : null}
        />
      </Stack>
    </KeyNumbersProvider>
  );
}

/** An action of the bar: a labelled button where there is room, else an icon named for screen readers, with a tooltip. */
function BarAction({ label, tooltip, icon, wide, onClick, disabled = false }: { label: string; tooltip: string; icon: React.ReactNode; wide: boolean; onClick(): void; disabled?: boolean }) {
  return (
    <Tooltip label={wide ? tooltip : `${label}: ${tooltip.charAt(0).toLowerCase()}${tooltip.slice(1)}`}>
      {wide ? (
        <Button variant="default" leftSection={icon} onClick={onClick} disabled={disabled}>
          {label}
        </Button>
      ) : (
        <ActionIcon variant="default" size={36} aria-label={label} onClick={onClick} disabled={disabled}>
          {icon}
        </ActionIcon>
      )}
    </Tooltip>
  );
}

/** A pinned share link's segment value as the page names it: 'Plan: Pro' (the value alone when the segment is gone). */
function sharedFilterLabel(filter: SharedFilter): string {
  return filter.segmenter_name ? `${filter.segmenter_name}: ${filter.segment_value}` : filter.segment_value;
}

/** What a share link's visitor is told: read only, and which segment it shows when pinned. */
function SharedNotice({ filter }: { filter: SharedFilter | null }) {
  return (
    <Alert variant="light" color="brand" icon={<IconShare size={18} />} title="A shared report">
      {filter
        ? `Read only. It shows ${sharedFilterLabel(filter)} only.`
        : 'Read only: a copy of the report as its owners see it, kept up to date.'}
    </Alert>
  );
}

/**
 * The currency a read-only page shows (a share link, or a link with `?currency=`): signed-in
 * visitors switch it, which changes the link's query and saves nothing; others see it.
 */
function ViewingCurrency({ currency, currencies }: { currency: string; currencies: string[] }) {
  const [location, navigate] = useLocation();
  if (currencies.length === 0) {
    return (
      <Badge variant="default" size="lg" style={{ flexShrink: 0 }}>
        {currency}
      </Badge>
    );
  }
  return (
    <Select
      aria-label="Currency shown"
      w={100}
      style={{ flexShrink: 0 }}
      data={currencies}
      value={currency}
      searchable
      allowDeselect={false}
      onChange={(next) => next && next !== currency && navigate(`${location}${currencySearch(next)}`)}
    />
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
