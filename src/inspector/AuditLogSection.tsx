import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useApi } from '../api/ApiContext';
import { apiErrorMessages } from '../api/errors';
import { ApiCallError, apiKey } from '../api/queries';
import { formatDateTime } from './format';
import type { InspectedActor, InspectorRegistry } from './registry';
import { ServerLogView } from './ServerLogView';

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
    <ServerLogView
      id={actorId}
      title="Server audit log"
      subtitle={
        <>
          Import {importId}
          {log ? ` · server status ${log.importStatus ?? 'unknown'}${log.progress === undefined ? '' : ` (${log.progress}%)`} · fetched ${formatDateTime(log.fetchedAt)}` : ''}
          {loaded && log ? ' (from the trace file)' : ''}
        </>
      }
      loaded={loaded}
      loading={state.status === 'loading'}
      failure={state.status === 'failed' ? state.message : null}
      entries={log?.entries}
      withStatus
      shownAt={shownAt}
      onRefresh={refresh}
      emptyText="No status changes recorded yet."
      missingText="The trace file has no audit log of this import."
    />
  );
}
