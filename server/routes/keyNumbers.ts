import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { sql } from 'kysely';
import { BEARER, errorResponses } from '../auth/schemas';
import { ApiError } from '../http/errors';
import { findDefinition } from '../metrics/definitions/catalogue';
import { canEdit, mustBeReadable } from '../reports/access';
import { reportStampBySecret } from '../reports/answerCache';
import { lockReport, SECTION_NOT_FOUND } from '../reports/reports';

/**
 * The key numbers strip of a report (second spec document, section 7): a section's number of
 * the last complete period, pinned above the sections. Read by whoever may read the report;
 * added and removed by its editors (`can_edit`). A key number is its section's own
 * `key_number`, as the last computation of the section left it.
 */


const KeyNumberSchema = Type.Object({
  section_id: Type.String(),
  definition_id: Type.String(),
  title: Type.String({ description: 'The section’s title' }),
  value: Type.Union([Type.Number(), Type.Null()], { description: 'The total at the last complete period of the range, in the section’s unit; null when not computed or no period is complete' }),
  kind: Type.Union([Type.Literal('currency'), Type.Literal('percent'), Type.Literal('other')]),
  unit: Type.Union([Type.String(), Type.Null()], { description: 'minor_units (with currency), fraction, count, ratio or units' }),
  currency: Type.Union([Type.String(), Type.Null()], { description: 'ISO 4217, for money' }),
  time: Type.Union([Type.String(), Type.Null()], { description: 'The first day of the period the value is of' }),
});
const KeyNumbersSchema = Type.Object({ items: Type.Array(KeyNumberSchema) });
const KeyNumberBody = Type.Object({
  secret: Type.String({ minLength: 1, maxLength: 128 }),
  section_id: Type.String({ minLength: 1, maxLength: 64 }),
  definition_id: Type.String({ minLength: 1, maxLength: 100 }),
});

type KeyNumberKind = 'currency' | 'percent' | 'other';
const kindOf = (kind: unknown): KeyNumberKind => (kind === 'currency' || kind === 'percent' ? kind : 'other');

export const keyNumberRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const db = app.db.kysely;

  async function keyNumbers(accountId: string, reportId: string) {
    const rows = await db
      .selectFrom('key_numbers as k')
      .innerJoin('report_sections as s', (join) => join.onRef('s.account_id', '=', 'k.account_id').onRef('s.id', '=', 'k.section_id'))
      .select([
        'k.section_id',
        'k.definition_id',
        's.title',
        sql<Record<string, unknown> | null>`s.result -> 'key_number'`.as('key_number'),
        sql<string | null>`s.result ->> 'unit'`.as('unit'),
        sql<string | null>`s.result ->> 'currency'`.as('currency'),
      ])
      .where('k.account_id', '=', accountId)
      .where('k.report_id', '=', reportId)
      .orderBy('k.position')
      .orderBy('k.created_at')
      .execute();
    return {
      items: rows.map((row) => ({
        section_id: row.section_id,
        definition_id: row.definition_id,
        title: row.title || findDefinition(row.definition_id)?.name || row.definition_id,
        value: typeof row.key_number?.value === 'number' ? row.key_number.value : null,
        kind: kindOf(row.key_number?.kind),
        unit: row.unit,
        // Money only: a count or a rate has no currency.
        currency: row.unit === 'minor_units' ? row.currency : null,
        time: typeof row.key_number?.time === 'string' ? row.key_number.time : null,
      })),
    };
  }

  /** The report of `secret` for one of its editors; another account's report is not found. */
  async function editableBySecret(request: Parameters<typeof canEdit>[0], secret: string) {
    const report = mustBeReadable(request, await reportStampBySecret(db, secret));
    if (!canEdit(request, report.account_id)) throw ApiError.of(403, 'You are not allowed to change this report');
    return report;
  }

  app.get(
    '/business_reports/by_secret/key_numbers',
    {
      onRequest: app.optionalUser,
      schema: {
        tags: ['reports'],
        operationId: 'listKeyNumbers',
        summary: 'The report’s key numbers, in the order they were added',
        security: [...BEARER, {}],
        querystring: Type.Object({ secret: Type.String({ minLength: 1, maxLength: 128 }) }),
        response: { 200: KeyNumbersSchema, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const report = mustBeReadable(request, await reportStampBySecret(db, request.query.secret));
      return keyNumbers(report.account_id, report.id);
    },
  );

  app.post(
    '/business_reports/by_secret/key_numbers',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['reports'],
        operationId: 'addKeyNumber',
        summary: 'Adds a section’s number to the key numbers (again: nothing changes)',
        security: BEARER,
        body: KeyNumberBody,
        response: { 201: KeyNumbersSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const { secret, section_id: sectionId, definition_id: definitionId } = request.body;
      const report = await editableBySecret(request, secret);
      const section = await db
        .selectFrom('report_sections')
        .select('definition_id')
        .where('account_id', '=', report.account_id)
        .where('report_id', '=', report.id)
        .where('id', '=', sectionId)
        .executeTakeFirst();
      if (!section || section.definition_id !== definitionId) throw ApiError.of(404, SECTION_NOT_FOUND);
      await db.transaction().execute(async (trx) => {
        // The report row first, as every writer of its parts (lockReport): no deadlock with a section's move or removal.
        await lockReport(trx, report.account_id, report.id);
        await trx
          .insertInto('key_numbers')
          .values((eb) => ({
            account_id: report.account_id,
            report_id: report.id,
            section_id: sectionId,
            definition_id: definitionId,
            position: eb
              .selectFrom('key_numbers')
              .select(sql<number>`coalesce(max(position) + 1, 0)`.as('next'))
              .where('account_id', '=', report.account_id)
              .where('report_id', '=', report.id),
          }))
          .onConflict((conflict) => conflict.columns(['account_id', 'report_id', 'section_id', 'definition_id']).doNothing())
          .execute();
      });
      return reply.code(201).send(await keyNumbers(report.account_id, report.id));
    },
  );

  app.delete(
    '/business_reports/by_secret/key_numbers',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['reports'],
        operationId: 'removeKeyNumber',
        summary: 'Removes a section’s number from the key numbers (not there: nothing changes)',
        security: BEARER,
        body: KeyNumberBody,
        response: { 204: Type.Null(), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const { secret, section_id: sectionId, definition_id: definitionId } = request.body;
      const report = await editableBySecret(request, secret);
      await db.transaction().execute(async (trx) => {
        await lockReport(trx, report.account_id, report.id);
        await trx
          .deleteFrom('key_numbers')
          .where('account_id', '=', report.account_id)
          .where('report_id', '=', report.id)
          .where('section_id', '=', sectionId)
          .where('definition_id', '=', definitionId)
          .execute();
      });
      return reply.code(204).send(null);
    },
  );
};
