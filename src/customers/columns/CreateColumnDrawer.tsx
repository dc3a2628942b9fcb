import { ActionIcon, Button, Divider, Drawer, Group, Paper, Select, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import type { UseFormReturnType } from '@mantine/form';
import { randomId } from '@mantine/hooks';
import { IconPlus, IconTrash } from '@tabler/icons-react';
import { useSelector } from '@xstate/react';
import type { ColumnRecalculationActorRef } from '../../../machines/columnRecalculation/columnRecalculationMachine';
import { isSaving, saveFailureMessages } from '../../../machines/columnRecalculation/selectors';
import type { ColumnDefinition } from '../../../machines/columnRecalculation/types';
import { COLUMN_YEAR_FIRST, COLUMN_YEAR_LAST, DRAWER_WIDTH_MAX } from '../../../models/constants';
import { COLUMN_FETCHERS, COLUMN_VARIABLES_MAX, FORMULA_FUNCTION_NAMES, normalizeColumnDefinition } from '../../../models/customerColumns';
import { columnDefinitionErrors, compileFormula } from '../../../models/customerFormula';
import type { ColumnDefinitionInput, ColumnFetcher, ColumnVariableInput } from '../../../models/customerColumns';
import { FailureAlert } from '../../components/FailureAlert';
import { formatNumber, NO_VALUE } from '../../reports/charts/format';
import type { CustomerColumn } from '../customerListApi';

const FETCHER_LABELS: Record<ColumnFetcher, string> = { BookedTotalContractValue: 'Booked total contract value', Mrr: 'MRR' };
const FETCHER_OPTIONS = COLUMN_FETCHERS.map((fetcher) => ({ value: fetcher, label: FETCHER_LABELS[fetcher] }));
const MONTH_NAMES = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const MONTH_OPTIONS = MONTH_NAMES.map((label, index) => ({ value: String(index + 1), label }));
const YEAR_OPTIONS = Array.from({ length: COLUMN_YEAR_LAST - COLUMN_YEAR_FIRST + 1 }, (_, index) => String(COLUMN_YEAR_FIRST + index));
/** The preview's sample value of each calculation (minor units, as the server computes them). */
const SAMPLE_VALUES: Record<ColumnFetcher, number> = { BookedTotalContractValue: 120_000, Mrr: 10_000 };

type VariableValues = ColumnVariableInput & { key: string };
interface ColumnFormValues {
  name: string;
  formula: string;
  variables: VariableValues[];
}
type ColumnForm = UseFormReturnType<ColumnFormValues>;

const emptyVariable = (): VariableValues => ({ key: randomId(), fetcher: null, name: '', start_month: null, start_year: null, end_month: null, end_year: null });

function initialValues(definition: ColumnDefinition | undefined): ColumnFormValues {
  if (!definition) return { name: '', formula: '', variables: [emptyVariable()] };
  return { name: definition.name, formula: definition.formula, variables: definition.variables.map((variable) => ({ ...variable, key: randomId() })) };
}

function inputOf(values: ColumnFormValues): ColumnDefinitionInput {
  return { name: values.name, formula: values.formula, variables: values.variables.map(({ key: _key, ...variable }) => variable) };
}

const toNumber = (value: string | null): number | null => (value === null || value === '' ? null : Number(value));
const toOption = (value: number | null): string | null => (value === null ? null : String(value));

interface CreateColumnDrawerProps {
  /** The column being composed (a new one: `column` null) or edited, with its machine; null: closed. */
  editor: { actor: ColumnRecalculationActorRef; column: CustomerColumn | null } | null;
  onClose: () => void;
}

/**
 * 'Create column' (also editing a calculated column): a name, variables (a calculation over a
 * month range: booked total contract value from one month to another, or MRR at one month) and
 * a formula over the variables' names, previewed with sample values. The spec's messages come
 * from models/customerColumns.ts (the server checks the same); a refused save lists the
 * server's messages and keeps what was typed. The column's machine does the saving; the drawer
 * closes once the column is saved.
 */
export function CreateColumnDrawer({ editor, onClose }: CreateColumnDrawerProps) {
  const editing = editor?.column ?? null;
  return (
    <Drawer
      opened={editor !== null}
      onClose={onClose}
      position="right"
      size={DRAWER_WIDTH_MAX}
      padding="xl"
      title={<Text fw={650} fz="lg">{editing ? `Edit column: ${editing.name}` : 'Create column'}</Text>}
      closeButtonProps={{ 'aria-label': 'Close column editor' }}
    >
      {editor ? <ColumnFormView key={editor.actor.id} actor={editor.actor} definition={editing?.definition} onClose={onClose} /> : null}
    </Drawer>
  );
}

function ColumnFormView({ actor, definition, onClose }: { actor: ColumnRecalculationActorRef; definition: ColumnDefinition | undefined; onClose: () => void }) {
  const saving = useSelector(actor, isSaving);
  const failures = useSelector(actor, saveFailureMessages, (a, b) => a.join('\n') === b.join('\n'));
  const form = useForm<ColumnFormValues>({
    mode: 'controlled',
    initialValues: initialValues(definition),
    validate: (values) => columnDefinitionErrors(inputOf(values)),
  });
  const { variables } = form.getValues();
  const single = variables.length === 1;

  const handleSubmit = (values: ColumnFormValues) => actor.send({ type: 'column.save', input: normalizeColumnDefinition(inputOf(values)) });

  return (
    <form noValidate onSubmit={form.onSubmit(handleSubmit)}>
      <Stack gap="md">
        <TextInput label="Column name" placeholder="e.g. Bookings per MRR" withAsterisk {...form.getInputProps('name')} />
        <Stack gap="xs">
          <Text fw={500} size="sm">
            Variables
          </Text>
          {variables.map((variable, index) => (
            <VariableFields key={variable.key} form={form} index={index} variable={variable} removable={!single} />
          ))}
          {form.errors.variables ? (
            <Text c="red" size="sm">
              {form.errors.variables}
            </Text>
          ) : null}
          <Button
            variant="light"
            leftSection={<IconPlus size={16} />}
            style={{ alignSelf: 'flex-start' }}
            disabled={variables.length >= COLUMN_VARIABLES_MAX}
            onClick={() => form.insertListItem('variables', emptyVariable())}
          >
            Add variable
          </Button>
        </Stack>
        <Divider />
        <TextInput
          label="Formula"
          placeholder={single ? undefined : 'e.g. tcv / mrr'}
          description={single ? 'With one variable the column is that variable.' : `The variables' names with + - * / ^, parentheses and ${FORMULA_FUNCTION_NAMES.join(', ')}.`}
          withAsterisk={!single}
          disabled={single}
          {...form.getInputProps('formula')}
          value={single ? (variables[0]?.name.trim() ?? '') : form.getValues().formula}
        />
        <FormulaPreview values={form.getValues()} />
        <FailureAlert messages={failures} title="The column was not saved" />
        <Group justify="flex-end" gap="sm">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" loading={saving}>
            {definition ? 'Save column' : 'Create column'}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

function VariableFields({ form, index, variable, removable }: { form: ColumnForm; index: number; variable: VariableValues; removable: boolean }) {
  const path = `variables.${index}`;
  const mrr = variable.fetcher === 'Mrr';
  const setFetcher = (value: string | null) => {
    const fetcher = value as ColumnFetcher | null;
    form.setFieldValue(`${path}.fetcher`, fetcher);
    // MRR is read at one month: To is From.
    if (fetcher === 'Mrr') {
      form.setFieldValue(`${path}.end_month`, variable.start_month);
      form.setFieldValue(`${path}.end_year`, variable.start_year);
    }
  };
  const setStart = (field: 'month' | 'year', value: string | null) => {
    form.setFieldValue(`${path}.start_${field}`, toNumber(value));
    if (mrr) form.setFieldValue(`${path}.end_${field}`, toNumber(value));
  };
  return (
    <Paper withBorder p="sm" radius="md" role="group" aria-label={`Variable ${index + 1}`}>
      <Stack gap="xs">
        <Group gap="xs" wrap="nowrap" align="flex-start">
          <Select label="Calculation" placeholder="Choose a calculation" data={FETCHER_OPTIONS} withAsterisk allowDeselect={false} style={{ flex: 1 }} {...form.getInputProps(`${path}.fetcher`)} onChange={setFetcher} />
          <TextInput label="Name" placeholder="e.g. tcv" withAsterisk style={{ flex: 1 }} {...form.getInputProps(`${path}.name`)} />
          {removable ? (
            <ActionIcon variant="subtle" color="gray" size="lg" mt={26} aria-label={`Remove variable ${index + 1}`} onClick={() => form.removeListItem('variables', index)}>
              <IconTrash size={16} />
            </ActionIcon>
          ) : null}
        </Group>
        <SimpleGrid cols={{ base: 2, md: 4 }} spacing="xs">
          <Select label="From month" placeholder="Month" data={MONTH_OPTIONS} allowDeselect={false} {...form.getInputProps(`${path}.start_month`)} value={toOption(variable.start_month)} onChange={(value) => setStart('month', value)} />
          <Select label="From year" placeholder="Year" data={YEAR_OPTIONS} allowDeselect={false} {...form.getInputProps(`${path}.start_year`)} value={toOption(variable.start_year)} onChange={(value) => setStart('year', value)} />
          <Select
            label="To month"
            placeholder="Month"
            data={MONTH_OPTIONS}
            allowDeselect={false}
            disabled={mrr}
            {...form.getInputProps(`${path}.end_month`)}
            value={toOption(mrr ? variable.start_month : variable.end_month)}
            onChange={(value) => form.setFieldValue(`${path}.end_month`, toNumber(value))}
          />
          <Select
            label="To year"
            placeholder="Year"
            data={YEAR_OPTIONS}
            allowDeselect={false}
            disabled={mrr}
            {...form.getInputProps(`${path}.end_year`)}
            value={toOption(mrr ? variable.start_year : variable.end_year)}
            onChange={(value) => form.setFieldValue(`${path}.end_year`, toNumber(value))}
          />
        </SimpleGrid>
        {mrr ? (
          <Text size="xs" c="dimmed">
            MRR is read at one month: To is the same as From.
          </Text>
        ) : null}
      </Stack>
    </Paper>
  );
}

/** The formula worked out with sample values, or why it cannot be. */
function FormulaPreview({ values }: { values: ColumnFormValues }) {
  const definition = normalizeColumnDefinition(inputOf(values));
  const named = definition.variables.filter((variable) => variable.name && variable.fetcher);
  if (!definition.formula || named.length === 0) {
    return (
      <Text size="sm" c="dimmed" role="status" aria-label="Formula preview">
        The preview appears once the variables have a calculation and a name and the formula is written.
      </Text>
    );
  }
  const samples = Object.fromEntries(named.map((variable, index) => [variable.name, SAMPLE_VALUES[variable.fetcher as ColumnFetcher] * (index + 1)]));
  const compiled = compileFormula(definition.formula, definition.variables.map((variable) => variable.name));
  const result = compiled.ok ? compiled.evaluate(samples) : null;
  return (
    <Paper withBorder radius="md" p="sm" bg="var(--mantine-color-default-hover)" role="status" aria-label="Formula preview">
      <Stack gap={4}>
        <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
          Preview with sample values
        </Text>
        <Text size="sm">{Object.entries(samples).map(([name, value]) => `${name} = ${formatNumber(value)}`).join(', ')}</Text>
        {compiled.ok ? (
          <Text size="sm" fw={600}>
            {definition.formula} = {result === null ? `${NO_VALUE} (no value, e.g. a division by zero)` : formatNumber(result, Number.isInteger(result) ? 0 : 2)}
          </Text>
        ) : (
          <Text size="sm" c="red">
            {compiled.message}
          </Text>
        )}
      </Stack>
    </Paper>
  );
}
