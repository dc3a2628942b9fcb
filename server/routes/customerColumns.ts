import { Type, type FastifyPluginAsyncTypebox, type Static } from '@fastify/type-provider-typebox';
import {
  COLUMN_FETCHERS,
  COLUMN_FORMULA_MAX_LENGTH,
  COLUMN_NAME_MAX_LENGTH,
  COLUMN_VARIABLE_NAME_MAX_LENGTH,
  COLUMN_VARIABLES_MAX,
  normalizeColumnDefinition,
  type ColumnDefinitionInput,
} from '../../models/customerColumns';
import { authOf } from '../auth/plugin';
import { BEARER, errorResponses } from '../auth/schemas';
import { randomAlphanumeric } from '../auth/secrets';
import { COLUMN_DEFINITION_NOT_FOUND, definitionView, findDefinition, listDefinitions, type ColumnVariable } from '../customers/columns';
import { appendVisibleColumn, ColumnDefinitionSchema, definitionColumnId } from '../customers/columnsList';
import { ApiError } from '../http/errors';

/**
 * Calculated customer columns (second spec document, sections 2-5; docs/customer-columns.md):
 * `GET/POST /customer_related_metric_definitions`, `PUT/DELETE .../{id}`. For the full users
 * of the account; another account's id is 404. A definition is validated with the rules of
 * the 'Create column' drawer (models/customerColumns.ts, the same messages, one 422 entry per
 * problem); saving one starts the job that computes every customer's value
 * (`app.customerColumns`), and while it runs the definition can be neither changed nor
 * deleted (409).
 */

export const COLUMN_IN_PROGRESS = 'The column is being calculated; try again when it has finished';

const NullableInteger = Type.Union([Type.Integer(), Type.Null()]);

const VariableBody = Type.Object({
  fetcher: Type.Union([...COLUMN_FETCHERS.map((fetcher) => Type.Literal(fetcher)), Type.Null()], { description: 'BookedTotalContractValue: bookings started in the range; Mrr: MRR at the end of the month (today in the current month)' }),
  name: Type.String({ maxLength: COLUMN_VARIABLE_NAME_MAX_LENGTH * 4, description: 'How the formula names it' }),
  start_month: NullableInteger,
  start_year: NullableInteger,
  end_month: Type.Optional(NullableInteger),
  end_year: Type.Optional(NullableInteger),
});

const DefinitionBody = Type.Object({
  name: Type.String({ maxLength: COLUMN_NAME_MAX_LENGTH * 4 }),
  formula: Type.Optional(Type.String({ maxLength: COLUMN_FORMULA_MAX_LENGTH * 4, description: 'Required with more than one variable; with one it is the variable’s name' })),
  variables: Type.Array(VariableBody, { maxItems: COLUMN_VARIABLES_MAX * 2 }),
});
type DefinitionBodyType = Static<typeof DefinitionBody>;

const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

/** The body as the model reads it, normalized (single variable → formula; Mrr → end = start). */
function inputOf(body: DefinitionBodyType): ColumnDefinitionInput {
  return normalizeColumnDefinition({
    name: body.name,
    formula: body.formula ?? '',
    variables: body.variables.map((variable) => ({
      fetcher: variable.fetcher,
      name: variable.name,
      start_month: variable.start_month,
      start_year: variable.start_year,
      end_month: variable.end_month ?? null,
      end_year: variable.end_year ?? null,
    })),
  });
}

/** 422 with one entry per problem (pointers /body/name, /body/variables/0/start_month, ...), else the definition to store. */
async function validated(body: DefinitionBodyType): Promise<{ name: string; formula: string; variables: ColumnVariable[] }> {
  const input = inputOf(body);
  // The formula parser (mathjs) loads on the first save, not with the server.
  const { columnDefinitionErrors } = await import('../../models/customerFormula');
  const errors = columnDefinitionErrors(input);
  const entries = Object.entries(errors);
  if (entries.length > 0) {
    throw new ApiError(
      422,
      entries.map(([key, detail]) => ({ detail, source: { pointer: `/body/${key.split('.').join('/')}` } })),
    );
  }
  return { name: input.name, formula: input.formula, variables: input.variables as ColumnVariable[] };
}

const DESCRIPTION =
  'Validated as the Create column drawer validates it (422, one entry per problem, the spec’s messages at /body/name, /body/formula, /body/variables/{i}/{field}); ' +
  'a formula that does not parse, names an unknown variable or a function other than min, max, abs and round, or divides by a constant zero is 422 at /body/formula and nothing is stored. ' +
  'Saving starts the computation of every customer’s value: the definition is in_progress until it is done, and CustomerColumnsChannel tells when.';

