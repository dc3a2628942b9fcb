import { ActionIcon, Anchor, Badge, Card, Group, Stack, Text, Title, Tooltip } from '@mantine/core';
import { modals } from '@mantine/modals';
import { IconCalendarMonth, IconTrash } from '@tabler/icons-react';
import { useId, useState } from 'react';
import { Link } from 'wouter';
import { periodLabel } from '../../../models/reportRange';
import { ReportStatusBadge } from './ReportStatusBadge';
import type { ReportListItem } from './types';
import { useButtonWiggle } from './useButtonWiggle';

interface ReportCardProps {
  report: ReportListItem;
  /** Deletes the report (after the user confirmed); resolves false when the server refused. */
  onDelete: (report: ReportListItem) => Promise<boolean>;
}

/**
 * One report of the list: its title (the link to /reports/{secret}), range, 'By {owner}',
 * summary, tags and state; a delete button (with a confirmation) when the server says
 * `can_edit`. A failed delete makes the button wiggle.
 */
export function ReportCard({ report, onDelete }: ReportCardProps) {
  const [deleting, setDeleting] = useState(false);
  const { wiggle, wiggleProps } = useButtonWiggle();
  const title = report.title || 'Untitled report';
  const titleId = useId();

  const handleDelete = async () => {
    setDeleting(true);
    const deleted = await onDelete(report);
    // A deleted report's card is gone; only a refused one stays to wiggle.
    if (!deleted) {
      setDeleting(false);
      wiggle();
    }
  };

  const handleDeleteClick = () => {
    modals.openConfirmModal({
      title: 'Delete report',
      children: (
        <Text size="sm">
          Delete “{title}”? Its charts, comments and share links are removed too. This cannot be undone.
        </Text>
      ),
      labels: { confirm: 'Delete', cancel: 'Cancel' },
      confirmProps: { color: 'red' },
      onConfirm: () => void handleDelete(),
    });
  };

  return (
    <Card component="article" aria-labelledby={titleId}>
      <Stack gap="sm" h="100%">
        <Group justify="space-between" align="flex-start" gap="sm" wrap="nowrap">
          <Title order={2} fz="lg" lh={1.3} id={titleId} style={{ minWidth: 0, overflowWrap: 'anywhere' }}>
            <Anchor component={Link} href={`/reports/${report.secret}`} inherit c="var(--mantine-color-text)">
              {title}
            </Anchor>
          </Title>
          <ReportStatusBadge {...report} />
        </Group>
        <Group gap={6} wrap="wrap">
          <IconCalendarMonth size={16} stroke={1.6} color="var(--mantine-color-dimmed)" aria-hidden />
          <Text size="sm" c="dimmed">
            {periodLabel(report.period)}
          </Text>
          {report.owner ? (
            <>
              <Text size="sm" c="dimmed" aria-hidden>
                ·
              </Text>
              <Text size="sm" c="dimmed">
                By {report.owner.name}
              </Text>
            </>
          ) : null}
        </Group>
        {report.summary ? (
          <Text size="sm" lineClamp={3}>
            {report.summary}
          </Text>
        ) : null}
        <Group justify="space-between" align="flex-end" gap="sm" mt="auto" wrap="nowrap">
          {report.tags.length > 0 ? (
            <Group gap={6} wrap="wrap" role="list" aria-label="Tags">
              {report.tags.map((tag) => (
                <Badge key={tag} role="listitem" variant="default" size="sm" radius="sm" tt="none" fw={500}>
                  {tag}
                </Badge>
              ))}
            </Group>
          ) : (
            <span />
          )}
          {report.can_edit ? (
            <Tooltip label="Delete report">
              <ActionIcon
                variant="subtle"
                color="red"
                aria-label={`Delete report ${title}`}
                loading={deleting}
                onClick={handleDeleteClick}
                {...wiggleProps}
              >
                <IconTrash size={18} stroke={1.6} />
              </ActionIcon>
            </Tooltip>
          ) : null}
        </Group>
      </Stack>
    </Card>
  );
}
