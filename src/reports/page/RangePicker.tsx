import { Button, Group, Popover, Select, Stack, Text } from '@mantine/core';
import { IconCalendarMonth } from '@tabler/icons-react';
import { useState } from 'react';
import { YEAR_OPTIONS } from '../../../models/constants';
import { MONTH_LABELS, periodLabel, rangeError, type ReportPeriod } from '../../../models/reportRange';

export const RANGE_UPDATE_FAILURE = "Could not update your report's range";

const monthOptions = MONTH_LABELS.map((label, index) => ({ value: String(index + 1), label }));
const yearOptions = YEAR_OPTIONS.map((year) => ({ value: String(year), label: String(year) }));

interface RangePickerProps {
  period: ReportPeriod;
  today: { year: number; month: number };
  disabled?: boolean;
  /** Saves the range; rejects with the message to show. */
  onSave(period: ReportPeriod): Promise<void>;
}

/**
 * The report's range: from and to months, checked as the user picks by the spec's four rules
 * (models/reportRange.ts: not past the current month, from not after to, 3 to 72 months), with
 * the rule's message under the fields; Apply saves. What the user picked stays when saving fails.
 */
export function RangePicker({ period, today, disabled, onSave }: RangePickerProps) {
  const [opened, setOpened] = useState(false);
  const [draft, setDraft] = useState(period);
  const [saving, setSaving] = useState(false);
  const problem = rangeError(draft, today);
  const set = (key: keyof ReportPeriod) => (value: string | null) => value && setDraft((current) => ({ ...current, [key]: Number(value) }));

  return (
    <Popover
      opened={opened}
      onChange={setOpened}
      position="bottom-end"
      shadow="md"
      trapFocus
      onOpen={() => setDraft(period)}
    >
      <Popover.Target>
        <Button variant="default" leftSection={<IconCalendarMonth size={16} />} style={{ flexShrink: 0 }} disabled={disabled} onClick={() => setOpened((open) => !open)} aria-label="Report range">
          {periodLabel(period)}
        </Button>
      </Popover.Target>
      <Popover.Dropdown>
        <Stack gap="sm" w={300}>
          <Text size="sm" fw={600}>
            From
          </Text>
          <Group grow gap="xs">
            <Select aria-label="From month" data={monthOptions} value={String(draft.start_month)} onChange={set('start_month')} allowDeselect={false} comboboxProps={{ withinPortal: false }} />
            <Select aria-label="From year" data={yearOptions} value={String(draft.start_year)} onChange={set('start_year')} allowDeselect={false} comboboxProps={{ withinPortal: false }} />
          </Group>
          <Text size="sm" fw={600}>
            To
          </Text>
          <Group grow gap="xs">
            <Select aria-label="To month" data={monthOptions} value={String(draft.end_month)} onChange={set('end_month')} allowDeselect={false} comboboxProps={{ withinPortal: false }} />
            <Select aria-label="To year" data={yearOptions} value={String(draft.end_year)} onChange={set('end_year')} allowDeselect={false} comboboxProps={{ withinPortal: false }} />
          </Group>
          {problem && (
            <Text size="sm" c="red" role="alert">
              {problem}
            </Text>
          )}
          <Group justify="flex-end" gap="xs">
            <Button variant="subtle" onClick={() => setOpened(false)}>
              Cancel
            </Button>
            <Button
              disabled={problem !== null}
              loading={saving}
              onClick={async () => {
                setSaving(true);
                try {
                  await onSave(draft);
                  setOpened(false);
                } catch {
                  // The caller showed why; the picked range stays for another try.
                } finally {
                  setSaving(false);
                }
              }}
            >
              Apply
            </Button>
          </Group>
        </Stack>
      </Popover.Dropdown>
    </Popover>
  );
}
