import { ActionIcon, Badge, Button, Group, TextInput } from '@mantine/core';
import { IconPlus, IconX } from '@tabler/icons-react';
import { useState } from 'react';
import { MAX_REPORT_TAG_LENGTH, MAX_REPORT_TAGS } from '../../../models/constants';

interface ReportTagsProps {
  tags: readonly string[];
  /** Editors add and remove tags; others see them. */
  editable: boolean;
  /** Saves the whole list; rejects (after telling the user) when it could not be saved. */
  onChange: (tags: string[]) => Promise<void>;
}

/**
 * A report's tags beside its owner: badges, and for editors a × on each and 'Add tag' (a field:
 * Enter adds, Escape or leaving it cancels). The reports list filters by them.
 */
export function ReportTags({ tags, editable, onChange }: ReportTagsProps) {
  const [adding, setAdding] = useState(false);
  const [draft, setDraft] = useState('');
  const [saving, setSaving] = useState(false);

  const save = async (next: string[]) => {
    setSaving(true);
    try {
      await onChange(next);
      return true;
    } catch {
      return false;
    } finally {
      setSaving(false);
    }
  };

  const add = async () => {
    const tag = draft.trim().slice(0, MAX_REPORT_TAG_LENGTH);
    if (!tag || tags.some((existing) => existing.toLowerCase() === tag.toLowerCase())) {
      setDraft('');
      setAdding(false);
      return;
    }
    if (await save([...tags, tag])) {
      setDraft('');
      setAdding(false);
    }
  };

  if (!editable && tags.length === 0) return null;
  return (
    <Group gap={6} role="group" aria-label="Tags">
      {tags.map((tag) => (
        <Badge
          key={tag}
          variant="light"
          size="md"
          tt="none"
          rightSection={
            editable ? (
              <ActionIcon
                size={16}
                radius="xl"
                variant="transparent"
                color="brand"
                aria-label={`Remove tag ${tag}`}
                disabled={saving}
                onClick={() => void save(tags.filter((candidate) => candidate !== tag))}
              >
                <IconX size={12} />
              </ActionIcon>
            ) : undefined
          }
        >
          {tag}
        </Badge>
      ))}
      {editable &&
        (adding ? (
          <TextInput
            size="xs"
            w={160}
            autoFocus
            aria-label="New tag"
            placeholder="Tag name, then Enter"
            maxLength={MAX_REPORT_TAG_LENGTH}
            value={draft}
            disabled={saving}
            onChange={(event) => setDraft(event.currentTarget.value)}
            onKeyDown={(event) => {
              if (event.key === 'Enter') {
                event.preventDefault();
                void add();
              } else if (event.key === 'Escape') {
                setDraft('');
                setAdding(false);
              }
            }}
            onBlur={() => {
              if (!saving && !draft.trim()) setAdding(false);
            }}
          />
        ) : (
          tags.length < MAX_REPORT_TAGS && (
            <Button variant="subtle" size="compact-xs" leftSection={<IconPlus size={12} />} onClick={() => setAdding(true)}>
              Add tag
            </Button>
          )
        ))}
    </Group>
  );
}
