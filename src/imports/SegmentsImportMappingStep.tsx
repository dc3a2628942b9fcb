import { Badge, Button, Group, Select, Stack, Switch, Table, Text, Title } from '@mantine/core';
import type { ComboboxData } from '@mantine/core';
import { shallowEqual, useSelector } from '@xstate/react';
import { IconArrowBackUp, IconCheck, IconCircleDashed, IconTableImport } from '@tabler/icons-react';
import { roleOfColumn, SEGMENTS_COLUMN_ROLE_LABELS, SEGMENTS_COLUMN_ROLES } from '../../machines/segmentsImport/mapping';
import type { SegmentsImportActorRef } from '../../machines/segmentsImport/segmentsImportMachine';
import {
  selectFailureMessages,
  selectFile,
  selectIsSubmittingMapping,
  selectMapping,
  selectPreview,
  selectRowsToImport,
  selectSkipHeaders,
  selectUnmappedRoles,
} from '../../machines/segmentsImport/selectors';
import type { SegmentsColumnMapping, SegmentsColumnRole, SegmentsImportPreview } from '../../machines/segmentsImport/types';
import { FailureAlert } from '../components/FailureAlert';

/** The Select value of a column mapped to no role. */
const NOT_MAPPED = 'not_mapped';

const ROLE_OPTIONS: ComboboxData = [
  { value: NOT_MAPPED, label: 'Not mapped' },
  ...SEGMENTS_COLUMN_ROLES.map((role) => ({ value: role, label: SEGMENTS_COLUMN_ROLE_LABELS[role] })),
];

function isRole(value: string | null): value is SegmentsColumnRole {
  return value !== null && (SEGMENTS_COLUMN_ROLES as readonly string[]).includes(value);
}

const rowCount = (count: number) => (count === 1 ? '1 row' : `${count} rows`);

/** Step 2: the first rows of the file, a role per column, 'Skip headers', and Import. */
export function SegmentsImportMappingStep({ actor }: { actor: SegmentsImportActorRef }) {
  const preview = useSelector(actor, selectPreview);
  const file = useSelector(actor, selectFile);
  const mapping = useSelector(actor, selectMapping);
  const unmapped = useSelector(actor, selectUnmappedRoles, shallowEqual);
  const skipHeaders = useSelector(actor, selectSkipHeaders);
  const rowsToImport = useSelector(actor, selectRowsToImport);
  const submitting = useSelector(actor, selectIsSubmittingMapping);
  const failure = useSelector(actor, (snapshot) => selectFailureMessages(snapshot, ['mapping', 'finalize']), shallowEqual);

  if (!preview) return null;

  return (
    <Stack gap="lg" pt="lg">
      <Group justify="space-between" align="flex-start" gap="md">
        <Stack gap={2}>
          <Title order={2} fz="lg">
            Map the columns of {file?.name ?? 'your file'}
          </Title>
          <Text size="sm" c="dimmed">
            {rowCount(preview.totalRows)} · the first {preview.rows.length} shown below. Pick the column of the customer ID and the
            column of the value; leave the others not mapped.
          </Text>
        </Stack>
        <Button
          variant="subtle"
          leftSection={<IconArrowBackUp size={16} />}
          onClick={() => actor.send({ type: 'segmentsImport.reset' })}
          disabled={submitting}
        >
          Choose another file
        </Button>
      </Group>

      <MappedRoles unmapped={unmapped} />

      <Switch
        label="Skip headers"
        description="The first row holds column names, not a customer"
        checked={skipHeaders}
        disabled={submitting}
        onChange={(event) => actor.send({ type: 'segmentsImport.skipHeadersChanged', skipHeaders: event.currentTarget.checked })}
      />

      {preview.rows.length > 0 ? (
        <PreviewTable preview={preview} mapping={mapping} skipHeaders={skipHeaders} disabled={submitting} actor={actor} />
      ) : (
        <Text c="dimmed" size="sm">
          The file has no rows to preview.
        </Text>
      )}

      <FailureAlert messages={failure} title="The values cannot be imported yet" />

      <Group justify="flex-end">
        <Button
          leftSection={<IconTableImport size={16} />}
          loading={submitting}
          onClick={() => actor.send({ type: 'segmentsImport.finalize' })}
        >
          Import {rowCount(rowsToImport)}
        </Button>
      </Group>
    </Stack>
  );
}

/** The two roles a file needs, each marked mapped or not. */
function MappedRoles({ unmapped }: { unmapped: readonly SegmentsColumnRole[] }) {
  return (
    <Stack gap={6}>
      <Text size="sm" fw={500} id="segments-import-roles">
        Columns to map
      </Text>
      <Group gap="xs" role="list" aria-labelledby="segments-import-roles">
        {SEGMENTS_COLUMN_ROLES.map((role) => {
          const mapped = !unmapped.includes(role);
          return (
            <Badge
              key={role}
              role="listitem"
              variant="light"
              color={mapped ? 'teal' : 'gray'}
              leftSection={mapped ? <IconCheck size={12} /> : <IconCircleDashed size={12} />}
              aria-label={`${SEGMENTS_COLUMN_ROLE_LABELS[role]}: ${mapped ? 'mapped' : 'not mapped'}`}
            >
              {SEGMENTS_COLUMN_ROLE_LABELS[role]}
            </Badge>
          );
        })}
      </Group>
    </Stack>
  );
}

interface PreviewTableProps {
  preview: SegmentsImportPreview;
  mapping: SegmentsColumnMapping;
  skipHeaders: boolean;
  disabled: boolean;
  actor: SegmentsImportActorRef;
}

/** The first rows, with a role picker over each column; the skipped header row and unmapped columns are dimmed. */
function PreviewTable({ preview, mapping, skipHeaders, disabled, actor }: PreviewTableProps) {
  const columns = Array.from({ length: preview.columns }, (_, index) => index);
  return (
    <Table.ScrollContainer minWidth={Math.max(480, 72 + preview.columns * 170)}>
      <Table withTableBorder withColumnBorders verticalSpacing="xs" aria-label="Preview of the first rows">
        <Table.Thead>
          <Table.Tr>
            <Table.Th w={72}>Row</Table.Th>
            {columns.map((column) => (
              <Table.Th key={column} miw={160}>
                <Select
                  size="xs"
                  aria-label={`Role of column ${column + 1}`}
                  data={ROLE_OPTIONS}
                  value={roleOfColumn(mapping, column) ?? NOT_MAPPED}
                  allowDeselect={false}
                  disabled={disabled}
                  onChange={(value) => actor.send({ type: 'segmentsImport.mapColumn', column, role: isRole(value) ? value : null })}
                />
              </Table.Th>
            ))}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {preview.rows.map((row, rowIndex) => {
            const skipped = skipHeaders && rowIndex === 0;
            return (
              <Table.Tr key={rowIndex} aria-label={skipped ? 'Header row, skipped' : `Row ${rowIndex + 1}`}>
                <Table.Td>
                  <Group gap={6} wrap="nowrap">
                    <Text size="sm" c="dimmed">
                      {rowIndex + 1}
                    </Text>
                    {skipped ? (
                      <Badge size="xs" variant="default">
                        Skipped
                      </Badge>
                    ) : null}
                  </Group>
                </Table.Td>
                {columns.map((column) => (
                  <Table.Td
                    key={column}
                    c={skipped || roleOfColumn(mapping, column) === null ? 'dimmed' : undefined}
                    fs={skipped ? 'italic' : undefined}
                    style={{ whiteSpace: 'nowrap' }}
                  >
                    {row[column] ?? ''}
                  </Table.Td>
                ))}
              </Table.Tr>
            );
          })}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
