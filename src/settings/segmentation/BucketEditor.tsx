import { ActionIcon, Button, Group, Stack, Text, TextInput, Tooltip } from '@mantine/core';
import { IconInfinity, IconPlus, IconTrash } from '@tabler/icons-react';
import { bucketLabel, bucketMins, canDeleteBucket } from '../../../models/segmentation';
import { emptyBucket } from './segmentationForm';
import type { BucketRow } from './segmentationForm';
import type { BucketDraft } from '../../../models/segmentation';

interface BucketEditorProps {
  rows: readonly BucketRow[];
  /** The message of a row's max, if any. */
  maxError(index: number): string | undefined;
  onRowChange(index: number, patch: Partial<BucketDraft>): void;
  onAdd(row: BucketRow): void;
  onRemove(index: number): void;

}

const isWholeNumber = (text: string) => /^\d+$/.test(text.trim());

/** The name a row gets when left empty ('from - to'), once its max is a number. */
function defaultName(min: number, max: string): string | undefined {
  if (!Number.isFinite(min) || !isWholeNumber(max) || Number(max.trim()) < min) return undefined;
  return bucketLabel({ from: min, to: Number(max.trim()) });
}

/**
 * Ranges of a number: rows of a name and a max. Each row's min is derived (0 for the first, the
 * previous max + 1 after it) and shown read-only; the rows are closed by an open bucket above
 * the last max, appended on save. The first row can be removed only when it is the only one.
 */
export function BucketEditor({ rows, maxError, onRowChange, onAdd, onRemove }: BucketEditorProps) {
  const mins = bucketMins(rows);
  const last = rows.at(-1);
  const lastMax = last && isWholeNumber(last.max) ? Number(last.max.trim()) : null;

  const iconSize = 36;
  const handleAdd = () => onAdd(emptyBucket());

  return (
    <Stack gap="xs" role="group" aria-label="Buckets">
      <Group gap="xs" wrap="nowrap" aria-hidden>
        <Text size="xs" c="dimmed" fw={600} style={{ flex: 2 }}>
          Name
        </Text>
        <Text size="xs" c="dimmed" fw={600} style={{ flex: 1 }}>
          Min
        </Text>
        <Text size="xs" c="dimmed" fw={600} style={{ flex: 2 }}>
          Max
        </Text>
        <div style={{ width: iconSize, flex: 'none' }} />
      </Group>
      {rows.map((row, index) => {
        const min = mins[index] ?? Number.NaN;
        const removable = canDeleteBucket(index, rows.length);
        return (
          <Group key={row.key} gap="xs" wrap="nowrap" align="flex-start" data-testid="bucket-row">
            <TextInput
              aria-label={`Bucket ${index + 1} name`}
              placeholder={defaultName(min, row.max) ?? 'Optional'}
              value={row.name}
              onChange={(event) => onRowChange(index, { name: event.currentTarget.value })}
              style={{ flex: 2, minWidth: 0 }}
            />
            <TextInput
              aria-label={`Bucket ${index + 1} min`}
              value={Number.isFinite(min) ? String(min) : ''}
              readOnly
              variant="filled"
              tabIndex={-1}
              style={{ flex: 1, minWidth: 0 }}
            />
            <TextInput
              aria-label={`Bucket ${index + 1} max`}
              inputMode="numeric"
              placeholder="e.g. 1200"
              value={row.max}
              error={maxError(index)}
              onChange={(event) => onRowChange(index, { max: event.currentTarget.value })}
              style={{ flex: 2, minWidth: 0 }}
            />
            <Tooltip label="The first bucket can be removed only when it is the only one" disabled={removable}>
              <ActionIcon
                variant="subtle"
                color="gray"
                size={iconSize}
                aria-label={`Remove bucket ${index + 1}`}
                disabled={!removable}
                onClick={() => onRemove(index)}
                // A disabled subtle icon keeps no background, like the enabled ones.
                style={{ flex: 'none', background: 'transparent' }}
              >
                <IconTrash size={16} />
              </ActionIcon>
            </Tooltip>
          </Group>
        );
      })}
      <Group gap="xs" wrap="nowrap" c="dimmed">
        <IconInfinity size={16} aria-hidden style={{ flex: 'none' }} />
        <Text size="sm" c="dimmed">
          {lastMax === null ? 'Values above the last max go to one more bucket, added on save.' : `Values above ${lastMax} go to one more bucket, '> ${lastMax}', added on save.`}
        </Text>
      </Group>
      <Button variant="light" size="sm" leftSection={<IconPlus size={16} />} onClick={handleAdd} style={{ alignSelf: 'flex-start' }}>
        Add bucket
      </Button>
    </Stack>
  );
}
