import { ActionIcon, Button, Group, Select, Stack, Text, Tooltip } from '@mantine/core';
import { IconPlus, IconTrash } from '@tabler/icons-react';
import { MAX_GROUPS } from '../../../models/customSections';
import type { FilterObject } from '../../../models/customSections';
import { fieldKey } from '../../../machines/sectionEditor/draft';
import type { DraftEdit, DraftGroup, GroupOwner, SectionCatalogue } from '../../../machines/sectionEditor/types';
import { fieldOfKey, fieldOptions } from './editorOptions';

interface GroupListProps {
  /** The series the splits are of; null: the section's (every series). */
  owner: GroupOwner;
  groups: DraftGroup[];
  catalogue: SectionCatalogue;
  /** The objects whose fields can split. */
  objects: readonly FilterObject[];
  errors: Record<string, string>;
  disabled: boolean;
  /** Said when there is no split. */
  emptyText: string;
  onEdit(edit: DraftEdit): void;
}

/** The splits (groups) of a series or of the section: a groupable field each, at most MAX_GROUPS. */
export function GroupList({ owner, groups, catalogue, objects, errors, disabled, emptyText, onEdit }: GroupListProps) {
  const at = owner === null ? '/groups' : `/series/${owner}/groups`;
  const listError = errors[at];
  const ownerName = owner === null ? 'Section' : `Series ${owner + 1}`;
  return (
    <Stack gap="xs">
      {groups.length === 0 && (
        <Text size="sm" c="dimmed">
          {emptyText}
        </Text>
      )}
      {groups.map((group, index) => {
        const field = group.object ? { object: group.object, field: group.field, field_id: group.field_id } : null;
        return (
          <Group key={group.key} align="flex-start" gap="sm" wrap="nowrap">
            <Select
              aria-label={`${ownerName} split ${index + 1}`}
              placeholder="Choose a field to split by"
              data={fieldOptions(catalogue, 'group', objects, field)}
              value={field ? fieldKey(field) : null}
              onChange={(key) => onEdit({ kind: 'groupField', series: owner, group: index, field: fieldOfKey(catalogue, key) })}
              searchable
              nothingFoundMessage="No matching fields"
              disabled={disabled}
              error={errors[`${at}/${index}/field`]}
              style={{ flex: 1, minWidth: 0 }}
            />
            <Tooltip label="Remove split">
              <ActionIcon variant="subtle" color="gray" mt={4} aria-label={`Remove ${ownerName.toLowerCase()} split ${index + 1}`} disabled={disabled} onClick={() => onEdit({ kind: 'removeGroup', series: owner, group: index })}>
                <IconTrash size={16} />
              </ActionIcon>
            </Tooltip>
          </Group>
        );
      })}
      {listError && (
        <Text size="xs" c="red" role="alert">
          {listError}
        </Text>
      )}
      <Group>
        <Button variant="subtle" size="xs" leftSection={<IconPlus size={14} />} disabled={disabled || groups.length >= MAX_GROUPS} onClick={() => onEdit({ kind: 'addGroup', series: owner })}>
          Add split
        </Button>
      </Group>
    </Stack>
  );
}
