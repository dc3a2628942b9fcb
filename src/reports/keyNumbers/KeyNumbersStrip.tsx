import { CloseButton, Group, Paper, SimpleGrid, Skeleton, Stack, Text } from '@mantine/core';
import { formatValue, valueUnitOf, type ValueFormat } from '../charts/format';
import { valueFormatOf } from '../charts/sectionModel';
import type { ReportSection } from '../page/reportApi';
import { useKeyNumbers } from './KeyNumbersContext';
import { keyOf, type KeyNumber } from './keyNumbersApi';

/** How a key number reads: its title, value and period. */
export interface ShownKeyNumber {
  title: string;
  value: string;
  period: string | null;
}

/** A kind's unit when the key number does not say (currency: money, percent: a fraction). */
function formatOfItem(item: KeyNumber, reportCurrency: string): ValueFormat {
  const unit = item.unit ? valueUnitOf(item.unit) : item.kind === 'currency' ? 'minor_units' : item.kind === 'percent' ? 'fraction' : 'count';
  return { unit, currency: item.currency ?? (unit === 'minor_units' ? reportCurrency : null) };
}

/**
 * What the strip shows for an item: the section as the page has it (updated live by a
 * recalculation, formatted as its chart's tooltip: unit, currency, decimals, period label),
 * else the item as the server listed it.
 */
export function shownKeyNumber(item: KeyNumber, section: ReportSection | undefined, reportCurrency: string): ShownKeyNumber {
  const number = section?.key_number;
  if (section && number) {
    const period = number.time ? (section.periods.find((candidate) => candidate.first_day === number.time)?.label ?? number.time.slice(0, 7)) : null;
    return { title: section.title || item.title, value: formatValue(number.value, valueFormatOf(section)), period };
  }
  return { title: section?.title || item.title, value: formatValue(item.value, formatOfItem(item, reportCurrency)), period: item.time ? item.time.slice(0, 7) : null };
}

interface KeyNumbersStripProps {
  sections: readonly ReportSection[];
  /** The report's currency (money without one of its own). */
  currency: string;
}

/**
 * The key numbers strip above the sections: each number's title, its value at the last
 * complete period and that period; editors remove one with its ×, and add one from a
 * section's menu (KeyNumberMenuItem).
 */
export function KeyNumbersStrip({ sections, currency }: KeyNumbersStripProps) {
  const state = useKeyNumbers();
  if (!state) return null;
  const { items, failed, canEdit, pending, remove } = state;

  if (failed) {
    return canEdit ? (
      <Text size="sm" c="dimmed">
        We could not fetch key numbers.
      </Text>
    ) : null;
  }
  if (!items) {
    return (
      <SimpleGrid cols={{ base: 2, sm: 4 }} spacing="sm" aria-label="Loading key numbers" aria-busy>
        {[0, 1, 2, 3].map((index) => (
          <Skeleton key={index} height={84} radius="md" />
        ))}
      </SimpleGrid>
    );
  }
  if (items.length === 0) {
    return canEdit ? (
      <Text size="sm" c="dimmed">
        No key numbers yet: add one from a section’s menu.
      </Text>
    ) : null;
  }

  const byId = new Map(sections.map((section) => [section.id, section]));
  return (
    <SimpleGrid role="region" aria-label="Key numbers" cols={{ base: 2, sm: 3, lg: 5 }} spacing="sm">
      {items.map((item) => {
        const shown = shownKeyNumber(item, byId.get(item.section_id), currency);
        return (
          <Paper key={keyOf(item)} withBorder radius="md" p="md" role="group" aria-label={shown.title}>
            <Group justify="space-between" align="flex-start" wrap="nowrap" gap={4}>
              <Stack gap={2} miw={0}>
                <Text size="sm" c="dimmed" truncate="end">
                  {shown.title}
                </Text>
                <Text size="xl" fw={700} data-testid="key-number-value">
                  {shown.value}
                </Text>
                {shown.period && (
                  <Text size="xs" c="dimmed">
                    {shown.period}
                  </Text>
                )}
              </Stack>
              {canEdit && (
                <CloseButton
                  size="sm"
                  aria-label={`Remove ${shown.title} from key numbers`}
                  disabled={pending.includes(keyOf(item))}
                  onClick={() => void remove({ section_id: item.section_id, definition_id: item.definition_id })}
                />
              )}
            </Group>
          </Paper>
        );
      })}
    </SimpleGrid>
  );
}
