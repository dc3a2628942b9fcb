import { ActionIcon, Badge, Group, Skeleton, Stack, Table, Text, Title, Tooltip } from '@mantine/core';
import { IconPencil } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { apiKey, queryState } from '../../api/queries';
import type { Customer, CustomerSegment, CustomerServices } from '../customersApi';
import { SegmentValueDialog } from './SegmentValueDialog';

/**
 * The account's customer segments (every attribute a customer may have a value of), as the
 * server answers them. Its own key: the report view drawer caches the same path mapped to
 * another shape under `apiKey('/customer_segments')` (src/reports/filters/filtersApi.ts).
 */
export const customerSegmentsKey = apiKey('/customer_segments', { answer: 'items' });

/**
 * The customer's attributes: every customer segment of the account (`GET /customer_segments`)
 * with the customer's value now ('–' when it has none), each editable in the segment values
 * dialog. While the account's segments load, or when they cannot be read, the customer's own
 * values are listed.
 */
export function CustomerSegments({ customer, services }: { customer: Customer; services: CustomerServices }) {
  const [editing, setEditing] = useState<CustomerSegment | null>(null);
  const segments = queryState(
    useQuery({
      queryKey: customerSegmentsKey,
      queryFn: ({ signal }) => services.segments(signal),
    }),
  );
  const valueOf = (segmentId: string) => customer.segments.find((entry) => entry.segment.id === segmentId)?.value ?? null;
  const own = customer.segments.map((entry) => entry.segment);
  const listed: CustomerSegment[] = segments.status === 'loaded' ? segments.data : own;
  if (segments.status === 'loaded' && listed.length === 0) return null;

  return (
    <Stack gap="xs">
      <Title order={3} size="h5">
        Attributes
      </Title>
      {segments.status === 'loading' && own.length === 0 ? (
        <Skeleton height={64} />
      ) : (
        <Table fz="sm" aria-label="Attributes" verticalSpacing={4}>
          <Table.Tbody>
            {listed.map((segment) => {
              const value = valueOf(segment.id);
              return (
                <Table.Tr key={segment.id}>
                  <Table.Td w="40%">
                    <Group gap={6}>
                      <Text size="sm" fw={500}>
                        {segment.name}
                      </Text>
                      {segment.time_sensitive && (
                        <Badge size="xs" variant="light" color="gray">
                          monthly
                        </Badge>
                      )}
                    </Group>
                  </Table.Td>
                  <Table.Td>{value ?? <Text c="dimmed" span size="sm">–</Text>}</Table.Td>
                  <Table.Td w={40} ta="right">
                    <Tooltip label={`Edit ${segment.name}`}>
                      <ActionIcon variant="subtle" color="gray" aria-label={`Edit ${segment.name}`} onClick={() => setEditing(segment)}>
                        <IconPencil size={16} />
                      </ActionIcon>
                    </Tooltip>
                  </Table.Td>
                </Table.Tr>
              );
            })}
          </Table.Tbody>
        </Table>
      )}
      <SegmentValueDialog
        customerId={customer.id}
        customerName={customer.name}
        segment={editing}
        value={editing ? valueOf(editing.id) : null}
        services={services}
        onClose={() => setEditing(null)}
      />
    </Stack>
  );
}
