import { Alert, Badge, Box, Button, Card, Grid, Group, Kbd, Skeleton, Stack, Text, TextInput, Title, Tooltip } from '@mantine/core';
import { useWindowEvent } from '@mantine/hooks';
import { IconAlertTriangle, IconArrowLeft, IconDeviceFloppy, IconPlus } from '@tabler/icons-react';
import { useActorRef, useSelector } from '@xstate/react';
import { useCallback, useMemo, useRef } from 'react';
import type { KeyboardEvent as ReactKeyboardEvent } from 'react';
import { Link, useLocation } from 'wouter';
import { CONFIG_UNREADABLE, MAX_SERIES } from '../../../models/customSections';
import { titleOf } from '../../../machines/sectionEditor/draft';
import { sectionEditorActors } from '../../../machines/sectionEditor/sectionEditorActors';
import type { SectionEditorServices } from '../../../machines/sectionEditor/sectionEditorActors';
import { sectionEditorMachine } from '../../../machines/sectionEditor/sectionEditorMachine';
import type { SectionEditorActorRef } from '../../../machines/sectionEditor/sectionEditorMachine';
import { selectCanEdit, selectCatalogue, selectDraft, selectErrors, selectIsNew, selectLoadError, selectPhase, selectPreview, selectResolution, selectSaving } from '../../../machines/sectionEditor/selectors';
import type { SectionEditorErrors } from '../../../machines/sectionEditor/selectors';
import type { DraftEdit } from '../../../machines/sectionEditor/types';
import { FailureAlert } from '../../components/FailureAlert';
import { PageHeader } from '../../components/PageHeader';
import { RetryAlert } from '../../components/RetryAlert';
import { useInspection } from '../../inspector/useInspection';
import { toastSuccess } from '../../notifications/toast';
import { useCustomSectionsApi } from './customSectionsApi';
import type { PossibleValuesFetcher } from './FilterRow';
import { fieldObjectsOf } from './editorOptions';
import { GroupList } from './GroupList';
import { PreviewPanel } from './PreviewPanel';
import { SeriesCard } from './SeriesCard';

/** The toast once the section is saved (the page goes back to the report). */
export const SECTION_SAVED = 'Section saved';

interface SectionEditorViewProps {
  secret: string;
  /** The section whose calculation is edited; null for a new section. */
  sectionId: string | null;
  /** The calls; by default the API client's (tests pass stubs). */
  services?: SectionEditorServices;
  possibleValues?: PossibleValuesFetcher;
}

const sameErrors = (a: SectionEditorErrors, b: SectionEditorErrors) => JSON.stringify(a) === JSON.stringify(b);

/** The machine of the page: its calls and the way back to the report provided, registered with the state inspector. */
function useSectionEditor({ secret, sectionId, services }: SectionEditorViewProps, fallback: SectionEditorServices): SectionEditorActorRef {
  const [, navigate] = useLocation();
  const navigateRef = useRef(navigate);
  navigateRef.current = navigate;
  const calls = services ?? fallback;
  const logic = useMemo(
    () =>
      sectionEditorMachine.provide({
        actors: sectionEditorActors(calls),
        actions: {
          saved: (_, notice) => {
            toastSuccess(SECTION_SAVED);
            navigateRef.current(`/reports/${notice.secret}`);
          },
        },
      }),
    [calls],
  );
  const inspect = useInspection('sectionEditor');
  return useActorRef(logic, { input: { secret, sectionId }, inspect });
}

/**
 * `/reports/{secret}/new-section[/{sectionId}]`: the custom section editor. The machine
 * (machines/sectionEditor) holds the form and the flow; this view draws what its selectors say
 * and sends the user's edits.
 */
