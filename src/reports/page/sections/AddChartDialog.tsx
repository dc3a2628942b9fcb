import { Alert, Badge, Button, Checkbox, Group, Modal, ScrollArea, Skeleton, Stack, Text, TextInput, ThemeIcon, Title } from '@mantine/core';
import { IconChartDots3, IconChevronRight, IconSearch } from '@tabler/icons-react';
import { useMemo, useState } from 'react';
import { Link } from 'wouter';
import classes from './AddChartDialog.module.css';
import { DEFINITIONS_FAILURE, type SectionDefinition, type Segmenter } from './sectionsApi';

/** The metric search filters only past this many characters (spec: more than 2). */
export const METRIC_SEARCH_MIN_LENGTH = 3;
/** A segment list shows this many, then '{n} more, start typing segment name'. */
export const SEGMENT_LIST_LIMIT = 10;

/** Definitions are grouped by what they are computed from. */
const GROUPS: { underlying: string; label: string }[] = [
  { underlying: 'subscriptions', label: 'Revenue and customers' },
  { underlying: 'costs', label: 'Costs' },
  { underlying: 'deals', label: 'Deals' },
];

export interface ChartChoice {
  definitionId: string;
  segmentIds: string[];
}

interface AddChartDialogProps {
  opened: boolean;
  onClose(): void;
  /** null while loading; 'failed' when they could not be fetched. */
  definitions: SectionDefinition[] | null | 'failed';
  /** Adds the chosen charts (the dialog closes when it settles). */
  onAdd(choices: ChartChoice[]): Promise<void>;
  /** The custom section editor's page (a new section of this report); left out, the dialog offers the catalogue only. */
  customSectionHref?: string | undefined;
}

const matches = (text: string, query: string) => text.toLocaleLowerCase().includes(query.trim().toLocaleLowerCase());

/**
 * 'Add chart': the catalogue's definitions grouped (revenue and customers, costs, deals), each
 * with its segmenters to split it by. 'Start typing metric name' filters once the query is longer
 * than 2 characters; several charts can be added at once (one POST each). Above them, 'Custom
 * section' leads to the section editor, where a chart of the user's own series is built.
 */
