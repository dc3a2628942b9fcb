import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import { authOf } from '../auth/plugin';
import { BEARER, errorResponses } from '../auth/schemas';
import type { DB } from '../db/schema';
import { ApiError } from '../http/errors';
import { PLANS, planById, type Plan, type PlanId } from '../plans/catalogue';

/**
 * Plans: the catalogue (server/plans/catalogue.ts) and the account's own plan with what it
 * uses of the plan's limits. Any signed-in user of the account reads them (the spec fetches
 * plans for logged-in users); nothing here changes a plan.
 */

export const PLAN_NOT_FOUND = 'Plan not found';

const Limit = Type.Union([Type.Integer(), Type.Null()], { description: 'null: unlimited' });

const PlanSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  monthly_price: Type.Integer({ description: 'Per month, in minor units of `currency` (cents)' }),
  currency: Type.Literal('USD'),
  limits: Type.Object({ customers: Limit, users: Limit, integrations: Limit }),
});

const PlanUsageSchema = Type.Object(
  {
    customers: Type.Integer({ description: 'Customers that are not deleted' }),
    users: Type.Integer({ description: 'Users of the account, invited ones included' }),
    integrations: Type.Integer({ description: 'Integrations that are configured' }),
  },
  { description: 'What the account uses of the limits; only for the account’s current plan' },
);

const PlanDetailsSchema = Type.Composite([
  PlanSchema,
  Type.Object({ current: Type.Boolean({ description: 'Whether this is the account’s plan' }), usage: Type.Optional(PlanUsageSchema) }),
]);

// No pattern: any id that is not a plan's is 404, as for every other resource (a 400 for some
// shapes would tell a prober which ids are well formed).
const PlanParams = Type.Object({ id: Type.String({ maxLength: 200, description: 'A plan id, e.g. growth' }) });

async function currentPlanId(db: Kysely<DB>, accountId: string): Promise<PlanId> {
  const account = await db.selectFrom('accounts').select('plan_id').where('id', '=', accountId).executeTakeFirstOrThrow();
  return account.plan_id;
}

async function usageOf(db: Kysely<DB>, accountId: string) {
  const count = (row: { count: string | number | bigint } | undefined) => Number(row?.count ?? 0);
  const [customers, users, integrations] = await Promise.all([
    db.selectFrom('customers').select((eb) => eb.fn.countAll<number>().as('count')).where('account_id', '=', accountId).where('deleted_at', 'is', null).executeTakeFirst(),
    db.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('count')).where('account_id', '=', accountId).executeTakeFirst(),
    db.selectFrom('integrations').select((eb) => eb.fn.countAll<number>().as('count')).where('account_id', '=', accountId).where('configured', '=', true).executeTakeFirst(),
  ]);
  return { customers: count(customers), users: count(users), integrations: count(integrations) };
}

const toApi = (plan: Plan) => ({ ...plan, limits: { ...plan.limits } });

export const planRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const db = app.db.kysely;

  app.get(
    '/plans',
    {
      onRequest: app.requireUser,
      schema: {
        tags: ['account'],
        operationId: 'listPlans',
        summary: 'Every plan, cheapest first, and the account’s plan',
        security: BEARER,
        response: { 200: Type.Object({ items: Type.Array(PlanSchema), current_plan_id: Type.String() }), ...errorResponses(401) },
      },
    },
    async (request) => ({ items: PLANS.map(toApi), current_plan_id: await currentPlanId(db, authOf(request).accountId) }),
  );

  app.get(
    '/plans/:id',
    {
      onRequest: app.requireUser,
      schema: {
        tags: ['account'],
        operationId: 'getPlan',
        summary: 'One plan; for the account’s own plan also what the account uses of its limits',
        description: 'An id that is no plan is 404.',
        security: BEARER,
        params: PlanParams,
        response: { 200: PlanDetailsSchema, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const { accountId } = authOf(request);
      const plan = planById(request.params.id);
      if (!plan) throw ApiError.of(404, PLAN_NOT_FOUND);
      const current = (await currentPlanId(db, accountId)) === plan.id;
      return { ...toApi(plan), current, ...(current && { usage: await usageOf(db, accountId) }) };
    },
  );
};
