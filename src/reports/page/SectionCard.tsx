import { Card, Group, Loader, Select, Skeleton, Stack, Text, Title } from '@mantine/core';
import { memo, useCallback, useEffect, useRef, useState } from 'react';
import { CHART_HEIGHT_PX } from '../../../models/constants';
import { SectionChart } from '../charts/SectionChart';
import { SectionErrorBoundary } from '../../components/ErrorBoundary';
import { segmentToShow } from '../charts/sectionModel';
import { useSectionPointClick } from '../details/SectionDetailsProvider';
import type { ReportSection } from './reportApi';
import { EditableText } from './EditableText';
import { SectionEditor, type SectionActions } from './sections/SectionEditor';
import type { SectionDefinition } from './sections/sectionsApi';

/**
 * How far outside the viewport a section prepares its chart: one viewport height above and
 * below, so scrolling at reading speed finds charts drawn, while a 20-section report draws
 * only the few around the reader (ApexCharts costs some 50-150 ms of main thread per chart).
 */
export const SECTION_MOUNT_MARGIN = '100% 0px';

/** How long a section just outside the viewport waits for an idle moment before drawing anyway. */
const NEAR_SECTION_IDLE_TIMEOUT_MS = 1_500;

/** Within the viewport itself (the entry's `rootBounds` is the viewport grown by the margin). */
const onScreen = (entry: IntersectionObserverEntry) => entry.boundingClientRect.top < window.innerHeight && entry.boundingClientRect.bottom > 0;

/** Runs `work` when the browser is idle (or after the timeout). */
function onIdle(work: () => void, timeout: number): void {
  if (typeof window.requestIdleCallback === 'function') window.requestIdleCallback(work, { timeout });
  else window.setTimeout(work, 50);
}

/**
 * Sections waiting to draw until the browser is idle, drawn one per idle moment in the order
 * they came near: several charts drawn in one go would hold the main thread for as long.
 */
const waitingToDraw: (() => void)[] = [];
let idleScheduled = false;

function drawNextWhenIdle(): void {
  if (idleScheduled || waitingToDraw.length === 0) return;
  idleScheduled = true;
  onIdle(() => {
    idleScheduled = false;
    waitingToDraw.shift()?.();
    drawNextWhenIdle();
  }, NEAR_SECTION_IDLE_TIMEOUT_MS);
}

/** Queues `draw` for an idle moment; returns a cancel. */
function whenIdle(draw: () => void): () => void {
  waitingToDraw.push(draw);
  drawNextWhenIdle();
  return () => {
    const index = waitingToDraw.indexOf(draw);
    if (index >= 0) waitingToDraw.splice(index, 1);
  };
}

/**
 * True once the element should draw: at once when it is on screen; when the browser is idle
 * when it is only within `SECTION_MOUNT_MARGIN` (so the charts the reader sees draw first).
 * It stays true: a drawn chart is not torn down when scrolled away. Without
 * IntersectionObserver (jsdom, very old browsers) everything draws at once.
 */
function useNearViewport<T extends Element>(): [(element: T | null) => void, boolean] {
  const [near, setNear] = useState(() => typeof IntersectionObserver === 'undefined');
  const observer = useRef<IntersectionObserver | null>(null);
  const cancelIdle = useRef<(() => void) | null>(null);
  const stop = useCallback(() => {
    observer.current?.disconnect();
    observer.current = null;
    cancelIdle.current?.();
    cancelIdle.current = null;
  }, []);
  const ref = useCallback(
    (element: T | null) => {
      stop();
      if (!element || typeof IntersectionObserver === 'undefined') return;
      observer.current = new IntersectionObserver(
        (entries) => {
          const entry = entries.find((candidate) => candidate.isIntersecting);
          if (!entry) {
            cancelIdle.current?.();
            cancelIdle.current = null;
            return;
          }
          if (onScreen(entry)) {
            stop();
            setNear(true);
          } else {
            cancelIdle.current ??= whenIdle(() => {
              stop();
              setNear(true);
            });
          }
        },
        { rootMargin: SECTION_MOUNT_MARGIN, threshold: [0, 0.01] },
      );
      observer.current.observe(element);
    },
    [stop],
  );
  useEffect(() => stop, [stop]);
  return [ref, near];
}

