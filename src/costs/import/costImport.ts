import { createMappingWizardMachine } from '../../../machines/mappingWizard/mappingWizardMachine';
import type { MappingWizardServices } from '../../../machines/mappingWizard/mappingWizardActors';
import { IMPORT_FAILURE_MESSAGE, UPLOAD_FAILURE_MESSAGE } from '../../../machines/mappingWizard/messages';
import type { ColumnMapping, FieldRolesConfig } from '../../../machines/mappingWizard/types';
import { COST_MAPPING_DATE_REQUIRED, COST_MAPPING_VALUE_REQUIRED } from '../../../models/costs';
import type { ApiClient } from '../../api/client';
import { refusal, toImportPreview, toImportStatus, uploadForm } from '../../imports/wizard/wizardApi';

/**
 * The cost CSV import (/import-costs) as a mapping wizard: its field roles (value and date
 * required; currency, due date, invoice number, name and one role per cost attribute optional)
 * and its calls. The import runs inside the finalize call, so the first status poll finds it done.
 */

export const COST_FIELD_ROLES = ['value', 'currency', 'date', 'due_date', 'invoice_number', 'name'] as const;
export type CostFieldRole = (typeof COST_FIELD_ROLES)[number];
const ATTRIBUTE_ROLE = 'attribute:';

export const COST_ROLE_LABELS: Record<CostFieldRole, string> = {
  value: 'Value',
  currency: 'Currency',
  date: 'Date',
  due_date: 'Due date',
  invoice_number: 'Invoice number',
  name: 'Name',
};

/** Headings that name a role ('Amount', 'due_date', 'Invoice no', any case). */
const HEADINGS: Record<CostFieldRole, RegExp> = {
  value: /^(value|amount|cost|total|net|gross)$/i,
  currency: /^(currency|curr|iso)$/i,
  date: /^(date|cost[\s_-]*date|issued?([\s_-]*(at|on|date))?)$/i,
  due_date: /^(due([\s_-]*(date|at|on))?)$/i,
  invoice_number: /^(invoice([\s_-]*(number|no|#|id))?)$/i,
  name: /^(name|description|title)$/i,
};

const hasDigit = (cell: string | undefined) => /\d/.test(cell ?? '');

/** The first row looks like a header: a cell names a role, or no cell has a digit while the next row has one. */
export function costsLooksLikeHeader(rows: readonly (readonly string[])[]): boolean {
  const [first, second] = rows;
  if (!first || first.length === 0) return false;
  if (first.some((cell) => COST_FIELD_ROLES.some((role) => HEADINGS[role].test(cell.trim())))) return true;
  return !first.some(hasDigit) && (second?.some(hasDigit) ?? false);
}

export function costsMappingProblem(mapping: ColumnMapping): string | null {
  if (mapping.value === null || mapping.value === undefined) return COST_MAPPING_VALUE_REQUIRED;
  if (mapping.date === null || mapping.date === undefined) return COST_MAPPING_DATE_REQUIRED;
  return null;
}

/** The import's config for the account's cost attributes. */
export function costImportConfig(attributes: readonly { id: string; name: string }[]): FieldRolesConfig {
  const roles = [...COST_FIELD_ROLES, ...attributes.map((attribute) => `${ATTRIBUTE_ROLE}${attribute.id}`)];
  const labels: Record<string, string> = { ...COST_ROLE_LABELS };
  for (const attribute of attributes) labels[`${ATTRIBUTE_ROLE}${attribute.id}`] = `Attribute: ${attribute.name}`;
  return {
    id: 'costsImport',
    roles,
    labels,
    required: ['value', 'date'],
    defaultMapping: () => Object.fromEntries(roles.map((role) => [role, null])),
    looksLikeHeader: costsLooksLikeHeader,
    mappingProblem: costsMappingProblem,
    allImportedMessage: (count) => `all ${count} ${count === 1 ? 'cost' : 'costs'} imported`,
    live: false,
  };
}

export function costImportMachine(attributes: readonly { id: string; name: string }[]) {
  return createMappingWizardMachine(costImportConfig(attributes));
}

/** The finalize body of a mapping: the field columns and the attribute columns by attribute id. */
export function costFinalizeBody(mapping: ColumnMapping, skipHeaders: boolean) {
  const column = (role: CostFieldRole) => mapping[role] ?? null;
  const attributes: Record<string, number> = {};
  for (const [role, index] of Object.entries(mapping)) {
    if (role.startsWith(ATTRIBUTE_ROLE) && typeof index === 'number') attributes[role.slice(ATTRIBUTE_ROLE.length)] = index;
  }
  return {
    skip_headers: skipHeaders,
    value: column('value'),
    currency: column('currency'),
    date: column('date'),
    due_date: column('due_date'),
    invoice_number: column('invoice_number'),
    name: column('name'),
    attributes,
  };
}

const asView = (data: { status: string; result: Parameters<typeof toImportStatus>[0]['result'] }) => toImportStatus({ progress: data.status === 'done' ? 100 : 0, result: data.result });

/** The import's calls: POST /costs/csv_import, POST /costs/csv_import/{id}/finalize, GET /costs/csv_import/{id}. */
export function createCostImportServices(client: ApiClient): MappingWizardServices {
  return {
    async upload(file, signal) {
      const form = uploadForm(file);
      // The contract types the multipart body as `never`: the FormData goes out as is.
      const { data, error, response } = await client.POST('/costs/csv_import', { body: form as never, bodySerializer: () => form, signal });
      if (!data) throw refusal('upload', response, error, UPLOAD_FAILURE_MESSAGE);
      return toImportPreview(data.id, data);
    },
    async finalize({ importId, mapping, skipHeaders }, signal) {
      const { data, error, response } = await client.POST('/costs/csv_import/{id}/finalize', { params: { path: { id: importId } }, body: costFinalizeBody(mapping, skipHeaders), signal });
      if (!data) throw refusal('finalize', response, error, IMPORT_FAILURE_MESSAGE);
      return asView(data);
    },
    async fetchStatus(importId, signal) {
      const { data, error, response } = await client.GET('/costs/csv_import/{id}', { params: { path: { id: importId } }, signal });
      if (!data) throw refusal('import', response, error, IMPORT_FAILURE_MESSAGE);
      return asView(data);
    },
  };
}