export function SectionEditorView(props: SectionEditorViewProps) {
  const api = useCustomSectionsApi();
  const actor = useSectionEditor(props, api.services);
  const possibleValues = props.possibleValues ?? api.possibleValues;
  const [, navigate] = useLocation();
  const reportPath = `/reports/${props.secret}`;

  const phase = useSelector(actor, selectPhase);
  const isNew = useSelector(actor, selectIsNew);
  const loadError = useSelector(actor, selectLoadError);
  const canEdit = useSelector(actor, selectCanEdit);
  const saving = useSelector(actor, selectSaving);

  const save = useCallback(() => actor.send({ type: 'editor.save' }), [actor]);
  const back = useCallback(() => navigate(reportPath), [navigate, reportPath]);

  // Ctrl/Cmd+Enter saves and Escape goes back, from anywhere on the page (an open picker closes first).
  const onKeyDown = (event: KeyboardEvent | ReactKeyboardEvent) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      if (phase === 'editing') save();
    } else if (event.key === 'Escape' && !event.defaultPrevented) {
      const target = event.target as HTMLElement | null;
      if (target?.getAttribute?.('aria-expanded') === 'true') return;
      back();
    }
  };
  useWindowEvent('keydown', (event) => {
    // Keys typed in the page's own controls are handled there (before an open picker closes).
    if (event.target === document.body || event.target === document.documentElement) onKeyDown(event);
  });

  const title = isNew ? 'Add a chart section' : 'Edit section calculation';
  const actions = (
    <>
      {phase !== 'unavailable' && phase !== 'unreadable' && (
        <Button variant="default" component={Link} href={reportPath} leftSection={<IconArrowLeft size={16} />}>
          Cancel
        </Button>
      )}
      {(phase === 'editing' || phase === 'saving' || phase === 'saved') && (
        <Tooltip label={<Text size="xs">Save: <Kbd size="xs">Ctrl</Kbd> + <Kbd size="xs">Enter</Kbd></Text>}>
          <Button leftSection={<IconDeviceFloppy size={16} />} loading={saving} disabled={!canEdit && !saving} onClick={save}>
            Save
          </Button>
        </Tooltip>
      )}
    </>
  );

  return (
    <Box onKeyDown={onKeyDown}>
      <PageHeader
        title={title}
        description={isNew ? 'Chart your own series: choose what each one shows, split it into groups and filter it.' : 'Change the series, groups and filters this chart section calculates.'}
        actions={actions}
      />
      {phase === 'loading' && <EditorSkeleton />}
      {phase === 'loadFailed' && loadError && <RetryAlert message={loadError} onRetry={() => actor.send({ type: 'editor.retry' })} />}
      {phase === 'unavailable' && loadError && <StopNotice color="yellow" message={loadError} reportPath={reportPath} />}
      {phase === 'unreadable' && <StopNotice color="red" message={CONFIG_UNREADABLE} reportPath={reportPath} />}
      {(phase === 'editing' || phase === 'saving' || phase === 'saved') && <EditorForm actor={actor} possibleValues={possibleValues} />}
    </Box>
  );
}