interface SectionCardProps {
  section: ReportSection;
  displayQuarters: boolean;
  /** A spinner until the section's update arrives (the recalculation machine's pending sections). */
  recalculating: boolean;
  /** Editing (the report's editors): the menu, and the title and description edited in place. */
  canEdit?: boolean;
  /** First or last on the page (moving up or down is disabled there). */
  first?: boolean;
  last?: boolean;
  definition?: SectionDefinition | undefined;
  /** A custom section's editor page (its menu's 'Edit calculation'); undefined for the catalogue's charts. */
  calculationHref?: string | undefined;
  actions?: SectionActions;
}

/**
 * One section of the report page: its title, a spinner while it recalculates, a segment
 * switcher when it has several, and its chart, drawn once the card nears the viewport (a
 * skeleton of the chart's height holds the place until then, so anchors and scrolling stay
 * put). `data-chart-state` says 'pending' until the chart, table or empty state is on screen,
 * then 'drawn' (the report bench and e2e tests wait on it).
 */
export const SectionCard = memo(function SectionCard({ section, displayQuarters, recalculating, canEdit = false, first = false, last = false, definition, calculationHref, actions }: SectionCardProps) {
  const [ref, near] = useNearViewport<HTMLElement>();
  const onPointClick = useSectionPointClick();
  const [drawn, setDrawn] = useState(false);
  const onDrawn = useCallback(() => setDrawn(true), []);
  const [segmentId, setSegmentId] = useState<string | null>(null);
  const failed = section.recalculation_status === 'failed' && section.error;
  const segments = section.segments;
  const chosen = segmentId !== null && segments.some((segment) => segment.id === segmentId) ? segmentId : undefined;

  useEffect(() => {
    if (failed) setDrawn(true);
  }, [failed]);

  return (
    <Card ref={ref} withBorder radius="md" padding="lg" id={`section-${section.id}`} component="section" aria-label={section.title} data-chart-state={drawn ? 'drawn' : 'pending'}>
      <Group justify="space-between" mb="sm" wrap="nowrap" align="flex-start">
        <Stack gap={2} style={{ flex: 1, minWidth: 0 }}>
          <EditableText value={section.title} placeholder="Untitled chart" label="Section title" editable={canEdit && !!actions} onSave={(title) => actions?.saveText(section.id, { title }) ?? Promise.resolve()}>
            {(title) => (
              <Title order={2} size="h4">
                {title}
              </Title>
            )}
          </EditableText>
          <EditableText value={section.summary} placeholder="Add a description" label="Section description" editable={canEdit && !!actions} multiline onSave={(summary) => actions?.saveText(section.id, { summary }) ?? Promise.resolve()}>
            {(summary) =>
              summary ? (
                <Text size="sm" c="dimmed" style={{ whiteSpace: 'pre-wrap' }}>
                  {summary}
                </Text>
              ) : null
            }
          </EditableText>
        </Stack>
        <Group gap="xs" wrap="nowrap">
          {segments.length > 1 && section.data_type !== 'cohort' && (
            <Select
              aria-label={`Segment of ${section.title}`}
              size="xs"
              w={180}
              allowDeselect={false}
              data={segments.map((segment) => ({ value: segment.id, label: segment.name }))}
              value={segmentToShow(section, chosen).segment?.id ?? null}
              onChange={(value) => value && setSegmentId(value)}
            />
          )}
          {recalculating && <Loader size="sm" aria-label={`Recalculating ${section.title}`} />}
          {canEdit && actions && <SectionEditor section={section} segmentId={chosen} first={first} last={last} definition={definition} calculationHref={calculationHref} actions={actions} />}
        </Group>
      </Group>
      {failed ? (
        <Text c="red" size="sm">
          This section could not be calculated: {section.error}
        </Text>
      ) : near ? (
        <SectionErrorBoundary>
          <SectionChart section={section} displayQuarters={displayQuarters} onDrawn={onDrawn} onPointClick={onPointClick} {...(chosen ? { segmentId: chosen } : {})} />
        </SectionErrorBoundary>
      ) : (
        <Skeleton height={CHART_HEIGHT_PX} radius="md" />
      )}
    </Card>
  );
});
