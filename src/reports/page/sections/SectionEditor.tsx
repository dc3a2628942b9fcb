import { Text } from '@mantine/core';
import { modals } from '@mantine/modals';
import { useState } from 'react';
import type { ReportSection } from '../reportApi';
import { SectionMenu } from './SectionMenu';
import { SectionSegmentsModal } from './SectionSegmentsModal';
import { SectionSettingsModal } from './SectionSettingsModal';
import type { SectionChange, SectionDefinition } from './sectionsApi';
import { CUSTOM_SECTION_CHOICES, USER_FILTERED_DEFINITION_ID } from '../../../../models/customSections';

/**
 * What the report page does for a section's editing (useSectionEditing): each call shows the
 * spec's failure toast and rejects when it could not.
 */
export interface SectionActions {
  move(sectionId: string, direction: -1 | 1): Promise<void>;
  /** Title or description (no recalculation). */
  saveText(sectionId: string, change: { title: string } | { summary: string }): Promise<void>;
  /** Chart settings or segments (the report is recalculated). */
  saveSettings(sectionId: string, changes: SectionChange[]): Promise<void>;
  removeSegment(sectionId: string, segmentId: string): Promise<void>;
  expandSegment(sectionId: string, segmentId: string): Promise<string[]>;
  remove(sectionId: string): Promise<void>;
}

export interface SectionEditorProps {
  section: ReportSection;
  /** The segment the card shows (exports export it). */
  segmentId?: string | undefined;
  first: boolean;
  last: boolean;
  /** The section's definition; undefined while loading or when the definitions could not be fetched. */
  definition: SectionDefinition | undefined;
  /** A custom section's editor page (the menu's 'Edit calculation'); undefined for the catalogue's charts. */
  calculationHref?: string | undefined;
  actions: SectionActions;
}

/** The section's menu for editors, with the dialogs it opens (chart settings, segments, delete confirmation). */
export function SectionEditor({ section, segmentId, first, last, definition, calculationHref, actions }: SectionEditorProps) {
  const [dialog, setDialog] = useState<'settings' | 'segments' | null>(null);
  const close = () => setDialog(null);
  // A custom section is not in the catalogue: its chart settings are the same for every one.
  const choices = section.definition_id === USER_FILTERED_DEFINITION_ID ? CUSTOM_SECTION_CHOICES : definition;

  const confirmDelete = () =>
    modals.openConfirmModal({
      title: 'Delete section',
      children: <Text size="sm">{`Delete "${section.title}" from this report? Its chart, key number and comments go with it.`}</Text>,
      labels: { confirm: 'Delete', cancel: 'Cancel' },
      confirmProps: { color: 'red' },
      onConfirm: () => void actions.remove(section.id).catch(() => undefined),
    });

  return (
    <>
      <SectionMenu
        section={section}
        segmentId={segmentId}
        first={first}
        last={last}
        settingsAvailable={choices !== undefined}
        calculationHref={calculationHref}
        onMoveUp={() => void actions.move(section.id, -1).catch(() => undefined)}
        onMoveDown={() => void actions.move(section.id, 1).catch(() => undefined)}
        onOpenSettings={() => setDialog('settings')}
        onOpenSegments={() => setDialog('segments')}
        onDelete={confirmDelete}
      />
      {choices && (
        <SectionSettingsModal opened={dialog === 'settings'} onClose={close} section={section} definition={choices} onSave={(changes) => actions.saveSettings(section.id, changes)} />
      )}
      <SectionSegmentsModal
        opened={dialog === 'segments'}
        onClose={close}
        section={section}
        definition={definition}
        onAdd={(segmentId) => actions.saveSettings(section.id, [{ segment_ids: [...section.segment_ids.filter((id) => id !== 'total'), segmentId] }])}
        onRemove={(segmentId) => actions.removeSegment(section.id, segmentId)}
        onExpand={(segmentId) => actions.expandSegment(section.id, segmentId)}
      />
    </>
  );
}
