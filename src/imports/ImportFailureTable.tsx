import { Code, Stack, Table, Text } from '@mantine/core';

export interface ImportFailureTableRow {
  rowNumber: number;
  row: string;
  message: string;
}

/** The rows an import refused: row number, the row as read, and why (the import page and the attribute values import). */
export function ImportFailureTable({ failures, total }: { failures: readonly ImportFailureTableRow[]; total: number }) {
  if (failures.length === 0) {
    return (
      <Text size="sm" c="dimmed">
        The server did not list the refused rows.
      </Text>
    );
  }
  return (
    <Stack gap="xs">
      <Table.ScrollContainer minWidth={640}>
        <Table withTableBorder verticalSpacing="sm" striped aria-label="Rows that could not be imported">
          <Table.Thead>
            <Table.Tr>
              <Table.Th w={120}>Row number</Table.Th>
              <Table.Th>Row</Table.Th>
              <Table.Th>Message</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {failures.map((failure) => (
              <Table.Tr key={failure.rowNumber}>
                <Table.Td>{failure.rowNumber}</Table.Td>
                <Table.Td>
                  <Code style={{ whiteSpace: 'pre' }}>{failure.row}</Code>
                </Table.Td>
                <Table.Td>{failure.message}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {total > failures.length ? (
        <Text size="sm" c="dimmed">
          The first {failures.length} of {total} refused rows are listed.
        </Text>
      ) : null}
    </Stack>
  );
}
