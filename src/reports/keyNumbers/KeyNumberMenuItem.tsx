import { Menu } from '@mantine/core';
import { IconStar, IconStarOff } from '@tabler/icons-react';
import type { ReportSection } from '../page/reportApi';
import { useKeyNumbers } from './KeyNumbersContext';
import { keyOf } from './keyNumbersApi';

interface KeyNumberMenuItemProps {
  section: Pick<ReportSection, 'id' | 'definition_id' | 'key_number' | 'recalculation_status'>;
}

/**
 * 'Add to key numbers' / 'Remove from key numbers' in a section's menu, for editors. A section
 * computed without a key number (a cohort table) offers nothing to add.
 */
export function KeyNumberMenuItem({ section }: KeyNumberMenuItemProps) {
  const state = useKeyNumbers();
  if (!state?.canEdit || !state.items) return null;
  const ref = { section_id: section.id, definition_id: section.definition_id };
  const added = state.has(ref);
  if (!added && section.recalculation_status === 'recalculated' && section.key_number === null) return null;
  const pending = state.pending.includes(keyOf(ref));
  return (
    <>
      <Menu.Divider />
      {added ? (
        <Menu.Item leftSection={<IconStarOff size={16} />} disabled={pending} onClick={() => void state.remove(ref)}>
          Remove from key numbers
        </Menu.Item>
      ) : (
        <Menu.Item leftSection={<IconStar size={16} />} disabled={pending} onClick={() => void state.add(ref)}>
          Add to key numbers
        </Menu.Item>
      )}
    </>
  );
}
