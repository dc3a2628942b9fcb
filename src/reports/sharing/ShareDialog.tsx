import { ActionIcon, Badge, Button, Divider, Group, Modal, Popover, Select, Skeleton, Stack, Switch, Text, TextInput, Title, Tooltip } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { IconCopy, IconLink, IconShare, IconTrash } from '@tabler/icons-react';
import { useMemo, useState } from 'react';
import { SEARCH_DEBOUNCE_MS } from '../../../models/constants';
import { FILTER_FETCH_FAILURE, FILTER_NO_RESULTS } from '../../../models/reportFilter';
import { toastClipboardCopy, toastError } from '../../notifications/toast';
import { useSegmentValues } from '../filters/filtersApi';
import {
  absoluteUrl,
  GROUP_URL_FAILURE,
  groupReportPath,
  REVOKE_FAILURE,
  SHARE_LINKS_FETCH_FAILURE,
  SHARE_URL_FAILURE,
  sharedReportPath,
  useLinkMutations,
  useReportLinks,
  type GroupLink,
  type ShareLink,
} from './sharingApi';

interface ShareDialogProps {
  opened: boolean;
  onClose(): void;
  reportId: string;
  /** The report's own secret (its segment values are listed by it). */
  secret: string;
}

const dateLabel = (iso: string) => new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso));

/** Copies `url`, with the spec's 3 s clipboard toast (or says why it could not). */
async function copyLink(url: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(url);
  } catch {
    toastError('Your browser did not let us copy the link; select it and copy it instead');
    return;
  }
  toastClipboardCopy('Link copied to clipboard');
}

/**
 * The Share report dialog (owners, on a report they may edit): share links, read only and
 * optionally pinned to one segment value, and group links, which always open the newest
 * report of the report's monthly line. Each link can be copied and revoked; a revoked link
 * stops working at once.
 */
export function ShareDialog({ opened, onClose, reportId, secret }: ShareDialogProps) {
  const { share, group } = useReportLinks(reportId, opened);
  const { createShare, createGroup, revoke } = useLinkMutations(reportId);
  const [pinning, setPinning] = useState(false);
  const [pinned, setPinned] = useState<string | null>(null);

  const makeShareLink = async () => {
    const item = pinning && pinned ? (JSON.parse(pinned) as { id: string; value: string }) : null;
    try {
      await createShare.mutateAsync(item ? { segmenterId: item.id, value: item.value } : null);
    } catch {
      toastError(SHARE_URL_FAILURE);
    }
  };
  const makeGroupLink = async () => {
    try {
      await createGroup.mutateAsync();
    } catch {
      toastError(GROUP_URL_FAILURE);
    }
  };
  const revokeLink = async (kind: 'share' | 'group', id: string) => {
    try {
      await revoke.mutateAsync({ kind, id });
    } catch {
      toastError(REVOKE_FAILURE);
    }
  };

  return (
    <Modal opened={opened} onClose={onClose} title={<Title order={2} fz="h4">Share report</Title>} size="xl">
      <Stack gap="lg">
        <Stack gap="sm">
          <Group gap="xs">
            <IconShare size={18} />
            <Title order={3} fz="md">
              Share link
            </Title>
          </Group>
          <Text size="sm" c="dimmed">
            Anyone with a share link can read this report without signing in: no editing, no details, no exports, no comments.
          </Text>
          <Switch label="Show only one segment" checked={pinning} onChange={(event) => setPinning(event.currentTarget.checked)} />
          {pinning && <SegmentValueSelect secret={secret} value={pinned} onChange={setPinned} />}
          <Group>
            <Button leftSection={<IconShare size={16} />} onClick={() => void makeShareLink()} loading={createShare.isPending} disabled={pinning && !pinned}>
              Create share link
            </Button>
          </Group>
          <LinkList
            label="Share links"
            links={share.data}
            failed={share.isError}
            empty="No share links yet."
            render={(link: ShareLink) => ({
              url: absoluteUrl(sharedReportPath(link.secret)),
              badge: link.segmenter_id ? `${link.segmenter_name ?? 'Segment'}: ${link.segment_value ?? ''}` : 'All data',
              createdAt: link.created_at,
            })}
            onRevoke={(link) => void revokeLink('share', link.id)}
            revoking={revoke.isPending}
          />
        </Stack>

        <Divider />

        <Stack gap="sm">
          <Group gap="xs">
            <IconLink size={18} />
            <Title order={3} fz="md">
              Group link
            </Title>
          </Group>
          <Text size="sm" c="dimmed">
            A group link always opens the newest report of this report’s monthly line, so one bookmark stays current every month.
          </Text>
          <Group>
            <Button variant="default" leftSection={<IconLink size={16} />} onClick={() => void makeGroupLink()} loading={createGroup.isPending}>
              Create group link
            </Button>
          </Group>
          <LinkList
            label="Group links"
            links={group.data}
            failed={group.isError}
            empty="No group links yet."
            render={(link: GroupLink) => ({ url: absoluteUrl(groupReportPath(link.secret)), badge: null, createdAt: link.created_at })}
            onRevoke={(link) => void revokeLink('group', link.id)}
            revoking={revoke.isPending}
          />
        </Stack>
      </Stack>
    </Modal>
  );
}

