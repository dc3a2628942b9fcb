import { Alert, Badge, Box, Button, Card, Group, Loader, Select, Skeleton, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import { IconAlertCircle, IconChartLine, IconRefresh } from '@tabler/icons-react';
import { useElementSize } from '@mantine/hooks';
import { useMemo, useState } from 'react';
import { CHART_HEIGHT_PX } from '../../../models/constants';
import type { PreviewView } from '../../../machines/sectionEditor/selectors';
import { SectionErrorBoundary } from '../../components/ErrorBoundary';
import { SectionChart } from '../charts/SectionChart';
import { segmentToShow } from '../charts/sectionModel';
import { previewSection } from './previewSection';

const RESOLUTION_WORDS: Record<string, string> = { week: 'By week', month: 'By month', quarter: 'By quarter', year: 'By year' };

/** Room an x-axis label takes ('2026-03'), so a narrow chart's labels do not overlap. */
const X_LABEL_ROOM_PX = 80;

/** The chart's height (the report's charts' own: SectionChart fills the panel's width). */
const PREVIEW_CHART_HEIGHT = CHART_HEIGHT_PX;

interface PreviewPanelProps {
  view: PreviewView;
  resolution: string;
  onRetry(): void;
}

/**
 * The live preview: the section's chart as the report will show it, over the report's range.
 * A skeleton until the first chart; the last chart stays (dimmed) while the next one is on its
 * way, and while the form has problems to fix.
 */
export function PreviewPanel({ view, resolution, onRetry }: PreviewPanelProps) {
  const busy = view.status === 'waiting' || view.status === 'loading';
  return (
    <Card component="section" aria-labelledby="section-preview-title" aria-busy={busy}>
      <Stack gap="md">
        <Group justify="space-between" gap="xs" wrap="nowrap">
          <Group gap="xs" wrap="nowrap">
            <Title order={2} size="h4" id="section-preview-title">
              Preview
            </Title>
            <Badge variant="light" color="gray" size="sm">
              {RESOLUTION_WORDS[resolution] ?? resolution}
            </Badge>
          </Group>
          {busy && (
            <Group gap={6} wrap="nowrap" c="dimmed">
              <Loader size={14} aria-hidden />
              <Text size="xs">Updating…</Text>
            </Group>
          )}
        </Group>
        <PreviewBody view={view} resolution={resolution} onRetry={onRetry} />
      </Stack>
    </Card>
  );
}

function PreviewBody({ view, resolution, onRetry }: PreviewPanelProps) {
  if (view.status === 'failed') {
    return (
      <Stack gap="md">
        <Alert color="red" variant="light" icon={<IconAlertCircle size={18} />} title="The preview could not be calculated" role="alert">
          <Stack gap={4}>
            {view.errors.map((message) => (
              <Text key={message} size="sm">
                {message}
              </Text>
            ))}
          </Stack>
          <Button display="block" mt="xs" variant="default" size="xs" leftSection={<IconRefresh size={14} />} onClick={onRetry}>
            Try again
          </Button>
        </Alert>
        {view.preview && <PreviewChart view={view} resolution={resolution} dimmed />}
      </Stack>
    );
  }
  if (!view.preview) {
    if (view.status === 'idle') return <PreviewEmpty />;
    return <Skeleton height={PREVIEW_CHART_HEIGHT} radius="md" aria-label="Loading preview" />;
  }
  return (
    <Stack gap="xs">
      {view.status === 'idle' && (
        <Text size="sm" c="dimmed">
          The preview is paused until the form is complete.
        </Text>
      )}
      <PreviewChart view={view} resolution={resolution} dimmed={view.status !== 'shown'} />
    </Stack>
  );
}

function PreviewEmpty() {
  return (
    <Stack align="center" justify="center" gap="xs" mih={PREVIEW_CHART_HEIGHT} ta="center" px="md">
      <ThemeIcon size={44} radius="xl" variant="light" color="gray" aria-hidden>
        <IconChartLine size={24} stroke={1.6} />
      </ThemeIcon>
      <Text fw={500}>No preview yet</Text>
      <Text size="sm" c="dimmed" maw={320}>
        The chart appears here once every series has a name and a value, and every filter a field and a value.
      </Text>
    </Stack>
  );
}

function PreviewChart({ view, resolution, dimmed }: { view: PreviewView; resolution: string; dimmed: boolean }) {
  const section = useMemo(() => (view.preview ? previewSection(view.preview, resolution) : null), [view.preview, resolution]);
  const [chosen, setChosen] = useState<string | null>(null);
  const { ref, width } = useElementSize();
  if (!section) return null;
  const segmentIds = section.segments.map((segment) => segment.id);
  // The segment picked, while the preview still has it; else the one the report's card starts on (the first split).
  const segmentId = chosen !== null && segmentIds.includes(chosen) ? chosen : (segmentToShow(section).segment?.id ?? segmentIds[0]);
  return (
    <Stack gap="xs" data-testid="section-preview-chart" data-dimmed={dimmed || undefined}>
      {section.segments.length > 1 && (
        <Select
          label="Segment"
          size="xs"
          maw={260}
          data={section.segments.map((segment) => ({ value: segment.id, label: segment.name }))}
          value={segmentId ?? null}
          allowDeselect={false}
          onChange={setChosen}
        />
      )}
      <Box ref={ref} style={{ opacity: dimmed ? 0.55 : 1, transition: 'opacity 150ms ease' }}>
        <SectionErrorBoundary resetKey={section}>
          <SectionChart section={section} segmentId={segmentId} maxXLabels={width > 0 ? Math.max(2, Math.floor(width / X_LABEL_ROOM_PX)) : undefined} />
        </SectionErrorBoundary>
      </Box>
    </Stack>
  );
}
