import { Autocomplete, Badge, Button, Group, Loader, Modal, Select, SimpleGrid, Skeleton, Stack, Table, Text, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { FormEvent } from 'react';
import { SEARCH_DEBOUNCE_MS, SEGMENT_HISTORY_ENTRIES, SUGGESTIONS_LIMIT, YEAR_OPTIONS } from '../../../models/constants';
import { SEGMENT_SUGGESTIONS_FAILURE_MESSAGE, SEGMENT_VALUE_UPDATE_FAILURE_MESSAGE } from '../../../models/customers';
import { MONTH_LABELS } from '../../../models/reportRange';
import { apiKey, queryState, type QueryState } from '../../api/queries';
import type { CustomerSegment, CustomerServices, SegmentValueEntry } from '../customersApi';
import { useCustomerChange } from './useCustomerChange';

export interface SegmentValueDialogProps {
  customerId: string;
  customerName: string;
  /** The segment edited; null: closed. */
  segment: CustomerSegment | null;
  /** Its value now. */
  value: string | null;
  services: CustomerServices;
  onClose: () => void;
}

/** The cache key of a customer's history of one segment. */
export const segmentHistoryKey = (customerId: string, segmentId: string) => apiKey('/customer_segment_values/{customerId}/{segmentId}', { customerId, segmentId });

/** Newest first, at most SEGMENT_HISTORY_ENTRIES. */
export function newestFirst(entries: readonly SegmentValueEntry[]): SegmentValueEntry[] {
  return [...entries].sort((a, b) => b.year - a.year || b.month - a.month).slice(0, SEGMENT_HISTORY_ENTRIES);
}

const monthLabel = (entry: { year: number; month: number }) => `${MONTH_LABELS[entry.month - 1] ?? entry.month} ${entry.year}`;

/**
 * A customer's attribute (segment) value edited: the value with suggestions from the segment's
 * values (`GET /customer_segments/{id}/search_values`, SEARCH_DEBOUNCE_MS after typing stops, at
 * most SUGGESTIONS_LIMIT); for a time-sensitive segment the month it holds from and the last
 * SEGMENT_HISTORY_ENTRIES values, newest first. Saved with
 * `PUT /customer_segment_values/{customerId}/{segmentId}`; an empty value clears it.
 */
export function SegmentValueDialog({ segment, ...props }: SegmentValueDialogProps) {
  return (
    <Modal opened={segment !== null} onClose={props.onClose} title={segment ? `Edit ${segment.name}` : ''} size="lg" closeButtonProps={{ 'aria-label': 'Close' }}>
      {segment && <SegmentValueForm key={segment.id} segment={segment} {...props} />}
    </Modal>
  );
}

function SegmentValueForm({ customerId, customerName, segment, value: current, services, onClose }: Omit<SegmentValueDialogProps, 'segment'> & { segment: CustomerSegment }) {
  const queryClient = useQueryClient();
  const today = new Date();
  const [value, setValue] = useState(current ?? '');
  const [month, setMonth] = useState(today.getMonth() + 1);
  const [year, setYear] = useState(today.getFullYear());
  const [query] = useDebouncedValue(value.trim(), SEARCH_DEBOUNCE_MS);

  const suggestions = useQuery({
    queryKey: apiKey('/customer_segments/{id}/search_values', { id: segment.id, query, limit: SUGGESTIONS_LIMIT }),
    queryFn: ({ signal }) => services.segmentSuggestions(segment.id, query, signal),
    meta: { failureToast: SEGMENT_SUGGESTIONS_FAILURE_MESSAGE(segment.name) },
    staleTime: Infinity,
  });
  const history = queryState(
    useQuery({
      queryKey: segmentHistoryKey(customerId, segment.id),
      enabled: segment.time_sensitive,
      queryFn: ({ signal }) => services.segmentHistory(customerId, segment.id, signal),
    }),
  );

  const save = useCustomerChange({
    call: (entry: SegmentValueEntry) => services.setSegmentValue(customerId, segment.id, entry),
    failure: SEGMENT_VALUE_UPDATE_FAILURE_MESSAGE,
    onDone: (entries) => {
      queryClient.setQueryData(segmentHistoryKey(customerId, segment.id), entries);
      onClose();
    },
  });

  const handleSubmit = (event: FormEvent) => {
    event.preventDefault();
    const trimmed = value.trim();
    void save.run({ year, month, value: trimmed === '' ? null : trimmed });
  };

  const options = (suggestions.data ?? []).filter((option, index, all) => all.indexOf(option) === index);
  return (
    <form onSubmit={handleSubmit} noValidate>
      <Stack gap="md">
        <Text size="sm" c="dimmed">
          {segment.time_sensitive ? `${customerName}’s ${segment.name} from the month chosen on.` : `${customerName}’s ${segment.name}.`} Leave it empty to clear it.
        </Text>
        <Autocomplete
          label="Value"
          placeholder="Start typing a value"
          data-autofocus
          value={value}
          onChange={setValue}
          data={options}
          // The server already narrowed the suggestions by the text.
          filter={({ options: all }) => all}
          rightSection={suggestions.isFetching ? <Loader size="xs" aria-label="Loading suggestions" /> : undefined}
          comboboxProps={{ withinPortal: true }}
        />
        {segment.time_sensitive && (
          <SimpleGrid cols={2}>
            <Select label="From month" data={MONTH_LABELS.map((label, index) => ({ value: String(index + 1), label }))} value={String(month)} onChange={(next) => next && setMonth(Number(next))} allowDeselect={false} />
            <Select label="From year" data={YEAR_OPTIONS.map(String)} value={String(year)} onChange={(next) => next && setYear(Number(next))} allowDeselect={false} />
          </SimpleGrid>
        )}
        {segment.time_sensitive && <History history={history} />}
        <Group justify="flex-end" mt="sm">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" loading={save.pending}>
            Save
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

function History({ history }: { history: QueryState<SegmentValueEntry[]> }) {
  return (
    <Stack gap={6}>
      <Title order={3} size="h6">
        History
      </Title>
      {history.status === 'loading' && <Skeleton height={96} />}
      {history.status === 'failed' && (
        <Text size="sm" c="dimmed">
          We could not fetch the history of this value.
        </Text>
      )}
      {history.status === 'loaded' &&
        (history.data.length === 0 ? (
          <Text size="sm" c="dimmed">
            No values yet
          </Text>
        ) : (
          <Table fz="sm" striped aria-label="History">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>From</Table.Th>
                <Table.Th>Value</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {newestFirst(history.data).map((entry, index) => (
                <Table.Tr key={`${entry.year}-${entry.month}`}>
                  <Table.Td>
                    <Group gap="xs">
                      {monthLabel(entry)}
                      {index === 0 && (
                        <Badge size="xs" variant="light">
                          latest
                        </Badge>
                      )}
                    </Group>
                  </Table.Td>
                  <Table.Td>{entry.value ?? '–'}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        ))}
    </Stack>
  );
}
