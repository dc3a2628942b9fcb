import { Type, type Static } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import { COLUMN_FETCHERS } from '../../models/customerColumns';
import type { DB, JsonValue } from '../db/schema';
import { definitionView, listDefinitions } from './columns';

/**
 * The customers table's columns of a user (GET/PUT /users/me `customer_columns`): the user's
 * stored order and visibility (`users.customer_columns`, a list of `{id, visible}`) completed
 * with every column the account offers. Columns the account no longer has (a deleted segment
 * or calculated column) are left out; columns the user has not placed yet are appended hidden.
 * A user who never saved any gets the default: name, public id, added at, MRR and total
 * visible, then the attribute and calculated columns hidden.
 */

export const ColumnVariableSchema = Type.Object({
  fetcher: Type.Union(COLUMN_FETCHERS.map((fetcher) => Type.Literal(fetcher))),
  name: Type.String(),
  start_month: Type.Integer({ minimum: 1, maximum: 12 }),
  start_year: Type.Integer(),
  end_month: Type.Integer({ minimum: 1, maximum: 12 }),
  end_year: Type.Integer(),
});

export const ColumnDefinitionSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  formula: Type.String({ description: 'Over the variables’ names: numbers, + - * / ^, parentheses, min, max, abs, round' }),
  variables: Type.Array(ColumnVariableSchema),
  recalculation_status: Type.Union([Type.Literal('in_progress'), Type.Literal('finished')], { description: 'in_progress while its values are being computed (no edit or delete then)' }),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});

export const CustomerColumnSchema = Type.Object({
  id: Type.String({ description: 'name, public_id, added_at, mrr, total, customer_segment:{segmentId} or definition:{definitionId}' }),
  name: Type.String(),
  source: Type.Union([Type.Literal('static'), Type.Literal('definition'), Type.Literal('customer_segment')]),
  visible: Type.Boolean(),
  sortable: Type.Boolean(),
  data_type: Type.Union([Type.Literal('string'), Type.Literal('date'), Type.Literal('money'), Type.Literal('number')]),
  definition: Type.Optional(ColumnDefinitionSchema),
});
export type CustomerColumn = Static<typeof CustomerColumnSchema>;

/** What PUT /users/me takes: the order and visibility of the columns (other fields are ignored). */
export const CustomerColumnChoiceSchema = Type.Object(
  {
    id: Type.String({ maxLength: 300 }),
    visible: Type.Optional(Type.Boolean({ description: 'Default true' })),
  },
  { additionalProperties: true, description: 'A column of the customers table in the user’s order (the other fields of a column are ignored); ids the account does not offer are dropped' },
);

export interface ColumnChoice {
  id: string;
  visible: boolean;
}

const STATIC_COLUMNS: readonly Omit<CustomerColumn, 'visible'>[] = [
  { id: 'name', name: 'Name', source: 'static', sortable: true, data_type: 'string' },
  { id: 'public_id', name: 'Public ID', source: 'static', sortable: true, data_type: 'string' },
  { id: 'added_at', name: 'Added at', source: 'static', sortable: true, data_type: 'date' },
  { id: 'mrr', name: 'MRR', source: 'definition', sortable: true, data_type: 'money' },
  { id: 'total', name: 'Total', source: 'definition', sortable: true, data_type: 'money' },
];

export const customerSegmentColumnId = (segmentId: string) => `customer_segment:${segmentId}`;
export const definitionColumnId = (definitionId: string) => `definition:${definitionId}`;

/** Every column the account offers, in the default order (statics, attributes by name, calculated columns by creation). */
export async function availableColumns(db: Kysely<DB>, accountId: string): Promise<Omit<CustomerColumn, 'visible'>[]> {
  const [segments, definitions] = await Promise.all([
    db.selectFrom('customer_segments').select(['id', 'name']).where('account_id', '=', accountId).orderBy('name').orderBy('id').execute(),
    listDefinitions(db, accountId),
  ]);
  return [
    ...STATIC_COLUMNS,
    ...segments.map((segment): Omit<CustomerColumn, 'visible'> => ({ id: customerSegmentColumnId(segment.id), name: segment.name, source: 'customer_segment', sortable: true, data_type: 'string' })),
    ...definitions.map((row): Omit<CustomerColumn, 'visible'> => ({ id: definitionColumnId(row.id), name: row.name, source: 'definition', sortable: true, data_type: 'number', definition: definitionView(row) })),
  ];
}

/** The stored choices: `{id, visible}` entries (anything else in the stored list is skipped; the first of a repeated id counts). */
export function storedChoices(stored: readonly unknown[]): ColumnChoice[] {
  const seen = new Set<string>();
  const out: ColumnChoice[] = [];
  for (const entry of stored) {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) continue;
    const { id, visible } = entry as { id?: unknown; visible?: unknown };
    if (typeof id !== 'string' || seen.has(id)) continue;
    seen.add(id);
    out.push({ id, visible: visible !== false });
  }
  return out;
}

const DEFAULT_VISIBLE = new Set(STATIC_COLUMNS.map((column) => column.id));

/** The stored choices completed with the available columns (see the file's comment). */
export function completeColumns(available: readonly Omit<CustomerColumn, 'visible'>[], stored: readonly unknown[]): CustomerColumn[] {
  const choices = storedChoices(stored);
  const byId = new Map(available.map((column) => [column.id, column]));
  const out: CustomerColumn[] = [];
  const placed = new Set<string>();
  for (const choice of choices) {
    const column = byId.get(choice.id);
    if (!column) continue;
    out.push({ ...column, visible: choice.visible });
    placed.add(choice.id);
  }
  const neverSaved = placed.size === 0;
  for (const column of available) {
    if (placed.has(column.id)) continue;
    out.push({ ...column, visible: neverSaved && DEFAULT_VISIBLE.has(column.id) });
  }
  return out;
}

/** The user's columns as GET /users/me answers them. */
export async function customerColumnsOf(db: Kysely<DB>, accountId: string, stored: readonly JsonValue[]): Promise<CustomerColumn[]> {
  return completeColumns(await availableColumns(db, accountId), stored);
}

/** What PUT /users/me stores: the choices of ids the account offers, in the order given. */
export async function choicesToStore(db: Kysely<DB>, accountId: string, input: readonly unknown[]): Promise<ColumnChoice[]> {
  const available = new Set((await availableColumns(db, accountId)).map((column) => column.id));
  return storedChoices(input).filter((choice) => available.has(choice.id));
}

/**
 * Appends a new calculated column, visible, to a user's stored columns (the one who created it);
 * a user who never saved any first gets the default order stored, so only the new one changes.
 */
export async function appendVisibleColumn(db: Kysely<DB>, accountId: string, userId: string, columnId: string): Promise<void> {
  const user = await db.selectFrom('users').select('customer_columns').where('account_id', '=', accountId).where('id', '=', userId).forUpdate().executeTakeFirst();
  if (!user) return;
  const current = completeColumns(await availableColumns(db, accountId), user.customer_columns).filter((column) => column.id !== columnId);
  const choices: ColumnChoice[] = [...current.map((column) => ({ id: column.id, visible: column.visible })), { id: columnId, visible: true }];
  await db.updateTable('users').set({ customer_columns: JSON.stringify(choices) }).where('account_id', '=', accountId).where('id', '=', userId).execute();
}