/** The form and the preview beside it (below it on narrow screens). */
function EditorForm({ actor, possibleValues }: { actor: SectionEditorActorRef; possibleValues: PossibleValuesFetcher }) {
  const draft = useSelector(actor, selectDraft);
  const catalogue = useSelector(actor, selectCatalogue);
  const errors = useSelector(actor, selectErrors, sameErrors);
  const preview = useSelector(actor, selectPreview);
  const resolution = useSelector(actor, selectResolution);
  const isNew = useSelector(actor, selectIsNew);
  const canEdit = useSelector(actor, selectCanEdit);
  const onEdit = useCallback((edit: DraftEdit) => actor.send({ type: 'editor.edit', edit }), [actor]);
  const retryPreview = useCallback(() => actor.send({ type: 'editor.retryPreview' }), [actor]);
  if (!catalogue) return null;
  const disabled = !canEdit;

  return (
    <Grid gap="xl">
      {/* Beside the form on wide screens; above it otherwise, where an edit's effect shows. */}
      <Grid.Col span={{ base: 12, lg: 7 }} order={{ base: 2, lg: 1 }}>
        <form aria-label="Section calculation" noValidate onSubmit={(event) => event.preventDefault()}>
          <Stack gap="lg">
            <FailureAlert messages={errors.form} title="The section was not saved" />
            {isNew && (
              <Card padding="lg">
                <TextInput
                  label="Title"
                  description="Shown above the chart in the report"
                  placeholder={titleOf({ ...draft, title: '' }) || 'Custom chart'}
                  value={draft.title}
                  onChange={(event) => onEdit({ kind: 'title', title: event.currentTarget.value })}
                  disabled={disabled}
                  error={errors.fields['/title']}
                />
              </Card>
            )}
            <Card padding="lg" role="group" aria-label="Section splits">
              <Stack gap="sm">
                <Stack gap={2}>
                  <Title order={2} size="h4">
                    Split every series
                  </Title>
                  <Text size="sm" c="dimmed">
                    Splits here apply to each series, on top of its own.
                  </Text>
                </Stack>
                <GroupList
                  owner={null}
                  groups={draft.groups}
                  catalogue={catalogue}
                  objects={fieldObjectsOf(null)}
                  errors={errors.fields}
                  disabled={disabled}
                  emptyText="No split for the whole section."
                  onEdit={onEdit}
                />
              </Stack>
            </Card>

            <Group justify="space-between" align="flex-end">
              <Group gap="xs">
                <Title order={2} size="h4">
                  Series
                </Title>
                <Badge variant="light" color="gray">
                  {draft.series.length} of {MAX_SERIES}
                </Badge>
              </Group>
              <Button variant="light" leftSection={<IconPlus size={16} />} disabled={disabled || draft.series.length >= MAX_SERIES} onClick={() => onEdit({ kind: 'addSeries' })}>
                Add series
              </Button>
            </Group>
            {errors.fields['/series'] && (
              <Text size="sm" c="red" role="alert">
                {errors.fields['/series']}
              </Text>
            )}
            {draft.series.map((series, index) => (
              <SeriesCard
                key={series.key}
                index={index}
                count={draft.series.length}
                series={series}
                catalogue={catalogue}
                errors={errors.fields}
                disabled={disabled}
                onEdit={onEdit}
                possibleValues={possibleValues}
              />
            ))}
          </Stack>
        </form>
      </Grid.Col>
      <Grid.Col span={{ base: 12, lg: 5 }} order={{ base: 1, lg: 2 }}>
        <Box pos={{ base: 'static', lg: 'sticky' }} top={88}>
          <PreviewPanel view={preview} resolution={resolution} onRetry={retryPreview} />
        </Box>
      </Grid.Col>
    </Grid>
  );
}

/** Why the form is not shown, with the way back. */
function StopNotice({ color, message, reportPath }: { color: 'red' | 'yellow'; message: string; reportPath: string }) {
  return (
    <Alert color={color} variant="light" icon={<IconAlertTriangle size={18} />} role="alert" maw={720}>
      <Stack gap="sm" align="flex-start">
        <Text size="sm">{message}</Text>
        <Button variant="default" size="xs" component={Link} href={reportPath} leftSection={<IconArrowLeft size={14} />}>
          Back to report
        </Button>
      </Stack>
    </Alert>
  );
}

/** The shape of the form while the catalogue and the report load. */
function EditorSkeleton() {
  return (
    <Grid gap="xl" aria-busy="true" aria-label="Loading section editor">
      <Grid.Col span={{ base: 12, lg: 7 }}>
        <Stack gap="lg">
          <Card padding="lg">
            <Skeleton height={14} width="30%" mb="sm" />
            <Skeleton height={36} />
          </Card>
          <Card padding="lg">
            <Skeleton height={18} width="25%" mb="lg" />
            <Group grow mb="md">
              <Skeleton height={36} />
              <Skeleton height={36} />
            </Group>
            <Skeleton height={36} width="50%" mb="md" />
            <Skeleton height={14} width="40%" />
          </Card>
        </Stack>
      </Grid.Col>
      <Grid.Col span={{ base: 12, lg: 5 }}>
        <Card padding="lg">
          <Skeleton height={18} width="30%" mb="lg" />
          <Skeleton height={400} radius="md" />
        </Card>
      </Grid.Col>
    </Grid>
  );
}
