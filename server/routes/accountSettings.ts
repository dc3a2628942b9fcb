import { Type, type FastifyPluginAsyncTypebox, type Static } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import { authOf } from '../auth/plugin';
import { BEARER, errorResponses } from '../auth/schemas';
import type { DB } from '../db/schema';
import { ApiError } from '../http/errors';
import { UNKNOWN_CURRENCY } from '../reports/reports';
import {
  BAD_SINCE,
  CHURN_WINDOW_RANGE,
  DUPLICATE_ISO,
  DUPLICATE_SINCE,
  isIsoDay,
  MAX_CHURN_WINDOW_SECONDS,
  MAX_EXCHANGE_RATE,
  MIN_EXCHANGE_RATE,
  RATE_NOT_POSITIVE,
  RATES_REQUIRED,
  type ExchangeRateRow,
} from '../../models/accountSettings';
import { afterChange } from '../customers/changes';

/**
 * Account settings (second spec document, the account settings screen): the account's currency,
 * whether anyone with a report's secret may read it (`anonymous_access_allowed`), the churn
 * window, the exchange mode and its own rates, movement matching and corrections handling. Full
 * users of the account read and change them; nothing here names another account. A change
 * to anything but anonymous access raises the account's data version (so every report turns
 * stale) and recalculates the latest reports; resending the stored values changes nothing.
 */

const Currency = Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217' });
const TakeRatesFrom = Type.Union([Type.Literal('subscription_started_at'), Type.Literal('beginning_of_month'), Type.Literal('account')], {
  description: 'Which exchange rate converts a payment: of the day its subscription started, of the first of each month, or the account’s own rates below',
});
const CorrectionsHandling = Type.Union([Type.Literal('change_original'), Type.Literal('when_occurred')]);

const ExchangeRatesSchema = Type.Array(
  Type.Object({
    since: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'YYYY-MM-DD: the rates hold from this day on' }),
    rates: Type.Array(
      Type.Object({
        iso: Currency,
        rate: Type.Number({ maximum: MAX_EXCHANGE_RATE, description: 'One unit of the account currency buys `rate` units of `iso` (greater than 0)' }),
      }),
      { maxItems: 200 },
    ),
  }),
  { maxItems: 500, description: 'The account’s own rates (used when take_exchange_rates_from is account), oldest first' },
);

const WritableSettings = Type.Object({
  currency: Currency,
  anonymous_access_allowed: Type.Boolean({ description: 'true: anyone with a report’s secret reads it (read only); false: only the account’s users' }),
  churn_window_seconds: Type.Integer({ description: `0 to ${MAX_CHURN_WINDOW_SECONDS} (ten years)` }),
  take_exchange_rates_from: TakeRatesFrom,
  match_movements_by_currency: Type.Boolean(),
  corrections_handling: CorrectionsHandling,
  account_exchange_rates: ExchangeRatesSchema,
});

const AccountSettingsSchema = Type.Composite([
  WritableSettings,
  Type.Object({ used_currencies: Type.Array(Type.String(), { description: 'The distinct currencies of the account’s payments, sorted' }) }),
]);

type AccountSettings = Static<typeof AccountSettingsSchema>;
type SettingsChange = Partial<Static<typeof WritableSettings>>;

async function accountSettings(db: Kysely<DB>, accountId: string): Promise<AccountSettings> {
  const account = await db
    .selectFrom('accounts')
    .select(['currency', 'anonymous_access_allowed', 'churn_window_seconds', 'take_exchange_rates_from', 'match_movements_by_currency', 'corrections_handling'])
    .where('id', '=', accountId)
    .executeTakeFirstOrThrow();
  const [currencies, rates] = await Promise.all([
    db.selectFrom('payments').select('currency').distinct().where('account_id', '=', accountId).orderBy('currency').execute(),
    db.selectFrom('account_exchange_rates').select(['since', 'iso', 'rate']).where('account_id', '=', accountId).orderBy('since').orderBy('iso').execute(),
  ]);
  const bySince = new Map<string, { iso: string; rate: number }[]>();
  for (const row of rates) {
    const since = String(row.since).slice(0, 10);
    const list = bySince.get(since) ?? [];
    list.push({ iso: row.iso, rate: Number(row.rate) });
    bySince.set(since, list);
  }
  return {
    ...account,
    churn_window_seconds: Number(account.churn_window_seconds),
    used_currencies: currencies.map((row) => row.currency),
    account_exchange_rates: [...bySince].map(([since, list]) => ({ since, rates: list })),
  };
}

/** Whether the stored rates are the given rows (a rate compared at the ten decimal places the column keeps). */
function sameRates(stored: readonly { since: unknown; iso: string; rate: unknown }[], rows: readonly ExchangeRateRow[]): boolean {
  const key = (since: string, iso: string, rate: number) => `${since} ${iso} ${rate.toFixed(10)}`;
  const before = stored.map((row) => key(String(row.since).slice(0, 10), row.iso, Number(row.rate))).sort();
  const after = rows.flatMap((row) => row.rates.map((rate) => key(row.since, rate.iso, rate.rate))).sort();
  return before.length === after.length && before.every((entry, k) => entry === after[k]);
}

