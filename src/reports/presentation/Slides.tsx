import { Badge, Center, Paper, SimpleGrid, Skeleton, Stack, Text, Title } from '@mantine/core';
import { memo } from 'react';
import type { ReactNode } from 'react';
import { CHART_ASPECT_RATIO, SLIDE_CHART_HEIGHT_PX } from '../../../models/constants';
import { periodLabel } from '../../../models/reportRange';
import { SectionErrorBoundary } from '../../components/ErrorBoundary';
import { SectionChart } from '../charts/SectionChart';
import { useKeyNumbers } from '../keyNumbers/KeyNumbersContext';
import { shownKeyNumber } from '../keyNumbers/KeyNumbersStrip';
import { keyOf } from '../keyNumbers/keyNumbersApi';
import type { ReportSection, ReportView } from '../page/reportApi';

/** A slide's chart is sized by width (height = width / aspect ratio): this width draws it at the slide height. */
export const SLIDE_CHART_WIDTH_PX = Math.round(SLIDE_CHART_HEIGHT_PX * CHART_ASPECT_RATIO);


interface SlideFrameProps {
  /** Position (0 = first) and how many slides there are. */
  index: number;
  total: number;
  id: string;
  shown: boolean;
  children: ReactNode;
}

/**
 * One slide: the whole stage, scrolling on its own when its content is taller than the
 * window (nothing is cut). Slides not shown are laid out but invisible (`visibility: hidden`),
 * so a chart mounted ahead of time measures and draws at its real size.
 */
export function SlideFrame({ index, total, id, shown, children }: SlideFrameProps) {
  return (
    <section
      role="group"
      aria-roledescription="slide"
      aria-label={`Slide ${index + 1} of ${total}`}
      aria-current={shown ? 'true' : undefined}
      aria-hidden={shown ? undefined : true}
      data-slide-index={index}
      data-slide-id={id}
      style={{ position: 'absolute', inset: 0, overflow: 'auto', visibility: shown ? 'visible' : 'hidden' }}
    >
      <Center mih="100%" px="xl" py="md">
        {children}
      </Center>
    </section>
  );
}

/** The key numbers as the page's strip shows them, read only and larger. */
function SlideKeyNumbers({ sections, currency }: { sections: readonly ReportSection[]; currency: string }) {
  const state = useKeyNumbers();
  if (!state || state.failed || state.items?.length === 0) return null;
  if (!state.items) return <Skeleton height={96} radius="md" aria-label="Loading key numbers" />;
  const byId = new Map(sections.map((section) => [section.id, section]));
  return (
    <SimpleGrid role="region" aria-label="Key numbers" cols={{ base: 2, md: Math.min(state.items.length, 4) }} spacing="md" w="100%">
      {state.items.map((item) => {
        const shown = shownKeyNumber(item, byId.get(item.section_id), currency);
        return (
          <Paper key={keyOf(item)} withBorder radius="md" p="lg" role="group" aria-label={shown.title}>
            <Stack gap={4} miw={0}>
              <Text c="dimmed" truncate="end">
                {shown.title}
              </Text>
              <Text fz={32} fw={700} lh={1.2} data-testid="key-number-value">
                {shown.value}
              </Text>
              {shown.period && (
                <Text size="sm" c="dimmed">
                  {shown.period}
                </Text>
              )}
            </Stack>
          </Paper>
        );
      })}
    </SimpleGrid>
  );
}

/** The first slide: the report's title, range, summary and key numbers. */
export function TitleSlide({ report, sections, scope = null }: { report: ReportView; sections: readonly ReportSection[]; scope?: string | null }) {
  return (
    <Stack gap="xl" align="center" ta="center" w="100%" maw={SLIDE_CHART_WIDTH_PX}>
      <Stack gap="xs" align="center">
        <Title order={1} fz={48} lh={1.15}>
          {report.title || 'Untitled report'}
        </Title>
        <Text fz="xl" c="dimmed">
          {periodLabel(report.period)}
        </Text>
        {scope && (
          <Badge size="lg" variant="light">
            {scope}
          </Badge>
        )}
      </Stack>
      {report.summary && (
        <Text fz="lg" maw={760} style={{ whiteSpace: 'pre-wrap' }}>
          {report.summary}
        </Text>
      )}
      <SlideKeyNumbers sections={sections} currency={report.currency} />
    </Stack>
  );
}

interface SectionSlideProps {
  section: ReportSection;
  displayQuarters: boolean;
  /** Draw the chart now (the slide shown and its neighbours); a placeholder of its size until then. */
  drawChart: boolean;
}

/** A section's slide: its title and description, and its chart at the slide height. */
export const SectionSlide = memo(function SectionSlide({ section, displayQuarters, drawChart }: SectionSlideProps) {
  const failed = section.recalculation_status === 'failed' && section.error;
  return (
    <Stack gap="sm" w={SLIDE_CHART_WIDTH_PX} maw="100%">
      <Stack gap={4}>
        <Title order={2} fz={28} lh={1.2}>
          {section.title}
        </Title>
        {section.summary && (
          <Text fz="md" c="dimmed" style={{ whiteSpace: 'pre-wrap' }}>
            {section.summary}
          </Text>
        )}
      </Stack>
      {failed ? (
        <Text c="red">This section could not be calculated: {section.error}</Text>
      ) : drawChart ? (
        <SectionErrorBoundary resetKey={section}>
          <div data-slide-chart>
            <SectionChart section={section} displayQuarters={displayQuarters} width={SLIDE_CHART_WIDTH_PX} />
          </div>
        </SectionErrorBoundary>
      ) : (
        <Skeleton height={SLIDE_CHART_HEIGHT_PX} radius="md" data-testid="slide-chart-placeholder" />
      )}
    </Stack>
  );
});