/** The segment value a share link shows, searched by value or segment name. */
function SegmentValueSelect({ secret, value, onChange }: { secret: string; value: string | null; onChange(value: string | null): void }) {
  const [search, setSearch] = useState('');
  const [query] = useDebouncedValue(search, SEARCH_DEBOUNCE_MS);
  const values = useSegmentValues(secret, query);
  const data = useMemo(
    () => (values.data ?? []).map((item) => ({ value: JSON.stringify({ id: item.id, value: item.value }), label: `${item.name}: ${item.value}` })),
    [values.data],
  );
  // The chosen value stays listed while another search runs.
  const [chosenLabel, setChosenLabel] = useState<string | null>(null);
  const options = value && chosenLabel && !data.some((option) => option.value === value) ? [{ value, label: chosenLabel }, ...data] : data;
  return (
    <Select
      label="Segment value"
      placeholder="Start typing a segment or a value"
      searchable
      searchValue={search}
      onSearchChange={setSearch}
      data={options}
      value={value}
      onChange={(next, option) => {
        onChange(next);
        setChosenLabel(option?.label ?? null);
      }}
      nothingFoundMessage={values.isError ? FILTER_FETCH_FAILURE : FILTER_NO_RESULTS}
      filter={({ options: all }) => all}
      comboboxProps={{ withinPortal: true }}
    />
  );
}

interface LinkListProps<T extends { id: string }> {
  label: string;
  links: T[] | undefined;
  failed: boolean;
  empty: string;
  render(link: T): { url: string; badge: string | null; createdAt: string };
  onRevoke(link: T): void;
  revoking: boolean;
}

function LinkList<T extends { id: string }>({ label, links, failed, empty, render, onRevoke, revoking }: LinkListProps<T>) {
  if (failed) {
    return (
      <Text size="sm" c="red">
        {SHARE_LINKS_FETCH_FAILURE}
      </Text>
    );
  }
  if (!links) return <Skeleton height={36} radius="sm" aria-label={`Loading ${label.toLowerCase()}`} />;
  if (links.length === 0) {
    return (
      <Text size="sm" c="dimmed">
        {empty}
      </Text>
    );
  }
  return (
    <Stack gap="xs" role="list" aria-label={label}>
      {links.map((link) => {
        const { url, badge, createdAt } = render(link);
        return (
          <Group key={link.id} gap="xs" wrap="nowrap" role="listitem">
            <TextInput readOnly value={url} aria-label={badge ? `Link: ${badge}` : 'Link'} style={{ flex: 1, minWidth: 0 }} onFocus={(event) => event.currentTarget.select()} />
            {badge && (
              <Badge variant="light" maw={200} style={{ flexShrink: 0 }}>
                {badge}
              </Badge>
            )}
            <Text size="xs" c="dimmed" style={{ flexShrink: 0 }} visibleFrom="sm">
              {dateLabel(createdAt)}
            </Text>
            <Tooltip label="Copy link">
              <ActionIcon variant="default" size={36} aria-label="Copy link" onClick={() => void copyLink(url)}>
                <IconCopy size={16} />
              </ActionIcon>
            </Tooltip>
            <RevokeButton onConfirm={() => onRevoke(link)} disabled={revoking} />
          </Group>
        );
      })}
    </Stack>
  );
}

/** Revoking asks once more: whoever uses the link loses access at once. */
function RevokeButton({ onConfirm, disabled }: { onConfirm(): void; disabled: boolean }) {
  const [opened, setOpened] = useState(false);
  return (
    <Popover opened={opened} onChange={setOpened} position="bottom-end" withArrow shadow="md">
      <Popover.Target>
        <ActionIcon variant="default" color="red" size={36} aria-label="Revoke link" onClick={() => setOpened((open) => !open)} disabled={disabled}>
          <IconTrash size={16} />
        </ActionIcon>
      </Popover.Target>
      <Popover.Dropdown>
        <Stack gap="xs" maw={240}>
          <Text size="sm">Revoke this link? Whoever uses it loses access at once.</Text>
          <Group justify="flex-end" gap="xs">
            <Button size="xs" variant="default" onClick={() => setOpened(false)}>
              Keep
            </Button>
            <Button
              size="xs"
              color="red"
              onClick={() => {
                setOpened(false);
                onConfirm();
              }}
            >
              Revoke
            </Button>
          </Group>
        </Stack>
      </Popover.Dropdown>
    </Popover>
  );
}
