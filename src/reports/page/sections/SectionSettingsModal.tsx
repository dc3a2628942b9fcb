import { Button, Group, Modal, Select, Stack, Switch } from '@mantine/core';
import { useEffect, useState } from 'react';
import type { ReportSection } from '../reportApi';
import type { SectionChange } from './sectionsApi';

type DisplayChange = Extract<SectionChange, { data_type: unknown }>;
type CategoryChange = Extract<SectionChange, { data_categories: unknown }>;
type DataType = DisplayChange['data_type'];
type Resolution = DisplayChange['resolution'];
type DataCategory = CategoryChange['data_categories'][number];

export const DATA_TYPE_LABELS: Record<string, string> = { line_chart: 'Line chart', bar_chart: 'Bar chart', stacked_bar_chart: 'Stacked bar chart', cohort: 'Cohort table' };
export const RESOLUTION_LABELS: Record<string, string> = { week: 'Week', month: 'Month', quarter: 'Quarter', year: 'Year' };
export const DATA_CATEGORY_LABELS: Record<string, string> = {
  values: 'Money',
  counts: 'Counts',
  units: 'Units',
  month_over_month_growth: 'Month over month growth',
  month_over_month_retention: 'Month over month retention',
  moving_average3: 'Moving average (3 periods)',
};

const options = (values: readonly string[], labels: Record<string, string>) => values.map((value) => ({ value, label: labels[value] ?? value }));

/** What the dialog offers: a catalogue definition's choices, or a custom section's (CUSTOM_SECTION_CHOICES). */
export interface SettingsChoices {
  readonly supported_data_types: readonly string[];
  readonly supported_grouping_periods: readonly string[];
  readonly data_categories: readonly string[];
}

interface SectionSettingsModalProps {
  opened: boolean;
  onClose(): void;
  section: ReportSection;
  definition: SettingsChoices;
  /** Saves what changed (chart type with hierarchy and resolution, then the data category); rejects when it could not. */
  onSave(changes: SectionChange[]): Promise<void>;
}

/** Chart settings of a section: chart type, customer hierarchy, resolution and data category (the definition's choices). */
export function SectionSettingsModal({ opened, onClose, section, definition, onSave }: SectionSettingsModalProps) {
  const [dataType, setDataType] = useState(section.data_type);
  const [resolution, setResolution] = useState(section.resolution);
  const [hierarchy, setHierarchy] = useState(section.use_hierarchy);
  const [category, setCategory] = useState(section.data_categories[0] ?? definition.data_categories[0] ?? 'values');
  const [saving, setSaving] = useState(false);

  useEffect(() => {
    if (!opened) return;
    setDataType(section.data_type);
    setResolution(section.resolution);
    setHierarchy(section.use_hierarchy);
    setCategory(section.data_categories[0] ?? definition.data_categories[0] ?? 'values');
  }, [opened, section, definition]);

  const save = async () => {
    const changes: SectionChange[] = [];
    if (dataType !== section.data_type || resolution !== section.resolution || hierarchy !== section.use_hierarchy) {
      changes.push({ data_type: dataType as DataType, use_hierarchy: hierarchy, resolution: resolution as Resolution });
    }
    if (category !== section.data_categories[0]) changes.push({ data_categories: [category as DataCategory] });
    if (changes.length === 0) {
      onClose();
      return;
    }
    setSaving(true);
    try {
      await onSave(changes);
      onClose();
    } catch {
      // The page said why; the dialog stays open with the choices.
    } finally {
      setSaving(false);
    }
  };

  return (
    <Modal opened={opened} onClose={() => !saving && onClose()} title={`Chart settings: ${section.title}`}>
      <Stack gap="md">
        <Select label="Chart type" data={options(definition.supported_data_types, DATA_TYPE_LABELS)} value={dataType} allowDeselect={false} onChange={(value) => value && setDataType(value)} />
        <Select label="Resolution" data={options(definition.supported_grouping_periods, RESOLUTION_LABELS)} value={resolution} allowDeselect={false} onChange={(value) => value && setResolution(value)} />
        <Switch label="Use customer hierarchy" description="Count a parent and its children as one customer" checked={hierarchy} onChange={(event) => setHierarchy(event.currentTarget.checked)} />
        <Select label="Data category" data={options(definition.data_categories, DATA_CATEGORY_LABELS)} value={category} allowDeselect={false} onChange={(value) => value && setCategory(value)} />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose} disabled={saving}>
            Cancel
          </Button>
          <Button onClick={() => void save()} loading={saving}>
            Save
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
