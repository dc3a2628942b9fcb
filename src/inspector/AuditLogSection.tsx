import { Alert, Badge, Button, Group, Skeleton, Stack, Table, Text, Title } from '@mantine/core';
import { IconAlertCircle, IconRefresh } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useApi } from '../api/ApiContext';
import { apiErrorMessages } from '../api/errors';
import { ApiCallError, apiKey } from '../api/queries';
import { formatDateTime } from './format';
import classes from './InspectorPanel.module.css';
import { JsonToggle } from './JsonToggle';
import type { InspectedActor, InspectorRegistry } from './registry';

const STATUS_COLORS: Record<string, string> = {
  done: 'green',
  failed: 'red',
  in_progress: 'blue',
  finalizing: 'blue',
  preview: 'yellow',
  uploaded: 'gray',
};

export const AUDIT_LOG_UNREACHABLE = 'The server could not be reached.';

interface AuditLogSectionProps {
  actor: InspectedActor & { importId: string };
  registry: InspectorRegistry;
  /** The time of the snapshot the panel shows: later entries are dimmed. */
  shownAt?: number;
}

/**
 * The server's audit log of an import actor's import (GET /subscriptions/csv_import/{id}, or
 * GET /segments_importer/{id} for attribute values),
 * beside the client trace. A live actor's log is fetched when shown (and on 'Refresh'); a
 * loaded trace shows the log it was exported with, and fetches only when asked. The fetched
 * log is kept with the actor's trace, so an export carries it.
 */
export function AuditLogSection({ actor, registry, shownAt }: AuditLogSectionProps) {
  const client = useApi();
  const { id: actorId, importId, loaded = false, auditLog, name } = actor;
  // A loaded trace shows the log it was exported with until the server is asked.
  const [asked, setAsked] = useState(!loaded);
  // Attribute value imports have their own route; every other import actor is a payments import.
  const path = name === 'segmentsImport' ? '/segments_importer/{id}' : '/subscriptions/csv_import/{id}';
  const query = useQuery({
    queryKey: apiKey(path, { id: importId }),
    enabled: asked,
    queryFn: async ({ signal }) => {
      const options = { params: { path: { id: importId } }, signal };
      let answer;
      try {
        answer = await (path === '/segments_importer/{id}' ? client.GET(path, options) : client.GET(path, options));
      } catch (error) {
        if (signal.aborted) throw error;
        throw new ApiCallError(AUDIT_LOG_UNREACHABLE, 0);
      }
      const { data, error, response } = answer;
      if (!data) {
        const [message] = apiErrorMessages(error, `The server answered ${response.status}.`);
        throw new ApiCallError(`${message} (HTTP ${response.status})`, response.status);
      }
      return { status: data.status, progress: data.progress, entries: data.audit_log };
    },
  });

  // Each answer is kept with the actor's trace (an export carries it).
  const fetched = asked ? query.data : undefined;
  const fetchedAt = query.dataUpdatedAt;
  useEffect(() => {
    if (!fetched) return;
    registry.attachAuditLog(actorId, { importId, fetchedAt, importStatus: fetched.status, progress: fetched.progress, entries: fetched.entries });
  }, [registry, actorId, importId, fetched, fetchedAt]);

  const refresh = () => {
    if (asked) void query.refetch();
    else setAsked(true);
  };
  const state = query.isFetching ? { status: 'loading' as const } : query.isError && asked ? { status: 'failed' as const, message: query.error.message } : { status: 'idle' as const };

  const log = auditLog && (auditLog.importId ?? importId) === importId ? auditLog : undefined;

  return (
    <Stack gap="xs" component="section" aria-labelledby={`${actorId}-audit`}>
      <Group justify="space-between" wrap="nowrap">
        <Title order={4} id={`${actorId}-audit`}>
          Server audit log
        </Title>
        <Button
          size="compact-sm"
          variant="subtle"
          leftSection={<IconRefresh size={14} />}
          onClick={refresh}
          loading={state.status === 'loading'}
        >
          {loaded ? 'Fetch from server' : 'Refresh'}
        </Button>
      </Group>
      <Text size="xs" c="dimmed">
        Import {importId}
        {log ? ` · server status ${log.importStatus ?? 'unknown'}${log.progress === undefined ? '' : ` (${log.progress}%)`} · fetched ${formatDateTime(log.fetchedAt)}` : ''}
        {loaded && log ? ' (from the trace file)' : ''}
      </Text>
      {state.status === 'loading' ? (
        <Stack gap={6} aria-busy="true" aria-label="Loading the server audit log">
          <Skeleton height={14} />
          <Skeleton height={14} />
          <Skeleton height={14} width="70%" />
        </Stack>
      ) : state.status === 'failed' ? (
        <Alert color="red" variant="light" icon={<IconAlertCircle size={18} />} title="The audit log could not be loaded" role="alert">
          {state.message}
        </Alert>
      ) : null}
      {state.status !== 'loading' && log ? (
        log.entries.length === 0 ? (
          <Text size="sm" c="dimmed">
            No status changes recorded yet.
          </Text>
        ) : (
          <Table striped withTableBorder fz="xs" aria-label="Server audit log entries">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Time</Table.Th>
                <Table.Th>Event</Table.Th>
                <Table.Th>Status</Table.Th>
                <Table.Th>Details</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {log.entries.map((entry, k) => {
                const later = shownAt !== undefined && Date.parse(entry.created_at) > shownAt;
                return (
                  <Table.Tr key={k} className={later ? classes.later : undefined} title={later ? 'After the snapshot shown' : undefined}>
                    <Table.Td className={classes.nowrap}>{formatDateTime(entry.created_at)}</Table.Td>
                    <Table.Td>{entry.event}</Table.Td>
                    <Table.Td>
                      {entry.status ? (
                        <Badge size="sm" variant="light" color={STATUS_COLORS[entry.status] ?? 'gray'}>
                          {entry.status}
                        </Badge>
                      ) : (
                        '—'
                      )}
                    </Table.Td>
                    <Table.Td>
                      {Object.keys(entry.details).length === 0 ? '—' : <JsonToggle value={entry.details} label={`details of ${entry.event}`} />}
                    </Table.Td>
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
        )
      ) : null}
      {state.status === 'idle' && !log && loaded ? (
        <Text size="sm" c="dimmed">
          The trace file has no audit log of this import.
        </Text>
      ) : null}
    </Stack>
  );
}
