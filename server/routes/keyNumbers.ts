import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { CUSTOM_SECTION_TITLE, USER_FILTERED_DEFINITION_ID } from '../../models/customSections';
import { BEARER, errorResponses } from '../auth/schemas';
import { ApiError } from '../http/errors';
import { findDefinition } from '../metrics/definitions/catalogue';
import { canEdit, mustBeReadable } from '../reports/access';
import { reportStampBySecret } from '../reports/answerCache';
import { SECTION_NOT_FOUND } from '../reports/reports';
import { shareBySecret } from '../reports/sharing';
import { keyNumbersRepository } from '../repositories/keyNumbers';

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
    const rows = await keyNumbersRepository(db, accountId).list(reportId);
    return {
      items: rows.map((row) => ({
        section_id: row.section_id,
        definition_id: row.definition_id,
        title: row.title || findDefinition(row.definition_id)?.name || (row.definition_id === USER_FILTERED_DEFINITION_ID ? CUSTOM_SECTION_TITLE : row.definition_id),
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
        description:
          'For whoever may read the report by its secret, and for anyone on a report of the demo account (the public demo at /demo/{secret}). ' +
          'Also for anyone with a share link’s secret (public, read only); for a link pinned to a segment value every `value` and `time` is null: ' +
          'the key numbers are of the whole report, and the shared page shows its filtered sections’ own `key_number` instead.',
        security: [...BEARER, {}],
        querystring: Type.Object({ secret: Type.String({ minLength: 1, maxLength: 128 }) }),
        response: { 200: KeyNumbersSchema, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const { secret } = request.query;
      const found = await reportStampBySecret(db, secret);
      if (!found) {
        // A share link (looked up anew on every call: a revoked one is not found).
        const share = await shareBySecret(db, secret);
        if (share) {
          const numbers = await keyNumbers(share.account_id, share.id);
          if (share.segmenter_id === null) return numbers;
          // The unfiltered numbers must not reach a link pinned to one segment value.
          return { items: numbers.items.map((item) => ({ ...item, value: null, time: null })) };
        }
      }
      // The public demo (GET /demo) shows its key numbers to anyone, as it shows the report.
      const report = found?.is_demo ? found : mustBeReadable(request, found);
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
      const keyNumbersOf = keyNumbersRepository(db, report.account_id);
      if ((await keyNumbersOf.sectionDefinition(report.id, sectionId)) !== definitionId) throw ApiError.of(404, SECTION_NOT_FOUND);
      await keyNumbersOf.add(report.id, sectionId, definitionId);
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
      await keyNumbersRepository(db, report.account_id).remove(report.id, sectionId, definitionId);
      return reply.code(204).send(null);
    },
  );
};
