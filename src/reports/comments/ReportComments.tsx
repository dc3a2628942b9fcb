import { Avatar, Badge, Button, Group, Paper, Skeleton, Stack, Text, Textarea, Title, Tooltip } from '@mantine/core';
import { IconPinnedFilled } from '@tabler/icons-react';
import dayjs from 'dayjs';
import relativeTime from 'dayjs/plugin/relativeTime';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState, type FormEvent } from 'react';
import { useApi } from '../../api/ApiContext';
import { toastError } from '../../notifications/toast';
import { useSession } from '../../session/SessionContext';
import { COMMENT_SAVE_FAILURE, commentsApi, commentsKey, type ReportComment } from './commentsApi';

dayjs.extend(relativeTime);

/** Pinned comments first, then newest first (as the server lists them). */
export function commentOrder(a: ReportComment, b: ReportComment): number {
  if ((a.pinned_at === null) !== (b.pinned_at === null)) return a.pinned_at === null ? 1 : -1;
  return b.added_at.localeCompare(a.added_at);
}

/** '2 Mar 2026, 09:00'. */
const exactTime = (iso: string) => new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso));

const DELETED_AUTHOR = 'Former user';

function initialsOf(name: string): string {
  const words = name.trim().split(/\s+/).filter(Boolean);
  return words
    .slice(0, 2)
    .map((word) => word[0]?.toUpperCase() ?? '')
    .join('');
}

function CommentItem({ comment }: { comment: ReportComment }) {
  const author = comment.user?.name || DELETED_AUTHOR;
  return (
    <Paper component="article" withBorder radius="md" p="sm" aria-label={`Comment by ${author}`}>
      <Group gap="sm" align="flex-start" wrap="nowrap">
        <Avatar radius="xl" size="sm" color="initials" name={author}>
          {initialsOf(author)}
        </Avatar>
        <Stack gap={4} style={{ flex: 1, minWidth: 0 }}>
          <Group gap="xs">
            <Text size="sm" fw={600}>
              {author}
            </Text>
            <Tooltip label={exactTime(comment.added_at)}>
              <Text component="time" dateTime={comment.added_at} size="xs" c="dimmed" tabIndex={0}>
                {dayjs(comment.added_at).fromNow()}
              </Text>
            </Tooltip>
            {comment.pinned_at && (
              <Badge size="sm" variant="light" leftSection={<IconPinnedFilled size={12} />}>
                Pinned
              </Badge>
            )}
          </Group>
          <Text size="sm" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
            {comment.content}
          </Text>
        </Stack>
      </Group>
    </Paper>
  );
}

interface ReportCommentsProps {
  reportId: string;
  /** The report's account: its users read the comments, its full users write them. */
  accountId: string;
  /** The public demo: no comments (its visitors are not of the account). */
  demo?: boolean;
}

/**
 * Comments under the report: pinned first with a badge, then newest first, each with its
 * author and time (relative; exact in a tooltip). Full users of the report's account write
 * one (spec: 'Comment' is disabled while the text is empty); a failed save keeps the text.
 */
export function ReportComments({ reportId, accountId, demo = false }: ReportCommentsProps) {
  const client = useApi();
  const { user } = useSession();
  const calls = useMemo(() => commentsApi(client, reportId), [client, reportId]);
  const readable = !demo && user !== null && user.account_id === accountId;
  const canComment = readable && user.permission_level === 'user';
  const queryClient = useQueryClient();
  const query = useQuery({ queryKey: commentsKey(reportId), queryFn: ({ signal }) => calls.list(signal), enabled: readable });
  const items = query.data ?? null;
  const failed = query.isError && !query.isFetching && !query.data;
  const [text, setText] = useState('');
  const [saving, setSaving] = useState(false);

  if (!readable) return null;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!text.trim() || saving) return;
    setSaving(true);
    try {
      const created = await calls.add(text);
      queryClient.setQueryData<ReportComment[]>(commentsKey(reportId), (current) => [created, ...(current ?? [])].sort(commentOrder));
      setText('');
    } catch (error) {
      toastError(error instanceof Error && error.message ? error.message : COMMENT_SAVE_FAILURE);
    } finally {
      setSaving(false);
    }
  };

  return (
    <Stack component="section" aria-labelledby="report-comments-title" gap="sm">
      <Title order={2} size="h4" id="report-comments-title">
        Comments
      </Title>
      {canComment && (
        <form onSubmit={(event) => void submit(event)}>
          <Stack gap="xs">
            <Textarea
              aria-label="New comment"
              placeholder="Write a comment"
              rows={3}
              resize="vertical"
              value={text}
              onChange={(event) => setText(event.currentTarget.value)}
              onKeyDown={(event) => {
                if (event.key === 'Enter' && (event.metaKey || event.ctrlKey)) void submit(event);
              }}
            />
            <Group justify="flex-end">
              <Button type="submit" disabled={!text.trim()} loading={saving}>
                Comment
              </Button>
            </Group>
          </Stack>
        </form>
      )}
      {failed ? (
        <Text size="sm" c="red">
          We could not fetch comments
        </Text>
      ) : items === null ? (
        <Stack gap="xs" aria-label="Loading comments" aria-busy>
          <Skeleton height={64} radius="md" />
          <Skeleton height={64} radius="md" />
        </Stack>
      ) : items.length === 0 ? (
        <Text size="sm" c="dimmed">
          No comments yet.
        </Text>
      ) : (
        <Stack gap="xs">
          {items.map((comment) => (
            <CommentItem key={comment.id} comment={comment} />
          ))}
        </Stack>
      )}
    </Stack>
  );
}
