import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { INVOICE_ITEM_SORTS, INVOICE_ITEMS_PAGE, RULE_TEXT_MAX } from '../../models/invoices';
import { authOf } from '../auth/plugin';
import { BEARER, errorResponses } from '../auth/schemas';
import { affectedCount, createDistiller, hasRejectedItems, INVOICE_ITEMS_PAGE_MAX, listInvoiceItems } from '../invoices/items';

/**
 * Invoice line items and import rules (docs/invoices.md): the rejected lines of /invoices, the
 * top bar's question, the count a rule would take, and creating a rule (the matching rejected
 * lines become payments at once; the reports recalculate). For the full users of the account.
 */

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

export const InvoiceItemSchema = Type.Object({
  id: Type.String(),
  name: Type.String({ description: 'The line’s name on the invoice (what a rule matches)' }),
  value: Type.Integer({ description: 'Gross value of the line in minor units of `currency` (the quantity included)' }),
  currency: Type.String({ description: 'ISO 4217' }),
  quantity: Type.Number(),
  source: Type.String({ description: 'The integration it came from (fakturownia, wfirma) or manual' }),
  processing_status: Type.Union([Type.Literal('pending'), Type.Literal('distilled'), Type.Literal('distillation_failed'), Type.Literal('ignored')]),
  invoice: Type.Object({
    number: Nullable(Type.String()),
    buyer_name: Nullable(Type.String()),
    buyer_id: Nullable(Type.String({ description: 'The buyer’s tax number or id in the invoicing tool' })),
    issue_date: Nullable(Type.String({ format: 'date' })),
  }),
});

const DistillerSchema = Type.Object({
  id: Type.String(),
  line_name: Type.String(),
  matcher: Type.Literal('equal'),
  item_type: Type.String(),
  issue_date_treatment: Type.Union([Type.Literal('started_at'), Type.Literal('ended_at')]),
  product_key: Type.String(),
  duration_in_months: Type.Integer(),
});

const DistillerBody = Type.Object({
  // Any JSON in each field: the rules below word the refusals (the drawer's messages), rather than Ajv's.
  line_name: Type.Optional(Type.Unknown({ description: "The exact line name it matches; blank: 'Line name is required.'" })),
  item_type: Type.Optional(Type.Unknown({ description: 'recurring (default), metered, one_time or freemium' })),
  issue_date_treatment: Type.Optional(Type.Unknown({ description: "'started_at' (default): the issue date starts the period; 'ended_at': it ends it" })),
  product_key: Type.Optional(Type.Unknown({ description: "The product of the payments; blank: 'Product name is required'" })),
  duration_in_months: Type.Optional(Type.Unknown({ description: "Whole months >= 1 (a number or digits); missing: 'Duration is required.', else 'Value should be a number ex. 12'" })),
  matcher: Type.Optional(Type.Unknown({ description: "'equal' (the only one)" })),
});

export const invoiceRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const db = app.db.kysely;

  app.get(
    '/invoice_items',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['invoices'],
        operationId: 'listInvoiceItems',
        summary: 'The account’s invoice line items of a status, a page at a time',
        description: '`processing_status` defaults to distillation_failed (the rejected lines). `sort_by` is a field then `:asc` or `:desc` (default `created_at:desc`); ties by id. `next` is the cursor the previous page gave.',
        security: BEARER,
        querystring: Type.Object({
          processing_status: Type.Optional(
            Type.Union([Type.Literal('distillation_failed'), Type.Literal('pending'), Type.Literal('distilled'), Type.Literal('ignored')], { default: 'distillation_failed' }),
          ),
          sort_by: Type.Optional(Type.Union(INVOICE_ITEM_SORTS.map((sort) => Type.Literal(sort)), { default: 'created_at:desc' })),
          next: Type.Optional(Type.String({ maxLength: 4000 })),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: INVOICE_ITEMS_PAGE_MAX, default: INVOICE_ITEMS_PAGE })),
        }),
        response: {
          200: Type.Object({ items: Type.Array(InvoiceItemSchema), total_count: Type.Integer(), next: Type.Union([Type.String(), Type.Null()]) }),
          ...errorResponses(400, 401, 403, 422),
        },
      },
    },
    async (request) =>
      listInvoiceItems(db, authOf(request).accountId, {
        status: request.query.processing_status ?? 'distillation_failed',
        sort: request.query.sort_by,
        next: request.query.next,
        limit: request.query.limit,
      }),
  );

  app.get(
    '/invoice_items/status',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['invoices'],
        operationId: 'invoiceItemsStatus',
        summary: 'Whether the account has rejected invoice lines',
        security: BEARER,
        response: { 200: Type.Object({ has_rejected_invoice_items: Type.Boolean() }), ...errorResponses(401, 403) },
      },
    },
    async (request) => ({ has_rejected_invoice_items: await hasRejectedItems(db, authOf(request).accountId) }),
  );

  app.get(
    '/distillers/exact_match_affected_invoices',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['invoices'],
        operationId: 'distillerAffectedInvoices',
        summary: 'How many rejected lines have exactly this name (what a rule would take)',
        security: BEARER,
        querystring: Type.Object({ line_name: Type.String({ maxLength: RULE_TEXT_MAX * 4 }) }),
        response: { 200: Type.Object({ count: Type.Integer() }), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => ({ count: await affectedCount(db, authOf(request).accountId, request.query.line_name.replaceAll('\u0000', '').trim()) }),
  );

  app.post(
    '/distillers',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['invoices'],
        operationId: 'createDistiller',
        summary: 'Adds an import rule and turns the rejected lines it matches into payments',
        description:
          "201 with the rule and `processed`, the number of lines that became payments. 409 'Rule already present' when the account has a rule of that line name. 422 with the drawer's messages: 'Line name is required.', 'Product name is required', 'Duration is required.', 'Value should be a number ex. 12'.",
        security: BEARER,
        body: DistillerBody,
        response: { 201: Type.Object({ distiller: DistillerSchema, processed: Type.Integer() }), ...errorResponses(400, 401, 403, 409, 422) },
      },
    },
    async (request, reply) => reply.code(201).send(await createDistiller(app, authOf(request).accountId, request.body)),
  );
};
