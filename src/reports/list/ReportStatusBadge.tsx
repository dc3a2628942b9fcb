import { Badge, Loader, Tooltip } from '@mantine/core';
import dayjs from 'dayjs';
import type { ReportListItem } from './types';

/** How a refresh time reads in the badge's tooltip. */
const REFRESHED_AT_FORMAT = 'D MMM YYYY, HH:mm';

function refreshedLabel(refreshedAt: string | null): string {
  return refreshedAt ? `Refreshed ${dayjs(refreshedAt).format(REFRESHED_AT_FORMAT)}` : 'Not refreshed yet';
}

type StatusProps = Pick<ReportListItem, 'recalculation_status' | 'freshness_status' | 'refreshed_at'>;

/**
 * A report's state in one small badge: being recalculated, a failed recalculation, data that
 * changed since the last recalculation (stale), or up to date. The tooltip tells when it was refreshed.
 */
export function ReportStatusBadge({ recalculation_status, freshness_status, refreshed_at }: StatusProps) {
  const badge =
    recalculation_status === 'recalculating' ? (
      <Badge variant="light" color="blue" size="sm" leftSection={<Loader size={10} color="blue" aria-hidden />}>
        Recalculating
      </Badge>
    ) : recalculation_status === 'failed' ? (
      <Badge variant="light" color="red" size="sm">
        Recalculation failed
      </Badge>
    ) : freshness_status === 'stale' ? (
      <Badge variant="light" color="yellow" size="sm">
        Outdated
      </Badge>
    ) : (
      <Badge variant="light" color="teal" size="sm">
        Up to date
      </Badge>
    );
  return (
    <Tooltip label={refreshedLabel(refreshed_at)}>
      <span style={{ flexShrink: 0, display: 'inline-flex' }}>{badge}</span>
    </Tooltip>
  );
}