export function AddChartDialog({ opened, onClose, definitions, onAdd, customSectionHref }: AddChartDialogProps) {
  const [query, setQuery] = useState('');
  const [chosen, setChosen] = useState<Map<string, string[]>>(new Map());
  const [adding, setAdding] = useState(false);

  const close = () => {
    if (adding) return;
    setQuery('');
    setChosen(new Map());
    onClose();
  };

  const groups = useMemo(() => {
    if (!Array.isArray(definitions)) return [];
    const shown = query.trim().length >= METRIC_SEARCH_MIN_LENGTH ? definitions.filter((definition) => matches(definition.name, query)) : definitions;
    const known = new Set(GROUPS.map((group) => group.underlying));
    return [...GROUPS, { underlying: '', label: 'Other charts' }]
      .map((group) => ({ ...group, items: shown.filter((d) => (group.underlying ? d.underlying_data === group.underlying : !known.has(d.underlying_data))) }))
      .filter((group) => group.items.length > 0);
  }, [definitions, query]);

  const toggle = (definitionId: string, on: boolean) =>
    setChosen((current) => {
      const next = new Map(current);
      if (on) next.set(definitionId, []);
      else next.delete(definitionId);
      return next;
    });
  const toggleSegment = (definitionId: string, segmentId: string, on: boolean) =>
    setChosen((current) => {
      const next = new Map(current);
      const segments = next.get(definitionId) ?? [];
      next.set(definitionId, on ? [...segments, segmentId] : segments.filter((id) => id !== segmentId));
      return next;
    });

  const add = async () => {
    setAdding(true);
    try {
      await onAdd([...chosen].map(([definitionId, segmentIds]) => ({ definitionId, segmentIds })));
    } finally {
      setAdding(false);
      setQuery('');
      setChosen(new Map());
      onClose();
    }
  };

  return (
    <Modal opened={opened} onClose={close} title="Add chart" size="lg">
      <Stack gap="md">
        {customSectionHref && <CustomSectionChoice href={customSectionHref} disabled={adding} />}
        <TextInput
          aria-label="Metric name"
          placeholder="Start typing metric name"
          leftSection={<IconSearch size={16} />}
          value={query}
          onChange={(event) => setQuery(event.currentTarget.value)}
          disabled={!Array.isArray(definitions)}
          data-autofocus
        />
        {definitions === 'failed' ? (
          <Alert color="red" variant="light">
            {DEFINITIONS_FAILURE}
          </Alert>
        ) : definitions === null ? (
          <Stack gap="xs" aria-label="Loading charts">
            <Skeleton height={24} />
            <Skeleton height={24} />
            <Skeleton height={24} />
          </Stack>
        ) : groups.length === 0 ? (
          <Text c="dimmed" ta="center" py="md">
            We did not find any matching sections
          </Text>
        ) : (
          <ScrollArea.Autosize mah="60vh" type="auto" offsetScrollbars>
            <Stack gap="lg">
              {groups.map((group) => (
                <Stack key={group.label} gap="xs" role="group" aria-label={group.label}>
                  <Title order={3} size="h5">
                    {group.label}
                  </Title>
                  {group.items.map((definition) => (
                    <DefinitionChoice
                      key={definition.id}
                      definition={definition}
                      segmentIds={chosen.get(definition.id)}
                      onToggle={(on) => toggle(definition.id, on)}
                      onToggleSegment={(segmentId, on) => toggleSegment(definition.id, segmentId, on)}
                    />
                  ))}
                </Stack>
              ))}
            </Stack>
          </ScrollArea.Autosize>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={close} disabled={adding}>
            Cancel
          </Button>
          <Button onClick={() => void add()} disabled={chosen.size === 0} loading={adding}>
            {chosen.size > 1 ? `Add ${chosen.size} charts` : 'Add chart'}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

/** 'Custom section': a link to the section editor, where a chart of the user's own series, groups and filters is built. */
function CustomSectionChoice({ href, disabled }: { href: string; disabled: boolean }) {
  return (
    <Link href={href} className={classes.customSection} aria-disabled={disabled || undefined} onClick={(event) => disabled && event.preventDefault()}>
      <ThemeIcon variant="light" size={36} radius="md" aria-hidden>
        <IconChartDots3 size={20} />
      </ThemeIcon>
      <div className={classes.customSectionText}>
        <Text size="sm" fw={600}>
          Custom section
        </Text>
        <Text size="xs" c="dimmed">
          Build a chart of your own series, groups and filters
        </Text>
      </div>
      <IconChevronRight size={18} aria-hidden style={{ flexShrink: 0, opacity: 0.6 }} />
    </Link>
  );
}

function DefinitionChoice({
  definition,
  segmentIds,
  onToggle,
  onToggleSegment,
}: {
  definition: SectionDefinition;
  segmentIds: string[] | undefined;
  onToggle(on: boolean): void;
  onToggleSegment(segmentId: string, on: boolean): void;
}) {
  const segmenters = definition.segmenters.filter((segmenter) => !segmenter.is_total);
  return (
    <Stack gap={6}>
      <Checkbox
        label={
          <Group gap="xs">
            <Text size="sm" fw={500}>
              {definition.name}
            </Text>
            {!definition.available && (
              <Badge size="xs" variant="light" color="gray">
                Needs CRM deals
              </Badge>
            )}
          </Group>
        }
        description={definition.description}
        checked={segmentIds !== undefined}
        disabled={!definition.available}
        onChange={(event) => onToggle(event.currentTarget.checked)}
      />
      {segmentIds !== undefined && segmenters.length > 0 && (
        <SegmentList label={`Segments of ${definition.name}`} segmenters={segmenters} selected={segmentIds} onToggle={onToggleSegment} />
      )}
    </Stack>
  );
}

/** A segmenter list: 10 shown, then '{n} more, start typing segment name'; matched by name, case-insensitively. */
export function SegmentList({ label, segmenters, selected, onToggle }: { label: string; segmenters: Segmenter[]; selected: string[]; onToggle(segmentId: string, on: boolean): void }) {
  const [query, setQuery] = useState('');
  const matching = query.trim() ? segmenters.filter((segmenter) => matches(segmenter.name, query)) : segmenters;
  const shown = matching.slice(0, SEGMENT_LIST_LIMIT);
  const more = matching.length - shown.length;
  return (
    <Stack gap={6} pl="xl" role="group" aria-label={label}>
      {segmenters.length > SEGMENT_LIST_LIMIT && (
        <TextInput size="xs" aria-label={`Segment name (${label})`} placeholder="Segment name" value={query} onChange={(event) => setQuery(event.currentTarget.value)} />
      )}
      {shown.map((segmenter) => (
        <Checkbox
          key={segmenter.id}
          size="xs"
          label={segmenter.name}
          description={segmenter.group_label}
          checked={selected.includes(segmenter.id)}
          onChange={(event) => onToggle(segmenter.id, event.currentTarget.checked)}
        />
      ))}
      {more > 0 && (
        <Text size="xs" c="dimmed">
          {more} more, start typing segment name
        </Text>
      )}
      {matching.length === 0 && (
        <Text size="xs" c="dimmed">
          No results
        </Text>
      )}
    </Stack>
  );
}
