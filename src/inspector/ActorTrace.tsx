import { Badge, Button, Code, Group, ScrollArea, Slider, Stack, Table, Text, Title, UnstyledButton } from '@mantine/core';
import { IconChevronLeft, IconChevronRight, IconDownload } from '@tabler/icons-react';
import { useEffect, useRef } from 'react';
import { AuditLogSection } from './AuditLogSection';
import { SyncLogSection } from './SyncLogSection';
import { eventPayload, formatClock, formatDateTime, formatJson, stateLabel } from './format';
import classes from './InspectorPanel.module.css';
import { JsonToggle } from './JsonToggle';
import type { InspectedActor, InspectorRegistry } from './registry';

interface ActorTraceProps {
  actor: InspectedActor;
  /** The snapshot shown: an index into `actor.trace`. */
  position: number;
  onStep: (position: number) => void;
  onExport: () => void;
  registry: InspectorRegistry;
}

const STATUS_COLORS: Record<string, string> = { active: 'green', done: 'blue', error: 'red', stopped: 'gray' };

/**
 * One actor's recorded history: the snapshot at `position` (state value, context), the
 * stepping controls, the timestamped event log and, for an import, the server's audit log.
 * Stepping only changes what is shown; nothing is ever sent to the live actor.
 */
export function ActorTrace({ actor, position, onStep, onExport, registry }: ActorTraceProps) {
  const { trace } = actor;
  const last = trace.length - 1;
  const entry = trace[position];
  const latest = position === last;
  const currentRow = useRef<HTMLTableRowElement>(null);

  useEffect(() => {
    currentRow.current?.scrollIntoView({ block: 'nearest' });
  }, [position, actor.id]);

  const stepLabel = entry ? `Snapshot ${position + 1} of ${trace.length}` : 'No snapshots';

  return (
    <Stack gap="md">
      <Group justify="space-between" align="flex-start" wrap="nowrap">
        <div>
          <Title order={3} size="h4">
            {actor.id}
          </Title>
          <Text size="xs" c="dimmed">
            Started {formatDateTime(actor.startedAt)} · {trace.length} snapshot{trace.length === 1 ? '' : 's'}
            {actor.dropped ? ` (${actor.dropped} earlier dropped)` : ''}
            {actor.importId ? ` · import ${actor.importId}` : ''}
            {actor.integration ? ` · integration ${actor.integration}` : ''}
          </Text>
        </div>
        <Button size="compact-sm" variant="default" leftSection={<IconDownload size={14} />} onClick={onExport}>
          Export trace
        </Button>
      </Group>

      <Stack gap={6} component="section" aria-label="Step through the snapshots">
        <Group justify="space-between" wrap="nowrap" gap="xs">
          <Button
            size="compact-sm"
            variant="default"
            leftSection={<IconChevronLeft size={14} />}
            style={{ flexShrink: 0 }}
            onClick={() => onStep(position - 1)}
            disabled={position <= 0}
          >
            Back
          </Button>
          <Text size="sm" ta="center" aria-live="polite">
            {stepLabel}
            {entry ? ` · ${formatClock(entry.at)} · after ${entry.event.type}` : ''}
          </Text>
          <Button
            size="compact-sm"
            variant="default"
            rightSection={<IconChevronRight size={14} />}
            style={{ flexShrink: 0 }}
            onClick={() => onStep(position + 1)}
            disabled={position >= last}
          >
            Forward
          </Button>
        </Group>
        {trace.length > 1 ? (
          <Slider
            min={0}
            max={last}
            step={1}
            value={position}
            onChange={onStep}
            label={(value) => `${value + 1}`}
            thumbLabel="Snapshot"
            thumbValueText={(value) => `Snapshot ${value + 1} of ${trace.length}`}
            aria-label="Snapshot"
          />
        ) : null}
        <Text size="xs" c="dimmed">
          {latest ? (actor.live ? 'Showing the latest snapshot; it follows the live actor.' : 'Showing the last snapshot.') : 'Showing a recorded snapshot; the live actor is not affected.'}
        </Text>
      </Stack>

      {entry ? (
        <>
          <Stack gap={4} component="section" aria-label="State">
            <Group gap="xs">
              <Title order={4}>State</Title>
              <Badge size="sm" variant="light" color={STATUS_COLORS[entry.status] ?? 'gray'}>
                {entry.status}
              </Badge>
            </Group>
            <Code block className={classes.json}>
              {formatJson(entry.value)}
            </Code>
            {entry.error !== undefined ? (
              <Code block color="red.1" className={classes.json}>
                {formatJson(entry.error)}
              </Code>
            ) : null}
          </Stack>
          <Stack gap={4} component="section" aria-label="Context">
            <Title order={4}>Context</Title>
            <Code block className={classes.json}>
              {formatJson(entry.context)}
            </Code>
          </Stack>
        </>
      ) : null}

      <Stack gap={4} component="section" aria-label="Event log">
        <Title order={4}>Event log</Title>
        <ScrollArea.Autosize mah={320} type="auto">
          <Table fz="xs" highlightOnHover aria-label="Event log entries">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>#</Table.Th>
                <Table.Th>Time</Table.Th>
                <Table.Th>Event</Table.Th>
                <Table.Th>State after</Table.Th>
                <Table.Th>Payload</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {trace.map((t, k) => {
                const payload = eventPayload(t.event);
                const current = k === position;
                return (
                  <Table.Tr
                    key={`${k}-${t.at}`}
                    ref={current ? currentRow : undefined}
                    className={current ? classes.currentRow : undefined}
                    aria-current={current ? 'step' : undefined}
                  >
                    <Table.Td>
                      <UnstyledButton className={classes.toggle} onClick={() => onStep(k)} aria-label={`Show snapshot ${k + 1}`}>
                        {k + 1}
                      </UnstyledButton>
                    </Table.Td>
                    <Table.Td className={classes.nowrap}>{formatClock(t.at)}</Table.Td>
                    <Table.Td className={classes.eventType}>{t.event.type}</Table.Td>
                    <Table.Td>{stateLabel(t.value)}</Table.Td>
                    <Table.Td>{payload ? <JsonToggle value={payload} label={`payload of ${t.event.type} (${k + 1})`} /> : '—'}</Table.Td>
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
        </ScrollArea.Autosize>
      </Stack>

      {actor.importId ? (
        <AuditLogSection key={`${actor.id}:${actor.importId}`} actor={{ ...actor, importId: actor.importId }} registry={registry} shownAt={entry?.at} />
      ) : null}
      {actor.integration ? (
        <SyncLogSection key={`${actor.id}:${actor.integration}`} actor={{ ...actor, integration: actor.integration }} registry={registry} shownAt={entry?.at} />
      ) : null}
    </Stack>
  );
}
