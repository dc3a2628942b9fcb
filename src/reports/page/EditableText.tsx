import { Textarea, TextInput, UnstyledButton } from '@mantine/core';
import type { ReactNode } from 'react';
import { useState } from 'react';

interface EditableTextProps {
  value: string;
  /** What an empty value shows (editors only). */
  placeholder: string;
  label: string;
  editable: boolean;
  multiline?: boolean;
  /** Saves; rejects when it could not (the text the user typed stays in the field). */
  onSave(value: string): Promise<void>;
  children: (value: string) => ReactNode;
}

/**
 * Text edited in place (a report's title and summary): a click or Enter on it opens a field;
 * Enter (Ctrl+Enter in a multi-line field) or leaving the field saves, Escape cancels. When the
 * save fails the field stays open with what was typed.
 */
export function EditableText({ value, placeholder, label, editable, multiline, onSave, children }: EditableTextProps) {
  const [draft, setDraft] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  if (!editable) return <>{children(value)}</>;
  if (draft === null) {
    return (
      <UnstyledButton onClick={() => setDraft(value)} aria-label={`Edit ${label.toLowerCase()}`} title={`Edit ${label.toLowerCase()}`} style={{ display: 'block', width: '100%' }}>
        {children(value || placeholder)}
      </UnstyledButton>
    );
  }
  const save = async () => {
    if (saving) return;
    if (draft === value) {
      setDraft(null);
      return;
    }
    setSaving(true);
    try {
      await onSave(draft);
      setDraft(null);
    } catch {
      // Kept open with the text typed; the page said why.
    } finally {
      setSaving(false);
    }
  };
  const common = {
    'aria-label': label,
    value: draft,
    autoFocus: true,
    disabled: saving,
    onChange: (event: { currentTarget: { value: string } }) => setDraft(event.currentTarget.value),
    onBlur: () => void save(),
  };
  return multiline ? (
    <Textarea
      {...common}
      autosize
      minRows={2}
      onKeyDown={(event) => {
        if (event.key === 'Escape') setDraft(null);
        if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) void save();
      }}
    />
  ) : (
    <TextInput
      {...common}
      size="lg"
      onKeyDown={(event) => {
        if (event.key === 'Escape') setDraft(null);
        if (event.key === 'Enter') void save();
      }}
    />
  );
}
