import { ActionIcon, Group, Loader, Modal, Paper, Select, Stack, Text, Tooltip } from '@mantine/core';
import { IconChevronDown, IconChevronRight, IconTrash } from '@tabler/icons-react';
import { useState } from 'react';
import type { ReportSection } from '../reportApi';
import type { SectionDefinition } from './sectionsApi';

interface SectionSegmentsModalProps {
  opened: boolean;
  onClose(): void;
  section: ReportSection;
  /** Its definition (the segmenters it accepts); undefined when the definitions could not be fetched. */
  definition: SectionDefinition | undefined;
  onAdd(segmentId: string): Promise<void>;
  onRemove(segmentId: string): Promise<void>;
  /** The values a segment groups (GET …/segments/{segmentId}). */
  onExpand(segmentId: string): Promise<string[]>;
}

/** The segments a section is split by: each can be expanded (the values it groups) or removed; others of its definition added. */
export function SectionSegmentsModal({ opened, onClose, section, definition, onAdd, onRemove, onExpand }: SectionSegmentsModalProps) {
  const [busy, setBusy] = useState<string | null>(null);
  const names = new Map((definition?.segmenters ?? []).map((segmenter) => [segmenter.id, segmenter.name]));
  for (const segment of section.segments) if (!names.has(segment.id)) names.set(segment.id, segment.name);
  const current = section.segment_ids.filter((id) => id !== 'total');
  const addable = (definition?.segmenters ?? []).filter((segmenter) => !segmenter.is_total && !current.includes(segmenter.id));

  const run = async (key: string, work: () => Promise<void>) => {
    setBusy(key);
    try {
      await work();
    } catch {
      // The page said why.
    } finally {
      setBusy(null);
    }
  };

  return (
    <Modal opened={opened} onClose={onClose} title={`Segments: ${section.title}`}>
      <Stack gap="md">
        {current.length === 0 ? (
          <Text c="dimmed" size="sm">
            This chart shows the total only. Add a segment to split it.
          </Text>
        ) : (
          <Stack gap="xs" role="list" aria-label="Segments">
            {current.map((id) => (
              <SegmentRow key={id} name={names.get(id) ?? id} removing={busy === `remove:${id}`} onRemove={() => void run(`remove:${id}`, () => onRemove(id))} onExpand={() => onExpand(id)} />
            ))}
          </Stack>
        )}
        <Select
          label="Add segment"
          placeholder={definition ? (addable.length > 0 ? 'Start typing segment name' : 'No more segments for this chart') : 'Segments could not be fetched'}
          data={[...new Set(addable.map((segmenter) => segmenter.group_label))].map((group) => ({
            group,
            items: addable.filter((segmenter) => segmenter.group_label === group).map((segmenter) => ({ value: segmenter.id, label: segmenter.name })),
          }))}
          searchable
          nothingFoundMessage="No results"
          value={null}
          disabled={addable.length === 0 || busy !== null}
          rightSection={busy === 'add' ? <Loader size="xs" /> : undefined}
          onChange={(value) => value && void run('add', () => onAdd(value))}
        />
      </Stack>
    </Modal>
  );
}

function SegmentRow({ name, removing, onRemove, onExpand }: { name: string; removing: boolean; onRemove(): void; onExpand(): Promise<string[]> }) {
  const [values, setValues] = useState<string[] | null | 'loading' | 'failed'>(null);
  const expanded = values !== null;
  const toggle = async () => {
    if (expanded) {
      setValues(null);
      return;
    }
    setValues('loading');
    try {
      setValues(await onExpand());
    } catch {
      setValues('failed');
    }
  };
  return (
    <Paper withBorder p="xs" radius="sm" role="listitem" aria-label={name}>
      <Group justify="space-between" wrap="nowrap">
        <Group gap={4} wrap="nowrap">
          <ActionIcon variant="subtle" color="gray" size="sm" aria-label={`${expanded ? 'Collapse' : 'Expand'} segment ${name}`} aria-expanded={expanded} onClick={() => void toggle()}>
            {expanded ? <IconChevronDown size={14} /> : <IconChevronRight size={14} />}
          </ActionIcon>
          <Text size="sm">{name}</Text>
        </Group>
        <Tooltip label="Remove segment">
          <ActionIcon variant="subtle" color="red" aria-label={`Remove segment ${name}`} loading={removing} onClick={onRemove}>
            <IconTrash size={16} />
          </ActionIcon>
        </Tooltip>
      </Group>
      {values === 'loading' && <Loader size="xs" ml="xl" aria-label={`Loading values of ${name}`} />}
      {values === 'failed' && (
        <Text size="xs" c="red" ml="xl">
          We could not list the values of this segment
        </Text>
      )}
      {Array.isArray(values) && (
        <Text size="xs" c="dimmed" ml="xl">
          {values.length > 0 ? values.join(', ') : 'No values yet: the chart has not been calculated with this segment'}
        </Text>
      )}
    </Paper>
  );
}
