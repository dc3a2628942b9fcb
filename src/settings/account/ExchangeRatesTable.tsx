import { ActionIcon, Button, Group, ScrollArea, Stack, Table, Text, TextInput, Tooltip } from '@mantine/core';
import { DateInput } from '@mantine/dates';
import type { UseFormReturnType } from '@mantine/form';
import { IconCalendar, IconPlus, IconTrash } from '@tabler/icons-react';
import type { AccountSettingsForm } from '../../../models/accountSettings';

/** How the since date is shown and typed. */
export const SINCE_INPUT_FORMAT = 'DD-MM-YYYY';

const DMY = /^(\d{1,2})[-./](\d{1,2})[-./](\d{4})$/;
const YMD = /^(\d{4})-(\d{1,2})-(\d{1,2})$/;

/** A typed date, DD-MM-YYYY (or YYYY-MM-DD), as YYYY-MM-DD; null when it is no date. */
export function parseSinceInput(text: string): string | null {
  const value = text.trim();
  const dmy = DMY.exec(value);
  const ymd = YMD.exec(value);
  const parts = dmy ? [dmy[3], dmy[2], dmy[1]] : ymd ? [ymd[1], ymd[2], ymd[3]] : null;
  if (!parts) return null;
  const [year, month, day] = parts.map(Number) as [number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return null;
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

interface ExchangeRatesTableProps {
  form: UseFormReturnType<AccountSettingsForm>;
  /** The account currency (what one unit of buys each rate). */
  accountCurrency: string;
  /** The currencies each row needs a rate for. */
  currencies: readonly string[];
}

/**
 * The account's own exchange rates: rows of a since date and a rate per used currency, each
 * row holding from its date until the next row's.
 */
export function ExchangeRatesTable({ form, accountCurrency, currencies }: ExchangeRatesTableProps) {
  const rows = form.values.exchange_rates;
  const tableError = form.errors.exchange_rates;

  const handleAdd = () => form.insertListItem('exchange_rates', { since: '', rates: Object.fromEntries(currencies.map((iso) => [iso, ''])) });
  const handleRemove = (index: number) => form.removeListItem('exchange_rates', index);

  return (
    <Stack gap="sm">
      <Text size="sm" c="dimmed">
        {currencies.length === 0
          ? `All your payments are in ${accountCurrency || 'the account currency'}, so there is nothing to convert yet.`
          : `How many units of each currency one ${accountCurrency} buys, from the row's date until the next row's.`}
      </Text>
      {rows.length > 0 ? (
        <ScrollArea type="auto" offsetScrollbars="x">
          <Table verticalSpacing="xs" horizontalSpacing="xs" aria-label="Exchange rates" style={{ minWidth: 200 + currencies.length * 130 }}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th w={180}>Since</Table.Th>
                {currencies.map((iso) => (
                  <Table.Th key={iso}>
                    1 {accountCurrency} in {iso}
                  </Table.Th>
                ))}
                <Table.Th w={44}>
                  <Text span size="xs" style={{ visibility: 'hidden' }}>
                    Remove
                  </Text>
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((row, index) => {
                const sincePath = `exchange_rates.${index}.since`;
                return (
                  // Rows have no id of their own; their position is what the form's paths name.
                  <Table.Tr key={index} style={{ verticalAlign: 'top' }}>
                    <Table.Td>
                      <DateInput
                        aria-label={`Since, row ${index + 1}`}
                        placeholder={SINCE_INPUT_FORMAT}
                        valueFormat={SINCE_INPUT_FORMAT}
                        dateParser={parseSinceInput}
                        leftSection={<IconCalendar size={16} />}
                        value={row.since || null}
                        onChange={(value) => form.setFieldValue(sincePath, value ?? '')}
                        error={form.errors[sincePath]}
                        popoverProps={{ withinPortal: true }}
                      />
                    </Table.Td>
                    {currencies.map((iso) => (
                      <Table.Td key={iso}>
                        <TextInput
                          aria-label={`${iso} rate, row ${index + 1}`}
                          inputMode="decimal"
                          placeholder="4.24"
                          {...form.getInputProps(`exchange_rates.${index}.rates.${iso}`)}
                          value={row.rates[iso] ?? ''}
                        />
                      </Table.Td>
                    ))}
                    <Table.Td>
                      <Tooltip label="Remove row">
                        <ActionIcon variant="subtle" color="gray" size="lg" aria-label={`Remove row ${index + 1}`} onClick={() => handleRemove(index)}>
                          <IconTrash size={16} />
                        </ActionIcon>
                      </Tooltip>
                    </Table.Td>
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
        </ScrollArea>
      ) : null}
      {tableError ? (
        <Text size="sm" c="red" role="alert">
          {tableError}
        </Text>
      ) : null}
      <Group>
        <Button variant="light" size="xs" leftSection={<IconPlus size={14} />} onClick={handleAdd}>
          Add row
        </Button>
      </Group>
    </Stack>
  );
}