export const customerColumnsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const db = app.db.kysely;

  app.get(
    '/customer_related_metric_definitions',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['customers'],
        operationId: 'listCustomerColumnDefinitions',
        summary: 'The account’s calculated customer columns, oldest first',
        security: BEARER,
        response: { 200: Type.Object({ items: Type.Array(ColumnDefinitionSchema) }), ...errorResponses(401, 403) },
      },
    },
    async (request) => {
      const { accountId } = authOf(request);
      // Values computed before the account's data last changed are recomputed (the answer says in_progress then).
      await app.customerColumns.refreshIfStale(accountId);
      return { items: (await listDefinitions(db, accountId)).map(definitionView) };
    },
  );

  app.post(
    '/customer_related_metric_definitions',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['customers'],
        operationId: 'createCustomerColumnDefinition',
        summary: 'Creates a calculated customer column and starts computing its values; it is appended, visible, to the creator’s columns',
        description: DESCRIPTION,
        security: BEARER,
        body: DefinitionBody,
        response: { 201: ColumnDefinitionSchema, ...errorResponses(400, 401, 403, 422) },
      },
    },
    async (request, reply) => {
      const { accountId, userId } = authOf(request);
      const definition = await validated(request.body);
      const id = `ccd${randomAlphanumeric(12)}`;
      await db.transaction().execute(async (trx) => {
        await trx
          .insertInto('customer_column_definitions')
          .values({ account_id: accountId, id, name: definition.name, formula: definition.formula, variables: JSON.stringify(definition.variables), recalculation_status: 'in_progress', created_by_user_id: userId })
          .execute();
        await appendVisibleColumn(trx, accountId, userId, definitionColumnId(id));
      });
      await app.customerColumns.start(accountId, id);
      const row = await findDefinition(db, accountId, id);
      if (!row) throw new Error('the new column definition was not found');
      return reply.code(201).send(definitionView(row));
    },
  );

  app.put(
    '/customer_related_metric_definitions/:id',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['customers'],
        operationId: 'updateCustomerColumnDefinition',
        summary: 'Changes a calculated customer column and recomputes its values (409 while it is being calculated)',
        description: DESCRIPTION,
        security: BEARER,
        params: IdParams,
        body: DefinitionBody,
        response: { 200: ColumnDefinitionSchema, ...errorResponses(400, 401, 403, 404, 409, 422) },
      },
    },
    async (request) => {
      const { accountId } = authOf(request);
      const { id } = request.params;
      const existing = await findDefinition(db, accountId, id);
      if (!existing) throw ApiError.of(404, COLUMN_DEFINITION_NOT_FOUND);
      const definition = await validated(request.body);
      // Only a finished definition changes (one statement, so a recalculation starting meanwhile is not overwritten).
      const updated = await db
        .updateTable('customer_column_definitions')
        .set({ name: definition.name, formula: definition.formula, variables: JSON.stringify(definition.variables), recalculation_status: 'in_progress', updated_at: app.now() })
        .where('account_id', '=', accountId)
        .where('id', '=', id)
        .where('recalculation_status', '=', 'finished')
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) === 0) {
        if (!(await findDefinition(db, accountId, id))) throw ApiError.of(404, COLUMN_DEFINITION_NOT_FOUND);
        throw ApiError.of(409, COLUMN_IN_PROGRESS);
      }
      await app.customerColumns.start(accountId, id);
      const row = await findDefinition(db, accountId, id);
      if (!row) throw ApiError.of(404, COLUMN_DEFINITION_NOT_FOUND);
      return definitionView(row);
    },
  );

  app.delete(
    '/customer_related_metric_definitions/:id',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['customers'],
        operationId: 'deleteCustomerColumnDefinition',
        summary: 'Deletes a calculated customer column and its values (409 while it is being calculated)',
        security: BEARER,
        params: IdParams,
        response: { 204: Type.Null(), ...errorResponses(401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const { accountId } = authOf(request);
      const { id } = request.params;
      const deleted = await db.deleteFrom('customer_column_definitions').where('account_id', '=', accountId).where('id', '=', id).where('recalculation_status', '=', 'finished').executeTakeFirst();
      if (Number(deleted.numDeletedRows) === 0) {
        if (!(await findDefinition(db, accountId, id))) throw ApiError.of(404, COLUMN_DEFINITION_NOT_FOUND);
        throw ApiError.of(409, COLUMN_IN_PROGRESS);
      }
      return reply.code(204).send(null);
    },
  );
};
