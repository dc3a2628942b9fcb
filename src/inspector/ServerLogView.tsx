import { Alert, Badge, Button, Group, Skeleton, Stack, Table, Text, Title } from '@mantine/core';
import { IconAlertCircle, IconRefresh } from '@tabler/icons-react';
import type { ReactNode } from 'react';
import { formatDateTime } from './format';
import classes from './InspectorPanel.module.css';
import { JsonToggle } from './JsonToggle';

const STATUS_COLORS: Record<string, string> = {
  done: 'green',
  failed: 'red',
  in_progress: 'blue',
  finalizing: 'blue',
  preview: 'yellow',
  uploaded: 'gray',
};

export interface ServerLogEntry {
  created_at: string;
  event: string;
  status: string | null;
  details: Record<string, unknown>;
}

export interface ServerLogViewProps {
  /** The section's id prefix (the actor's id). */
  id: string;
  /** 'Server audit log', 'Server sync log'. */
  title: string;
  /** What the log is of, and when it was fetched. */
  subtitle: ReactNode;
  /** A loaded trace: the button fetches from the server instead of refreshing. */
  loaded: boolean;
  loading: boolean;
  /** Why the log could not be loaded (null: it could, or was not asked). */
  failure: string | null;
  /** The log shown (undefined: none yet). */
  entries: readonly ServerLogEntry[] | undefined;
  /** Whether the table has a Status column (imports have statuses; syncs do not). */
  withStatus?: boolean;
  /** The time of the snapshot the panel shows: later entries are dimmed. */
  shownAt?: number;
  onRefresh: () => void;
  /** What an empty log says, and what a loaded trace without a log says. */
  emptyText: string;
  missingText: string;
}

/**
 * A log the server keeps about what a machine drives (an import's audit log, an integration's
 * sync log), shown beside the machine's trace in the state inspector: a refresh button, a
 * skeleton while it loads, the failure, then the entries newest first with their details.
 */
export function ServerLogView({ id, title, subtitle, loaded, loading, failure, entries, withStatus = false, shownAt, onRefresh, emptyText, missingText }: ServerLogViewProps) {
  const titleId = `${id}-${title.toLowerCase().replaceAll(' ', '-')}`;
  return (
    <Stack gap="xs" component="section" aria-labelledby={titleId}>
      <Group justify="space-between" wrap="nowrap">
        <Title order={4} id={titleId}>
          {title}
        </Title>
        <Button size="compact-sm" variant="subtle" leftSection={<IconRefresh size={14} />} onClick={onRefresh} loading={loading}>
          {loaded ? 'Fetch from server' : 'Refresh'}
        </Button>
      </Group>
      <Text size="xs" c="dimmed">
        {subtitle}
      </Text>
      {loading ? (
        <Stack gap={6} aria-busy="true" aria-label={`Loading the ${title.toLowerCase()}`}>
          <Skeleton height={14} />
          <Skeleton height={14} />
          <Skeleton height={14} width="70%" />
        </Stack>
      ) : failure ? (
        <Alert color="red" variant="light" icon={<IconAlertCircle size={18} />} title={`The ${title.replace(/^Server /, '')} could not be loaded`} role="alert">
          {failure}
        </Alert>
      ) : null}
      {!loading && entries ? (
        entries.length === 0 ? (
          <Text size="sm" c="dimmed">
            {emptyText}
          </Text>
        ) : (
          <Table striped withTableBorder fz="xs" aria-label={`${title} entries`}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Time</Table.Th>
                <Table.Th>Event</Table.Th>
                {withStatus ? <Table.Th>Status</Table.Th> : null}
                <Table.Th>Details</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {entries.map((entry, k) => {
                const later = shownAt !== undefined && Date.parse(entry.created_at) > shownAt;
                return (
                  <Table.Tr key={k} className={later ? classes.later : undefined} title={later ? 'After the snapshot shown' : undefined}>
                    <Table.Td className={classes.nowrap}>{formatDateTime(entry.created_at)}</Table.Td>
                    <Table.Td>{entry.event}</Table.Td>
                    {withStatus ? (
                      <Table.Td>
                        {entry.status ? (
                          <Badge size="sm" variant="light" color={STATUS_COLORS[entry.status] ?? 'gray'}>
                            {entry.status}
                          </Badge>
                        ) : (
                          '—'
                        )}
                      </Table.Td>
                    ) : null}
                    <Table.Td>{Object.keys(entry.details).length === 0 ? '—' : <JsonToggle value={entry.details} label={`details of ${entry.event}`} />}</Table.Td>
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
        )
      ) : null}
      {!loading && !failure && !entries && loaded ? (
        <Text size="sm" c="dimmed">
          {missingText}
        </Text>
      ) : null}
    </Stack>
  );
}
