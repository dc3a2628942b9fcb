import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useApi } from '../api/ApiContext';
import { apiErrorMessages } from '../api/errors';
import { ApiCallError, apiKey } from '../api/queries';
import { AUDIT_LOG_UNREACHABLE } from './AuditLogSection';
import { formatDateTime } from './format';
import type { InspectedActor, InspectorRegistry } from './registry';
import { ServerLogView } from './ServerLogView';

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
    <ServerLogView
      id={actorId}
      title="Server sync log"
      subtitle={
        <>
          Integration {integration}
          {log ? ` · fetched ${formatDateTime(log.fetchedAt)}` : ''}
          {loaded && log ? ' (from the trace file)' : ''}
        </>
      }
      loaded={loaded}
      loading={loading}
      failure={failed}
      entries={log?.entries}
      shownAt={shownAt}
      onRefresh={refresh}
      emptyText="No syncs recorded yet."
      missingText="The trace file has no sync log of this integration."
    />
  );
}
