import { Button, Chip, Group, Text } from '@mantine/core';
import { IconX } from '@tabler/icons-react';

interface ReportTagFilterProps {
  /** Every tag of the listed reports. */
  tags: readonly string[];
  /** The chosen ones (tags no report carries any more are not shown). */
  selected: readonly string[];
  onChange: (tags: string[]) => void;
}

/** Chips of the reports' tags: choosing some shows the reports carrying any of them. */
export function ReportTagFilter({ tags, selected, onChange }: ReportTagFilterProps) {
  if (tags.length === 0) return null;
  const chosen = selected.filter((tag) => tags.includes(tag));
  return (
    <Group gap="sm" wrap="wrap" role="group" aria-label="Filter by tag">
      <Text size="sm" fw={500} c="dimmed">
        Filter by tag
      </Text>
      <Chip.Group multiple value={chosen} onChange={onChange}>
        <Group gap={6} wrap="wrap">
          {tags.map((tag) => (
            <Chip key={tag} value={tag} size="sm" variant="outline">
              {tag}
            </Chip>
          ))}
        </Group>
      </Chip.Group>
      {chosen.length > 0 ? (
        <Button variant="subtle" color="gray" size="compact-sm" leftSection={<IconX size={14} />} onClick={() => onChange([])}>
          Clear filter
        </Button>
      ) : null}
    </Group>
  );
}
