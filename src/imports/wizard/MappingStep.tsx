import { Badge, Button, Group, Select, Stack, Switch, Table, Text, Title } from '@mantine/core';
import type { ComboboxData } from '@mantine/core';
import { shallowEqual, useSelector } from '@xstate/react';
import { IconArrowBackUp, IconCheck, IconCircleDashed, IconTableImport } from '@tabler/icons-react';
import { useMemo } from 'react';
import { isRequiredRole, isRole, roleOfColumn } from '../../../machines/mappingWizard/mapping';
import type { MappingWizardActorRef } from '../../../machines/mappingWizard/mappingWizardMachine';
import {
  selectFailureMessages,
  selectFile,
  selectIsSubmittingMapping,
  selectMapping,
  selectPreview,
  selectRowsToImport,
  selectSkipHeaders,
  selectUnmappedRequiredRoles,
} from '../../../machines/mappingWizard/selectors';
import type { ColumnMapping, FieldRolesConfig, ImportPreview } from '../../../machines/mappingWizard/types';
import { FailureAlert } from '../../components/FailureAlert';
import type { MappingWizardTexts } from './wizardTexts';

/** The Select value of a column mapped to no role. */
const NOT_MAPPED = 'not_mapped';

const rowCount = (count: number) => (count === 1 ? '1 row' : `${count} rows`);

/** A role the mapping needs: required, or one of a group of which one is. */
function isNeededRole(config: FieldRolesConfig, role: string): boolean {
  return isRequiredRole(config, role) || (config.alternatives ?? []).some((group) => group.includes(role));
}

/** The picker's options: 'Not mapped', then the roles; grouped Required / Optional when some are optional. */
function roleOptions(config: FieldRolesConfig): ComboboxData {
  const option = (role: string) => ({ value: role, label: config.labels[role] ?? role });
  const required = config.roles.filter((role) => isNeededRole(config, role));
  const optional = config.roles.filter((role) => !isNeededRole(config, role));
  const notMapped = { value: NOT_MAPPED, label: 'Not mapped' };
  if (optional.length === 0) return [notMapped, ...required.map(option)];
  return [notMapped, { group: 'Required', items: required.map(option) }, { group: 'Optional', items: optional.map(option) }];
}

interface MappingStepProps {
  actor: MappingWizardActorRef;
  config: FieldRolesConfig;
  texts: MappingWizardTexts;
}

/** Step 2: the first rows of the file, a role per column, 'Skip headers', and Import. */
export function MappingStep({ actor, config, texts }: MappingStepProps) {
  const preview = useSelector(actor, selectPreview);
  const file = useSelector(actor, selectFile);
  const mapping = useSelector(actor, selectMapping);
  const unmapped = useSelector(actor, (snapshot) => selectUnmappedRequiredRoles(snapshot, config), shallowEqual);
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
            {rowCount(preview.totalRows)} · the first {preview.rows.length} shown below. {texts.mappingHint}
          </Text>
        </Stack>
        <Button
          variant="subtle"
          leftSection={<IconArrowBackUp size={16} />}
          onClick={() => actor.send({ type: 'mappingWizard.reset' })}
          disabled={submitting}
        >
          Choose another file
        </Button>
      </Group>

      <RequiredRoles config={config} texts={texts} unmapped={unmapped} mapping={mapping} />

      <Switch
        label="Skip headers"
        description={texts.skipHeadersDescription}
        checked={skipHeaders}
        disabled={submitting}
        onChange={(event) => actor.send({ type: 'mappingWizard.skipHeadersChanged', skipHeaders: event.currentTarget.checked })}
      />

      {preview.rows.length > 0 ? (
        <PreviewTable
          config={config}
          texts={texts}
          preview={preview}
          mapping={mapping}
          skipHeaders={skipHeaders}
          disabled={submitting}
          actor={actor}
        />
      ) : (
        <Text c="dimmed" size="sm">
          The file has no rows to preview.
        </Text>
      )}

      <FailureAlert messages={failure} title={texts.mappingFailureTitle} />

      <Group justify="flex-end">
        <Button leftSection={<IconTableImport size={16} />} loading={submitting} onClick={() => actor.send({ type: 'mappingWizard.finalize' })}>
          Import {rowCount(rowsToImport)}
        </Button>
      </Group>
    </Stack>
  );
}

interface RequiredRolesProps {
  config: FieldRolesConfig;
  texts: MappingWizardTexts;
  unmapped: readonly string[];
  mapping: ColumnMapping;
}

/** The required roles and the groups of which one is needed ('Monthly amount or Total value'), each marked mapped or not. */
function RequiredRoles({ config, texts, unmapped, mapping }: RequiredRolesProps) {
  const entries = [
    ...config.required.map((role) => ({ key: role, label: config.labels[role] ?? role, mapped: !unmapped.includes(role) })),
    ...(config.alternatives ?? []).map((group) => ({
      key: group.join('|'),
      label: group.map((role) => config.labels[role] ?? role).join(' or '),
      mapped: group.some((role) => mapping[role] !== null && mapping[role] !== undefined),
    })),
  ];
  return (
    <Stack gap={6}>
      <Text size="sm" fw={500} id={texts.requiredListId}>
        {texts.requiredListTitle}
      </Text>
      <Group gap="xs" role="list" aria-labelledby={texts.requiredListId}>
        {entries.map(({ key, label, mapped }) => {
          return (
            <Badge
              key={key}
              role="listitem"
              variant="light"
              color={mapped ? 'teal' : 'gray'}
              leftSection={mapped ? <IconCheck size={12} /> : <IconCircleDashed size={12} />}
              aria-label={`${label}: ${mapped ? 'mapped' : 'not mapped'}`}
            >
              {label}
            </Badge>
          );
        })}
      </Group>
    </Stack>
  );
}

interface PreviewTableProps {
  config: FieldRolesConfig;
  texts: MappingWizardTexts;
  preview: ImportPreview;
  mapping: ColumnMapping;
  skipHeaders: boolean;
  disabled: boolean;
  actor: MappingWizardActorRef;
}

/** The first rows, with a role picker over each column; the skipped header row and unmapped columns are dimmed. */
function PreviewTable({ config, texts, preview, mapping, skipHeaders, disabled, actor }: PreviewTableProps) {
  const options = useMemo(() => roleOptions(config), [config]);
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
                  aria-label={`${texts.columnPickerWord} of column ${column + 1}`}
                  data={options}
                  value={roleOfColumn(config, mapping, column) ?? NOT_MAPPED}
                  allowDeselect={false}
                  disabled={disabled}
                  onChange={(value) => actor.send({ type: 'mappingWizard.mapColumn', column, role: isRole(config, value) ? value : null })}
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
                    c={skipped || roleOfColumn(config, mapping, column) === null ? 'dimmed' : undefined}
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
