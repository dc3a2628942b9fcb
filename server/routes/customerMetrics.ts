import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { authOf } from '../auth/plugin';
import { BEARER, errorResponses } from '../auth/schemas';
import { ApiError } from '../http/errors';
import { MissingExchangeRateError } from '../metrics/currency';

export const CUSTOMER_NOT_FOUND = 'Customer not found';

const Money = (description: string) => Type.Number({ description: `${description}; minor units of \`currency\`` });

const CustomerMetricsSchema = Type.Object({
  customer_id: Type.String(),
  currency: Type.String({ description: 'ISO 4217 code of every amount' }),
  included: Type.Boolean({ description: 'False when the customer (or a parent) is excluded from calculations: its figures are 0' }),
  mrr: Money('MRR today, the customer and its descendants'),
  accrued_total: Money('Recognized recurring revenue to date'),
  one_time_accrued_total: Money('One-time revenue to date'),
  timeline: Type.Array(
    Type.Object({
      date: Type.String({ description: 'First day of the month, YYYY-MM-DD' }),
      metrics: Type.Object({
        mrr: Money("MRR at the month's last day (today in the current month)"),
        recognized_revenue: Money('Recurring revenue recognized in the month'),
        one_time_revenue: Money('One-time revenue of payments starting in the month'),
        accrued_total: Money('Recognized recurring revenue up to the month’s end'),
        one_time_accrued_total: Money('One-time revenue up to the month’s end'),
      }),
    }),
    { description: 'Month by month from the first payment to the current month' },
  ),
});

/** Customer-level figures of the customer drawer. */
export const customerMetricsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/customer_metrics/:id',
    {
      // A shared_report_only colleague sees reports, never a customer's revenue (403, as /customers/{id}).
      onRequest: app.requireFullUser,
      schema: {
        tags: ['customers'],
        operationId: 'getCustomerMetrics',
        summary: "A customer's MRR, revenue to date and revenue timeline",
        security: BEARER,
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) }),
        querystring: Type.Object({ currency: Type.Optional(Type.String({ pattern: '^[A-Za-z]{3}$', description: 'ISO 4217 code; default: the account currency' })) }),
        response: { 200: CustomerMetricsSchema, ...errorResponses(400, 401, 403, 404, 422) },
      },
    },
    async (request) => {
      const { accountId } = authOf(request);
      const { id } = request.params;
      const currency = request.query.currency?.toUpperCase() ?? null;
      const compute = () => app.metrics.customerMetrics(accountId, id, { currency });
      try {
        let metrics = await compute();
        if (!metrics) {
          // A customer added after the snapshot was loaded: reload once before answering 404.
          const exists = await app.db.kysely.selectFrom('customers').select('id').where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
          if (exists) {
            app.metrics.dropLocal(accountId);
            metrics = await compute();
          }
        }
        if (!metrics) throw ApiError.of(404, CUSTOMER_NOT_FOUND);
        return metrics;
      } catch (error) {
        if (error instanceof MissingExchangeRateError) throw ApiError.of(422, error.message, '/querystring/currency');
        throw error;
      }
    },
  );
};
