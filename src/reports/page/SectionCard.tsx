import { Card, Group, Loader, Select, Skeleton, Text, Title } from '@mantine/core';
import { memo, useCallback, useEffect, useRef, useState } from 'react';
import { CHART_HEIGHT_PX } from '../../../models/constants';
import { SectionChart, SectionErrorBoundary, segmentToShow } from '../charts';
import type { ReportSection } from './reportApi';

/**
 * How far outside the viewport a section starts drawing its chart: one viewport height above
 * and below, so scrolling at reading speed finds charts drawn, while a 20-section report draws
 * only the few around the reader (ApexCharts costs some 50-100 ms of main thread per chart).
 */
export const SECTION_MOUNT_MARGIN = '100% 0px';

/**
 * True once the element has come within `SECTION_MOUNT_MARGIN` of the viewport (and stays
 * true: a drawn chart is not torn down when scrolled away). Without IntersectionObserver
 * (jsdom, very old browsers) everything counts as near.
 */
function useNearViewport<T extends Element>(): [(element: T | null) => void, boolean] {
  const [near, setNear] = useState(() => typeof IntersectionObserver === 'undefined');
  const observer = useRef<IntersectionObserver | null>(null);
  const ref = useCallback((element: T | null) => {
    observer.current?.disconnect();
    observer.current = null;
    if (!element || typeof IntersectionObserver === 'undefined') return;
    observer.current = new IntersectionObserver(
      (entries) => {
        if (entries.some((entry) => entry.isIntersecting)) {
          setNear(true);
          observer.current?.disconnect();
          observer.current = null;
        }
      },
      { rootMargin: SECTION_MOUNT_MARGIN },
    );
    observer.current.observe(element);
  }, []);
  useEffect(() => () => observer.current?.disconnect(), []);
  return [ref, near];
}

interface SectionCardProps {
  section: ReportSection;
  displayQuarters: boolean;
  /** A spinner until the section's update arrives (the recalculation machine's pending sections). */
  recalculating: boolean;
}

/**
 * One section of the report page: its title, a spinner while it recalculates, a segment
 * switcher when it has several, and its chart, drawn once the card nears the viewport (a
 * skeleton of the chart's height holds the place until then, so anchors and scrolling stay
 * put). `data-chart-state` says 'pending' until the chart, table or empty state is on screen,
 * then 'drawn' (the report bench and e2e tests wait on it).
 */
export const SectionCard = memo(function SectionCard({ section, displayQuarters, recalculating }: SectionCardProps) {
  const [ref, near] = useNearViewport<HTMLElement>();
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
      <Group justify="space-between" mb="sm" wrap="nowrap">
        <Title order={2} size="h4">
          {section.title}
        </Title>
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
        </Group>
      </Group>
      {failed ? (
        <Text c="red" size="sm">
          This section could not be calculated: {section.error}
        </Text>
      ) : near ? (
        <SectionErrorBoundary>
          <SectionChart section={section} displayQuarters={displayQuarters} onDrawn={onDrawn} {...(chosen ? { segmentId: chosen } : {})} />
        </SectionErrorBoundary>
      ) : (
        <Skeleton height={CHART_HEIGHT_PX} radius="md" />
      )}
    </Card>
  );
});