/** Every problem of a change, each at its field (422); known currencies are checked against the table. */
async function problemsOf(db: Kysely<DB>, change: SettingsChange, mode: string, hasRates: boolean): Promise<ApiError['entries']> {
  const problems: ApiError['entries'] = [];
  if (change.churn_window_seconds !== undefined && (change.churn_window_seconds < 0 || change.churn_window_seconds > MAX_CHURN_WINDOW_SECONDS)) {
    problems.push({ detail: CHURN_WINDOW_RANGE, source: { pointer: '/churn_window_seconds' } });
  }
  const rows = change.account_exchange_rates ?? [];
  const asked = new Set<string>(change.currency ? [change.currency] : []);
  const seenSince = new Set<string>();
  rows.forEach((row, k) => {
    if (!isIsoDay(row.since)) problems.push({ detail: BAD_SINCE, source: { pointer: `/account_exchange_rates/${k}/since` } });
    else if (seenSince.has(row.since)) problems.push({ detail: DUPLICATE_SINCE, source: { pointer: `/account_exchange_rates/${k}/since` } });
    seenSince.add(row.since);
    const seenIso = new Set<string>();
    row.rates.forEach((rate, j) => {
      asked.add(rate.iso);
      if (seenIso.has(rate.iso)) problems.push({ detail: DUPLICATE_ISO, source: { pointer: `/account_exchange_rates/${k}/rates/${j}/iso` } });
      seenIso.add(rate.iso);
      if (!Number.isFinite(rate.rate) || rate.rate < MIN_EXCHANGE_RATE) problems.push({ detail: RATE_NOT_POSITIVE, source: { pointer: `/account_exchange_rates/${k}/rates/${j}/rate` } });
    });
  });
  if (mode === 'account' && !hasRates) problems.push({ detail: RATES_REQUIRED, source: { pointer: '/account_exchange_rates' } });
  if (asked.size > 0) {
    const known = new Set((await db.selectFrom('currencies').select('iso').where('iso', 'in', [...asked]).execute()).map((row) => row.iso));
    if (change.currency && !known.has(change.currency)) problems.unshift({ detail: UNKNOWN_CURRENCY, source: { pointer: '/currency' } });
    rows.forEach((row, k) =>
      row.rates.forEach((rate, j) => {
        if (!known.has(rate.iso)) problems.push({ detail: UNKNOWN_CURRENCY, source: { pointer: `/account_exchange_rates/${k}/rates/${j}/iso` } });
      }),
    );
  }
  return problems;
}

export const accountSettingsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const db = app.db.kysely;

  app.get(
    '/account_settings',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['account'],
        operationId: 'getAccountSettings',
        summary: 'The account’s settings',
        security: BEARER,
        response: { 200: AccountSettingsSchema, ...errorResponses(401, 403) },
      },
    },
    async (request) => accountSettings(db, authOf(request).accountId),
  );

  app.put(
    '/account_settings',
    {
      onRequest: app.requireFullUser,
      schema: {
        tags: ['account'],
        operationId: 'updateAccountSettings',
        summary: 'Changes some of the account’s settings (all in one transaction); answers them all',
        description:
          '`account_exchange_rates`, when given, replaces the account’s rates as a whole. A currency that is not known, a churn window outside 0 to ten years, a rate not above 0, ' +
          'a `since` that is no day or appears twice, a currency twice in one row, or the account mode without any rate is 422 at the field.',
        security: BEARER,
        body: Type.Partial(WritableSettings),
        response: { 200: AccountSettingsSchema, ...errorResponses(400, 401, 403, 422) },
      },
    },
    async (request) => {
      const { accountId } = authOf(request);
      const change = request.body as SettingsChange;
      const moved = await db.transaction().execute(async (trx) => {
        // The account row first, locked: two changes at once apply one after the other.
        const current = await trx
          .selectFrom('accounts')
          .select(['take_exchange_rates_from', 'data_version'])
          .where('id', '=', accountId)
          .forUpdate()
          .executeTakeFirstOrThrow();
        const stored = await trx.selectFrom('account_exchange_rates').select(['since', 'iso', 'rate']).where('account_id', '=', accountId).execute();
        const mode = change.take_exchange_rates_from ?? current.take_exchange_rates_from;
        const hasRates = change.account_exchange_rates !== undefined ? change.account_exchange_rates.some((row) => row.rates.length > 0) : stored.length > 0;
        const problems = await problemsOf(trx, change, mode, hasRates);
        if (problems.length > 0) throw new ApiError(422, problems);
        const rates = change.account_exchange_rates;
        // Rates first: their triggers raise the data version only while this transaction has not written the account row yet.
        if (rates !== undefined && !sameRates(stored, rates)) {
          await trx.deleteFrom('account_exchange_rates').where('account_id', '=', accountId).execute();
          const values = rates.flatMap((row) => row.rates.map((rate) => ({ account_id: accountId, since: row.since, iso: rate.iso, rate: String(rate.rate) })));
          if (values.length > 0) await trx.insertInto('account_exchange_rates').values(values).execute();
        }
        // Only the named columns are written: nothing in the body can name another account.
        const columns = {
          ...(change.currency !== undefined && { currency: change.currency }),
          ...(change.anonymous_access_allowed !== undefined && { anonymous_access_allowed: change.anonymous_access_allowed }),
          ...(change.churn_window_seconds !== undefined && { churn_window_seconds: change.churn_window_seconds }),
          ...(change.take_exchange_rates_from !== undefined && { take_exchange_rates_from: change.take_exchange_rates_from }),
          ...(change.match_movements_by_currency !== undefined && { match_movements_by_currency: change.match_movements_by_currency }),
          ...(change.corrections_handling !== undefined && { corrections_handling: change.corrections_handling }),
        };
        // The row's trigger raises the data version when a column the numbers depend on changed (migration 0014).
        const after = await trx
          .updateTable('accounts')
          .set({ ...columns, updated_at: new Date() })
          .where('id', '=', accountId)
          .returning('data_version')
          .executeTakeFirstOrThrow();
        return Number(after.data_version) !== Number(current.data_version);
      });
      // After the commit: every report is stale now, the latest recalculate with the new settings.
      if (moved) await afterChange(app, accountId);
      return accountSettings(db, accountId);
    },
  );
};
