import { Badge, Button, Group, Select, Stack, Switch, Table, Text, Title } from '@mantine/core';
import type { ComboboxData } from '@mantine/core';
import { useSelector } from '@xstate/react';
import { IconArrowBackUp, IconCheck, IconCircleDashed, IconTableImport } from '@tabler/icons-react';
import { SUBSCRIPTION_CSV_REQUIRED_FIELDS } from '../../models/constants';
import type { SubscriptionCsvField } from '../../models/constants';
import { fieldOfColumn, isRequiredField, SUBSCRIPTION_CSV_FIELD_LABELS, SUBSCRIPTION_CSV_FIELDS } from '../../machines/importWizard/mapping';
import {
  selectFailureMessages,
  selectFile,
  selectIsSubmittingMapping,
  selectMapping,
  selectMissingRequiredFields,
  selectPreview,
  selectRowsToImport,
  selectSkipHeaders,
} from '../../machines/importWizard/selectors';
import type { ColumnMapping, ImportPreview } from '../../machines/importWizard/types';
import { FailureAlert } from '../components/FailureAlert';
import type { ImportWizardActorRef } from '../../machines/importWizard/importWizardMachine';

/** The Select value of a column mapped to no field. */
const NOT_MAPPED = 'not_mapped';

const FIELD_OPTIONS: ComboboxData = [
  { value: NOT_MAPPED, label: 'Not mapped' },
  {
    group: 'Required',
    items: SUBSCRIPTION_CSV_FIELDS.filter(isRequiredField).map((field) => ({ value: field, label: SUBSCRIPTION_CSV_FIELD_LABELS[field] })),
  },
  {
    group: 'Optional',
    items: SUBSCRIPTION_CSV_FIELDS.filter((field) => !isRequiredField(field)).map((field) => ({
      value: field,
      label: SUBSCRIPTION_CSV_FIELD_LABELS[field],
    })),
  },
];

function isField(value: string | null): value is SubscriptionCsvField {
  return value !== null && (SUBSCRIPTION_CSV_FIELDS as readonly string[]).includes(value);
}

/** Step 2: the first rows of the file, a field per column, 'Skip headers', and Import. */
export function ImportWizardMappingStep({ actor }: { actor: ImportWizardActorRef }) {
  const preview = useSelector(actor, selectPreview);
  const file = useSelector(actor, selectFile);
  const mapping = useSelector(actor, selectMapping);
  const missing = useSelector(actor, selectMissingRequiredFields);
  const skipHeaders = useSelector(actor, selectSkipHeaders);
  const rowsToImport = useSelector(actor, selectRowsToImport);
  const submitting = useSelector(actor, selectIsSubmittingMapping);
  const failure = useSelector(actor, (snapshot) => selectFailureMessages(snapshot, ['mapping', 'finalize']));

  if (!preview) return null;

  return (
    <Stack gap="lg" pt="lg">
      <Group justify="space-between" align="flex-start" gap="md">
        <Stack gap={2}>
          <Title order={2} fz="lg">
            Map the columns of {file?.name ?? 'your file'}
          </Title>
          <Text size="sm" c="dimmed">
            {preview.totalRows === 1 ? '1 row' : `${preview.totalRows} rows`} · the first {preview.rows.length} shown below. Pick the field
            each column holds.
          </Text>
        </Stack>
        <Button
          variant="subtle"
          leftSection={<IconArrowBackUp size={16} />}
          onClick={() => actor.send({ type: 'importWizard.reset' })}
          disabled={submitting}
        >
          Choose another file
        </Button>
      </Group>

      <RequiredFields missing={missing} />

      <Switch
        label="Skip headers"
        description="The first row holds column names, not a payment"
        checked={skipHeaders}
        disabled={submitting}
        onChange={(event) => actor.send({ type: 'importWizard.skipHeadersChanged', skipHeaders: event.currentTarget.checked })}
      />

      <PreviewTable preview={preview} mapping={mapping} skipHeaders={skipHeaders} disabled={submitting} actor={actor} />

      <FailureAlert messages={failure} title="The payments cannot be imported yet" />

      <Group justify="flex-end">
        <Button
          leftSection={<IconTableImport size={16} />}
          loading={submitting}
          onClick={() => actor.send({ type: 'importWizard.finalize' })}
        >
          Import {rowsToImport === 1 ? '1 row' : `${rowsToImport} rows`}
        </Button>
      </Group>
    </Stack>
  );
}

/** The required fields, each marked mapped or not. */
function RequiredFields({ missing }: { missing: readonly SubscriptionCsvField[] }) {
  return (
    <Stack gap={6}>
      <Text size="sm" fw={500} id="import-required-fields">
        Required fields
      </Text>
      <Group gap="xs" role="list" aria-labelledby="import-required-fields">
        {SUBSCRIPTION_CSV_REQUIRED_FIELDS.map((field) => {
          const mapped = !missing.includes(field);
          return (
            <Badge
              key={field}
              role="listitem"
              variant="light"
              color={mapped ? 'teal' : 'gray'}
              leftSection={mapped ? <IconCheck size={12} /> : <IconCircleDashed size={12} />}
              aria-label={`${SUBSCRIPTION_CSV_FIELD_LABELS[field]}: ${mapped ? 'mapped' : 'not mapped'}`}
            >
              {SUBSCRIPTION_CSV_FIELD_LABELS[field]}
            </Badge>
          );
        })}
      </Group>
    </Stack>
  );
}

interface PreviewTableProps {
  preview: ImportPreview;
  mapping: ColumnMapping;
  skipHeaders: boolean;
  disabled: boolean;
  actor: ImportWizardActorRef;
}

/** The first rows, with a field picker over each column; the skipped header row and unmapped columns are dimmed. */
function PreviewTable({ preview, mapping, skipHeaders, disabled, actor }: PreviewTableProps) {
  const columns = Array.from({ length: preview.columns }, (_, index) => index);
  return (
    <Table.ScrollContainer minWidth={Math.max(560, 72 + preview.columns * 170)}>
      <Table withTableBorder withColumnBorders verticalSpacing="xs" aria-label="Preview of the first rows">
        <Table.Thead>
          <Table.Tr>
            <Table.Th w={72}>Row</Table.Th>
            {columns.map((column) => {
              const field = fieldOfColumn(mapping, column);
              return (
                <Table.Th key={column} miw={160}>
                  <Select
                    size="xs"
                    aria-label={`Field of column ${column + 1}`}
                    data={FIELD_OPTIONS}
                    value={field ?? NOT_MAPPED}
                    allowDeselect={false}
                    disabled={disabled}
                    onChange={(value) =>
                      actor.send({ type: 'importWizard.mapColumn', column, field: isField(value) ? value : null })
                    }
                  />
                </Table.Th>
              );
            })}
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
                    c={skipped || fieldOfColumn(mapping, column) === null ? 'dimmed' : undefined}
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
