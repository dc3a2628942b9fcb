import { Alert, Button, Group, Skeleton, Stack, Table, Text, Title } from '@mantine/core';
import { IconAlertCircle, IconRefresh } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useApi } from '../api/ApiContext';
import { apiErrorMessages } from '../api/errors';
import { ApiCallError, apiKey } from '../api/queries';
import { AUDIT_LOG_UNREACHABLE } from './AuditLogSection';
import { formatDateTime } from './format';
import classes from './InspectorPanel.module.css';
import { JsonToggle } from './JsonToggle';
import type { InspectedActor, InspectorRegistry } from './registry';

interface SyncLogSectionProps {
  actor: InspectedActor & { integration: string };
  registry: InspectorRegistry;
  /** The time of the snapshot the panel shows: later entries are dimmed. */
  shownAt?: number;
}

/**
 * The server's sync log of an integration card's integration (GET /integrations/{name}/sync_log:
 * queued, started, progress, failed, finished, configured, disconnected…, newest first) beside
 * the card machine's trace, so support sees why a sync is stuck. Fetched when shown (and on
 * 'Refresh'); a loaded trace shows the log it was exported with until asked. The fetched log
 * is kept with the actor's trace, so an export carries it.
 */
export function SyncLogSection({ actor, registry, shownAt }: SyncLogSectionProps) {
  const client = useApi();
  const { id: actorId, integration, loaded = false, auditLog } = actor;
  const [asked, setAsked] = useState(!loaded);
  const query = useQuery({
    queryKey: apiKey('/integrations/{name}/sync_log', { name: integration }),
    enabled: asked,
    queryFn: async ({ signal }) => {
      let answer;
      try {
        answer = await client.GET('/integrations/{name}/sync_log', { params: { path: { name: integration } }, signal });
      } catch (error) {
        if (signal.aborted) throw error;
        throw new ApiCallError(AUDIT_LOG_UNREACHABLE, 0);
      }
      const { data, error, response } = answer;
      if (!data) {
        const [message] = apiErrorMessages(error, `The server answered ${response.status}.`);
        throw new ApiCallError(`${message} (HTTP ${response.status})`, response.status);
      }
      return data.items;
    },
  });

  const fetched = asked ? query.data : undefined;
  const fetchedAt = query.dataUpdatedAt;
  useEffect(() => {
    if (!fetched) return;
    registry.attachAuditLog(actorId, {
      integration,
      fetchedAt,
      entries: fetched.map((item) => ({ event: item.event, status: null, details: item.details, created_at: item.at })),
    });
  }, [registry, actorId, integration, fetched, fetchedAt]);

  const refresh = () => {
    if (asked) void query.refetch();
    else setAsked(true);
  };
  const loading = query.isFetching;
  const failed = !loading && query.isError && asked ? query.error.message : null;
  const log = auditLog && (auditLog.integration ?? integration) === integration ? auditLog : undefined;

  return (
    <Stack gap="xs" component="section" aria-labelledby={`${actorId}-sync-log`}>
      <Group justify="space-between" wrap="nowrap">
        <Title order={4} id={`${actorId}-sync-log`}>
          Server sync log
        </Title>
        <Button size="compact-sm" variant="subtle" leftSection={<IconRefresh size={14} />} onClick={refresh} loading={loading}>
          {loaded ? 'Fetch from server' : 'Refresh'}
        </Button>
      </Group>
      <Text size="xs" c="dimmed">
        Integration {integration}
        {log ? ` · fetched ${formatDateTime(log.fetchedAt)}` : ''}
        {loaded && log ? ' (from the trace file)' : ''}
      </Text>
      {loading ? (
        <Stack gap={6} aria-busy="true" aria-label="Loading the server sync log">
          <Skeleton height={14} />
          <Skeleton height={14} />
          <Skeleton height={14} width="70%" />
        </Stack>
      ) : failed ? (
        <Alert color="red" variant="light" icon={<IconAlertCircle size={18} />} title="The sync log could not be loaded" role="alert">
          {failed}
        </Alert>
      ) : null}
      {!loading && log ? (
        log.entries.length === 0 ? (
          <Text size="sm" c="dimmed">
            No syncs recorded yet.
          </Text>
        ) : (
          <Table striped withTableBorder fz="xs" aria-label="Server sync log entries">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Time</Table.Th>
                <Table.Th>Event</Table.Th>
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
                    <Table.Td>{Object.keys(entry.details).length === 0 ? '—' : <JsonToggle value={entry.details} label={`details of ${entry.event}`} />}</Table.Td>
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
        )
      ) : null}
      {!loading && !log && loaded ? (
        <Text size="sm" c="dimmed">
          The trace file has no sync log of this integration.
        </Text>
      ) : null}
    </Stack>
  );
}
