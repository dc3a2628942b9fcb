import { ActionIcon, Menu } from '@mantine/core';
import { IconArrowDown, IconArrowUp, IconChartLine, IconDots, IconFilter, IconMathFunction, IconTrash } from '@tabler/icons-react';
import { Link } from 'wouter';
import type { ReportSection } from '../reportApi';
import { KeyNumberMenuItem } from '../../keyNumbers/KeyNumberMenuItem';
import { SectionExportMenuItems } from '../../exports/SectionExportMenuItems';

export interface SectionMenuProps {
  section: ReportSection;
  /** The segment the card shows (exports export it); undefined: the total. */
  segmentId?: string | undefined;
  /** First or last section: moving up or down is disabled there. */
  first: boolean;
  last: boolean;
  /** False when the section definitions could not be fetched (chart settings need them). */
  settingsAvailable?: boolean;
  /** A custom section's editor page ('Edit calculation'); undefined for the catalogue's charts. */
  calculationHref?: string | undefined;
  onMoveUp(): void;
  onMoveDown(): void;
  /** Opens the chart settings dialog (chart type, hierarchy, resolution, data category). */
  onOpenSettings(): void;
  /** Opens the segments dialog (add, remove, expand grouped segments). */
  onOpenSegments(): void;
  /** Asks to confirm, then deletes the section. */
  onDelete(): void;
}

/**
 * The section's menu for the report's editors (the card header's '⋯' button).
 *
 * ADDING AN ITEM: one JSX line in the group it belongs to below (a feature's group is a
 * component rendering its own divider and items, like KeyNumberMenuItem). An item is a `<Menu.Item>` (or a component rendering some), so it closes the menu on click and
 * is reachable with the arrow keys. Keep the groups in this order: Position, Chart, then other
 * features' groups, then Danger last.
 */
export function SectionMenu({ section, segmentId, first, last, settingsAvailable = true, calculationHref, onMoveUp, onMoveDown, onOpenSettings, onOpenSegments, onDelete }: SectionMenuProps) {
  return (
    <Menu position="bottom-end" withinPortal shadow="md" width={240}>
      <Menu.Target>
        <ActionIcon variant="subtle" color="gray" aria-label={`Section menu of ${section.title}`}>
          <IconDots size={18} />
        </ActionIcon>
      </Menu.Target>
      <Menu.Dropdown>
        {/* ---- Position (groups of one or two need no label: the menu stays short enough for a laptop screen) ---- */}
        <Menu.Item leftSection={<IconArrowUp size={16} />} disabled={first} onClick={onMoveUp}>
          Move up
        </Menu.Item>
        <Menu.Item leftSection={<IconArrowDown size={16} />} disabled={last} onClick={onMoveDown}>
          Move down
        </Menu.Item>

        {/* ---- Chart ---- */}
        <Menu.Divider />
        {calculationHref && (
          <Menu.Item component={Link} href={calculationHref} leftSection={<IconMathFunction size={16} />}>
            Edit calculation
          </Menu.Item>
        )}
        <Menu.Item leftSection={<IconChartLine size={16} />} disabled={!settingsAvailable} onClick={onOpenSettings}>
          Chart settings
        </Menu.Item>
        <Menu.Item leftSection={<IconFilter size={16} />} onClick={onOpenSegments}>
          Segments
        </Menu.Item>

        {/* ---- Key numbers: add the 'Add to key numbers' item here ---- */}
        <KeyNumberMenuItem section={section} />

        {/* ---- Export: add export items here ---- */}
        <SectionExportMenuItems section={section} {...(segmentId ? { segmentId } : {})} />

        {/* ---- Danger (always last) ---- */}
        <Menu.Divider />
        <Menu.Item color="red" leftSection={<IconTrash size={16} />} onClick={onDelete}>
          Delete section
        </Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}
