import { Alert, Badge, Button, Group, Skeleton, Stack, Table, Text, Title } from '@mantine/core';
import { IconAlertCircle, IconRefresh } from '@tabler/icons-react';
import { useEffect, useState } from 'react';
import { useApi } from '../api/ApiContext';
import { apiErrorMessages } from '../api/errors';
import { formatDateTime } from './format';
import classes from './InspectorPanel.module.css';
import { JsonToggle } from './JsonToggle';
import type { InspectedActor, InspectorRegistry } from './registry';

type FetchState = { status: 'idle' } | { status: 'loading' } | { status: 'failed'; message: string };

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
  const [attempt, setAttempt] = useState(0);
  const [state, setState] = useState<FetchState>({ status: 'idle' });

  useEffect(() => {
    if (loaded && attempt === 0) return;
    const controller = new AbortController();
    setState({ status: 'loading' });
    // Attribute value imports have their own route; every other import actor is a payments import.
    const request =
      name === 'segmentsImport'
        ? client.GET('/segments_importer/{id}', { params: { path: { id: importId } }, signal: controller.signal })
        : client.GET('/subscriptions/csv_import/{id}', { params: { path: { id: importId } }, signal: controller.signal });
    request
      .then(({ data, error, response }) => {
        if (controller.signal.aborted) return;
        if (!data) {
          const [message] = apiErrorMessages(error, `The server answered ${response.status}.`);
          setState({ status: 'failed', message: `${message} (HTTP ${response.status})` });
          return;
        }
        registry.attachAuditLog(actorId, {
          importId,
          fetchedAt: Date.now(),
          importStatus: data.status,
          progress: data.progress,
          entries: data.audit_log,
        });
        setState({ status: 'idle' });
      })
      .catch(() => {
        if (!controller.signal.aborted) setState({ status: 'failed', message: AUDIT_LOG_UNREACHABLE });
      });
    return () => controller.abort();
  }, [client, registry, actorId, importId, loaded, attempt, name]);

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
          onClick={() => setAttempt((n) => n + 1)}
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
