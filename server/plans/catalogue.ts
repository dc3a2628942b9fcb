/**
 * The plans an account can be on: what each costs and how much it holds. Limits are counts of
 * the account's non-deleted customers, its users (invited ones included) and its configured
 * integrations; null is unlimited. Prices are per month in USD minor units (cents).
 *
 * The ids are stored in `accounts.plan_id`, whose check constraint (migration 0014) lists them:
 * a new plan needs a migration that widens the constraint.
 */

export type PlanId = 'starter' | 'growth' | 'scale' | 'enterprise';

export interface PlanLimits {
  customers: number | null;
  users: number | null;
  integrations: number | null;
}

export interface Plan {
  id: PlanId;
  name: string;
  description: string;
  /** Per month, in USD minor units (cents). */
  monthly_price: number;
  currency: 'USD';
  limits: PlanLimits;
}

export const PLANS: readonly Plan[] = [
  {
    id: 'starter',
    name: 'Starter',
    description: 'For a young subscription business: every report and metric, free while you have up to 100 customers.',
    monthly_price: 0,
    currency: 'USD',
    limits: { customers: 100, users: 2, integrations: 1 },
  },
  {
    id: 'growth',
    name: 'Growth',
    description: 'For a growing team: more customers, colleagues and data sources.',
    monthly_price: 4_900,
    currency: 'USD',
    limits: { customers: 1_000, users: 5, integrations: 3 },
  },
  {
    id: 'scale',
    name: 'Scale',
    description: 'For an established business with several billing and CRM tools connected.',
    monthly_price: 19_900,
    currency: 'USD',
    limits: { customers: 10_000, users: 20, integrations: null },
  },
  {
    id: 'enterprise',
    name: 'Enterprise',
    description: 'No limits, for large customer bases and whole finance teams.',
    monthly_price: 79_900,
    currency: 'USD',
    limits: { customers: null, users: null, integrations: null },
  },
];

export const PLAN_IDS: readonly PlanId[] = PLANS.map((plan) => plan.id);

/** Every new account starts here (the column default of accounts.plan_id). */
export const DEFAULT_PLAN_ID: PlanId = 'starter';

/** The demo account's plan: its generated business (some 1,600 customers) fits within it. */
export const DEMO_PLAN_ID: PlanId = 'scale';

export function planById(id: string): Plan | undefined {
  return PLANS.find((plan) => plan.id === id);
}
