import { ActionIcon, Divider, Popover, Stack, Switch, Text, Tooltip } from '@mantine/core';
import { IconSettings } from '@tabler/icons-react';
import { AccountSettingsInForce } from '../../settings/account/AccountSettingsInForce';
import type { ReportSettings } from './reportApi';

export const SETTING_UPDATE_FAILURE = 'Sorry, could not update the setting. Please try again.';

type Toggle = Exclude<keyof ReportSettings, 'currency'>;

const TOGGLES: { key: Toggle; label: string; description?: string }[] = [
  { key: 'repeatable', label: 'Repeatable', description: 'A new report like this one on the first of each month' },
  { key: 'auto_refresh', label: 'Auto refresh', description: 'Refreshed once a day' },
  { key: 'display_quarters', label: 'Display quarters' },
  { key: 'subtract_forever_discount_from_mrr', label: 'Subtract forever discounts from MRR' },
  { key: 'subtract_finite_discount_from_mrr', label: 'Subtract finite discounts from MRR' },
];

interface SettingsPopoverProps {
  settings: ReportSettings;
  /** The range shows the current month (auto refresh is off otherwise). */
  showsCurrentMonth: boolean;
  disabled?: boolean;
  onChange(change: Partial<ReportSettings>): void;
}

/**
 * The report's settings: five switches, each saved when flipped (the page shows a failure and
 * keeps the old value), and the account settings in force, so a number can be explained.
 */
export function SettingsPopover({ settings, showsCurrentMonth, disabled, onChange }: SettingsPopoverProps) {
  return (
    <Popover position="bottom-end" shadow="md" trapFocus>
      <Popover.Target>
        <Tooltip label="Report settings">
          <ActionIcon variant="default" size="lg" aria-label="Report settings" disabled={disabled}>
            <IconSettings size={18} />
          </ActionIcon>
        </Tooltip>
      </Popover.Target>
      <Popover.Dropdown>
        <Stack gap="sm" w={320}>
          <Text size="sm" fw={600}>
            Settings
          </Text>
          {TOGGLES.map(({ key, label, description }) => {
            const autoRefreshOff = key === 'auto_refresh' && !showsCurrentMonth;
            return (
              <Switch
                key={key}
                label={label}
                description={autoRefreshOff ? 'Only for a report that shows the current month' : description}
                checked={autoRefreshOff ? false : settings[key]}
                disabled={autoRefreshOff}
                onChange={(event) => onChange({ [key]: event.currentTarget.checked })}
              />
            );
          })}
          <Divider my={4} />
          <AccountSettingsInForce />
        </Stack>
      </Popover.Dropdown>
    </Popover>
  );
}
