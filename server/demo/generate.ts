import { createIdFactory, createRandom, weightedTable, type Random } from './random';

/**
 * A deterministic generator of a realistic subscription business: customers (with company
 * groups and a few excluded test accounts), their attribute histories, payments (monthly,
 * quarterly and annual plans, free trials, upgrades, downgrades, churn and reactivations,
 * setup fees, metered usage, discounts, a few later corrections) and monthly costs.
 *
 * Pure: no I/O, no clock, no locale; every date is a UTC calendar day 'YYYY-MM-DD'. The same
 * options give deep-equal output. Work is linear in the number of payments, so
 * 100,000 customers over 72 months (about a million payments) take a few seconds.
 */

export const DEFAULT_DEMO_CUSTOMERS = 1_600;
export const DEFAULT_DEMO_MONTHS = 48;
export const DEFAULT_DEMO_SEED = 20_240_601;

export interface GenerateOptions {
  /** Default DEFAULT_DEMO_SEED. */
  seed?: number;
  /** Customers ever acquired (company-group parents included). Default DEFAULT_DEMO_CUSTOMERS. */
  customers?: number;
  /** Months of history, the current month included. Default DEFAULT_DEMO_MONTHS. */
  months?: number;
  /** The current month 'YYYY-MM'; the history ends in it. */
  endMonth: string;
  /** The current day 'YYYY-MM-DD' inside endMonth; nothing starts after it. Default: its last day. */
  today?: string;
  /** Produce customer segment value histories (default true; benchmarks may skip them). */
  segmentValues?: boolean;
}

export type DemoCurrency = 'USD' | 'EUR' | 'PLN';
export type DemoItemType = 'recurring' | 'metered' | 'one_time' | 'freemium';
export type DemoSegmentKey = 'country' | 'plan' | 'industry' | 'company_size';

export interface DemoProduct {
  key: string;
  name: string;
}

export interface DemoCustomer {
  id: string;
  /** The id the billing system knows the customer by. */
  public_id: string;
  name: string;
  parent_id: string | null;
  include_in_calculations_by_default: boolean;
  /** 'YYYY-MM-DD' (UTC). */
  added_at: string;
  /** Current values; `plan` is the latest of its history. */
  attributes: Record<DemoSegmentKey, string>;
}

export interface DemoSegmentValue {
  customer_id: string;
  segment: DemoSegmentKey;
  year: number;
  /** 1-12. */
  month: number;
  value: string;
}

export interface DemoItem {
  readonly product_key: string;
  readonly type: DemoItemType;
  readonly quantity: number;
}

export interface DemoDiscount {
  readonly kind: 'forever' | 'finite';
  /** Minor units per month. */
  readonly monthly_amount: number;
}

export interface DemoPayment {
  /** 'subh' + 12 characters. */
  id: string;
  customer_id: string;
  invoice_number: string;
  started_at: string;
  /** started_at + duration_in_months. */
  ended_at: string;
  duration_in_months: 1 | 3 | 12;
  /** Minor units, before discounts. */
  total_value: number;
  currency: DemoCurrency;
  /** Shared between payments of one customer: read-only. */
  items: readonly DemoItem[];
  discount: DemoDiscount | null;
  /** Payment attribute 'Channel'. */
  channel: 'Self-serve' | 'Sales';
  /** Set when the payment was first recorded with another value and corrected on a later day. */
  correction: { original_total_value: number; corrected_on: string } | null;
}

export interface DemoCost {
  id: string;
  name: string;
  /** Cost attribute 'Category'. */
  category: string;
  /** Minor units. */
  value: number;
  currency: DemoCurrency;
  date: string;
  due_date: string;
  invoice_number: string;
}

export interface DemoBusiness {
  startMonth: string;
  endMonth: string;
  today: string;
  products: DemoProduct[];
  customers: DemoCustomer[];
  segmentValues: DemoSegmentValue[];
  payments: DemoPayment[];
  costs: DemoCost[];
}

export const DEMO_CUSTOMER_SEGMENTS: readonly { key: DemoSegmentKey; name: string; time_sensitive: boolean }[] = [
  { key: 'country', name: 'Country', time_sensitive: false },
  { key: 'plan', name: 'Plan', time_sensitive: true },
  { key: 'industry', name: 'Industry', time_sensitive: false },
  { key: 'company_size', name: 'Company size', time_sensitive: false },
];
export const DEMO_PAYMENT_ATTRIBUTE = 'Channel';
export const DEMO_COST_ATTRIBUTE = 'Category';

// ------------------------------------------------------------------------ the business

type PlanKey = 'starter' | 'growth' | 'pro' | 'enterprise';
const PLANS: readonly PlanKey[] = ['starter', 'growth', 'pro', 'enterprise'];
const PLAN_NAMES: Record<PlanKey, string> = { starter: 'Starter', growth: 'Growth', pro: 'Pro', enterprise: 'Enterprise' };
/** List price per seat and month, minor units. */
const SEAT_PRICE: Record<DemoCurrency, Record<PlanKey, number>> = {
  USD: { starter: 1_900, growth: 3_900, pro: 7_900, enterprise: 14_900 },
  EUR: { starter: 1_700, growth: 3_500, pro: 7_200, enterprise: 13_500 },
  PLN: { starter: 7_900, growth: 15_900, pro: 32_900, enterprise: 59_900 },
};
const SETUP_FEE: Record<DemoCurrency, number> = { USD: 99_000, EUR: 89_000, PLN: 399_000 };
/** Metered API usage, per thousand calls. */
const USAGE_PRICE: Record<DemoCurrency, number> = { USD: 200, EUR: 180, PLN: 800 };
/** Rough conversion to USD for the cost model only. */
const TO_USD: Record<DemoCurrency, number> = { USD: 1, EUR: 1.1, PLN: 0.25 };
/** Monthly probability of logo churn by plan (before the annual-plan and seasonal factors). */
const CHURN: Record<PlanKey, number> = { starter: 0.042, growth: 0.03, pro: 0.022, enterprise: 0.014 };
/** December and January churn a little more, spring a little less. */
const CHURN_SEASON = [1.25, 1.05, 0.95, 0.9, 0.9, 0.95, 1.0, 1.05, 0.95, 0.95, 1.0, 1.2];
/** Sign-ups by calendar month: fewer in summer and December. */
const SIGNUP_SEASON = [1.15, 1.05, 1.1, 1.0, 1.0, 0.9, 0.8, 0.8, 1.1, 1.12, 1.05, 0.75];
/** Monthly growth of sign-ups. */
const SIGNUP_GROWTH = 0.025;

const PRODUCTS: DemoProduct[] = [
  { key: 'starter', name: 'Starter plan' },
  { key: 'growth', name: 'Growth plan' },
  { key: 'pro', name: 'Pro plan' },
  { key: 'enterprise', name: 'Enterprise plan' },
  { key: 'free', name: 'Free trial' },
  { key: 'api_calls', name: 'API calls (1k)' },
  { key: 'onboarding', name: 'Onboarding (setup fee)' },
];

interface Country {
  name: string;
  currency: DemoCurrency;
  suffixes: readonly string[];
}
const COUNTRIES = weightedTable<Country>([
  [{ name: 'United States', currency: 'USD', suffixes: ['Inc.', 'LLC', 'Corp.'] }, 30],
  [{ name: 'United Kingdom', currency: 'USD', suffixes: ['Ltd', 'plc'] }, 8],
  [{ name: 'Canada', currency: 'USD', suffixes: ['Inc.', 'Ltd'] }, 5],
  [{ name: 'Australia', currency: 'USD', suffixes: ['Pty Ltd'] }, 3],
  [{ name: 'Germany', currency: 'EUR', suffixes: ['GmbH', 'AG'] }, 12],
  [{ name: 'France', currency: 'EUR', suffixes: ['SAS', 'SARL'] }, 7],
  [{ name: 'Netherlands', currency: 'EUR', suffixes: ['B.V.'] }, 5],
  [{ name: 'Spain', currency: 'EUR', suffixes: ['S.L.', 'S.A.'] }, 4],
  [{ name: 'Italy', currency: 'EUR', suffixes: ['S.r.l.', 'S.p.A.'] }, 3],
  [{ name: 'Ireland', currency: 'EUR', suffixes: ['Ltd'] }, 2],
  [{ name: 'Sweden', currency: 'EUR', suffixes: ['AB'] }, 3],
  [{ name: 'Poland', currency: 'PLN', suffixes: ['Sp. z o.o.', 'S.A.'] }, 15],
  [{ name: 'Czechia', currency: 'EUR', suffixes: ['s.r.o.'] }, 3],
]);
const INDUSTRIES = weightedTable<string>([
  ['Software', 22],
  ['E-commerce', 16],
  ['Marketing agency', 11],
  ['Finance', 9],
  ['Healthcare', 8],
  ['Education', 8],
  ['Media', 7],
  ['Manufacturing', 7],
  ['Logistics', 6],
  ['Non-profit', 3],
]);
type SizeKey = '1-10' | '11-50' | '51-200' | '201-1000' | '1000+';
const SIZES = weightedTable<SizeKey>([
  ['1-10', 34],
  ['11-50', 31],
  ['51-200', 20],
  ['201-1000', 10],
  ['1000+', 5],
]);
const SEATS: Record<SizeKey, readonly [number, number]> = {
  '1-10': [1, 4],
  '11-50': [2, 12],
  '51-200': [5, 30],
  '201-1000': [10, 60],
  '1000+': [25, 150],
};
const PLAN_BY_SIZE: Record<SizeKey, ReturnType<typeof weightedTable<PlanKey>>> = {
  '1-10': weightedTable<PlanKey>([['starter', 60], ['growth', 32], ['pro', 8]]),
  '11-50': weightedTable<PlanKey>([['starter', 30], ['growth', 45], ['pro', 22], ['enterprise', 3]]),
  '51-200': weightedTable<PlanKey>([['starter', 10], ['growth', 40], ['pro', 38], ['enterprise', 12]]),
  '201-1000': weightedTable<PlanKey>([['growth', 25], ['pro', 45], ['enterprise', 30]]),
  '1000+': weightedTable<PlanKey>([['pro', 35], ['enterprise', 65]]),
};
/** Billing interval in months by plan. */
const INTERVALS: Record<PlanKey, ReturnType<typeof weightedTable<1 | 3 | 12>>> = {
  starter: weightedTable<1 | 3 | 12>([[1, 76], [3, 12], [12, 12]]),
  growth: weightedTable<1 | 3 | 12>([[1, 64], [3, 16], [12, 20]]),
  pro: weightedTable<1 | 3 | 12>([[1, 55], [3, 20], [12, 25]]),
  enterprise: weightedTable<1 | 3 | 12>([[1, 25], [3, 25], [12, 50]]),
};
const NAME_FIRST = [
  'Blue', 'Bright', 'North', 'Silver', 'Red', 'Green', 'Swift', 'Clear', 'Deep', 'Golden', 'Iron', 'Lunar', 'Solar', 'Quiet',
  'Rapid', 'Prime', 'Urban', 'Wild', 'Alpine', 'Coastal', 'Cedar', 'Maple', 'Amber', 'Nova', 'Orbit', 'Pixel', 'Vector',
  'Atlas', 'Harbor', 'Summit', 'Crystal', 'Echo', 'Falcon', 'Granite', 'Horizon', 'Juniper', 'Kite', 'Lumen', 'Meadow',
  'Nimbus', 'Oak', 'Polar', 'Quartz', 'River', 'Sage', 'Tidal', 'Union', 'Violet', 'Willow', 'Zenith',
];
const NAME_SECOND = [
  'Analytics', 'Labs', 'Works', 'Systems', 'Studio', 'Logistics', 'Health', 'Media', 'Foods', 'Digital', 'Partners',
  'Dynamics', 'Retail', 'Robotics', 'Software', 'Ventures', 'Capital', 'Learning', 'Networks', 'Supply', 'Cloud', 'Energy',
  'Design', 'Brands', 'Data', 'Security', 'Travel', 'Fitness', 'Commerce', 'Finance',
];
const GROUP_COUNTRIES = ['United States', 'Germany', 'Poland', 'France', 'United Kingdom', 'Spain', 'Netherlands'];

// ------------------------------------------------------------------------ calendar (UTC)

const MONTH_RE = /^(\d{4})-(0[1-9]|1[0-2])$/;
const DAY_RE = /^(\d{4})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;

function daysInMonth(absMonth: number): number {
  const year = Math.floor(absMonth / 12);
  const month = absMonth % 12;
  return new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
}

function monthKey(absMonth: number): string {
  const year = Math.floor(absMonth / 12);
  const month = (absMonth % 12) + 1;
  return `${year}-${month < 10 ? '0' : ''}${month}`;
}

/** Interned 'YYYY-MM-DD' strings for days 1-31 of a window of months. */
class DayStrings {
  private readonly cache: (string | undefined)[];
  constructor(
    private readonly firstMonth: number,
    months: number,
  ) {
    this.cache = new Array<string | undefined>(months * 32);
  }
  get(absMonth: number, day: number): string {
    const index = (absMonth - this.firstMonth) * 32 + day;
    let value = this.cache[index];
    if (value === undefined) {
      if (index < 0 || index >= this.cache.length) throw new Error(`day outside the generated window: ${monthKey(absMonth)}-${day}`);
      value = `${monthKey(absMonth)}-${day < 10 ? '0' : ''}${day}`;
      this.cache[index] = value;
    }
    return value;
  }
}

function addDays(day: string, days: number): string {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d + days)).toISOString().slice(0, 10);
}

// ------------------------------------------------------------------------ generator

interface CustomerState {
  customer: DemoCustomer;
  currency: DemoCurrency;
  channel: 'Self-serve' | 'Sales';
  /** Has had a recurring payment. */
  paid: boolean;
}

export function generateBusiness(options: GenerateOptions): DemoBusiness {
  const { seed = DEFAULT_DEMO_SEED, customers: customerCount = DEFAULT_DEMO_CUSTOMERS, months = DEFAULT_DEMO_MONTHS } = options;
  const wantSegmentValues = options.segmentValues !== false;
  if (!Number.isInteger(customerCount) || customerCount < 10) throw new Error('customers must be an integer >= 10');
  if (!Number.isInteger(months) || months < 3 || months > 240) throw new Error('months must be an integer between 3 and 240');
  const endMatch = MONTH_RE.exec(options.endMonth);
  if (!endMatch) throw new Error(`endMonth must be 'YYYY-MM', got '${options.endMonth}'`);
  const endAbs = Number(endMatch[1]) * 12 + Number(endMatch[2]) - 1;
  const startAbs = endAbs - months + 1;
  let todayDay = daysInMonth(endAbs);
  if (options.today !== undefined) {
    const todayMatch = DAY_RE.exec(options.today);
    if (!todayMatch || `${todayMatch[1]}-${todayMatch[2]}` !== options.endMonth) {
      throw new Error(`today must be a 'YYYY-MM-DD' day inside endMonth, got '${options.today}'`);
    }
    todayDay = Math.min(Number(todayMatch[3]), daysInMonth(endAbs));
  }
  /** Comparable key of (month, day). */
  const todayKey = endAbs * 32 + todayDay;
  const canStart = (absMonth: number, day: number) => absMonth * 32 + day <= todayKey;

  const random = createRandom(seed);
  const customerId = createIdFactory(random, 'cus');
  const paymentId = createIdFactory(random, 'subh');
  const costId = createIdFactory(random, 'cost');
  const days = new DayStrings(startAbs - 1, months + 15);

  const customers: DemoCustomer[] = [];
  const states: CustomerState[] = [];
  const segmentValues: DemoSegmentValue[] = [];
  const payments: DemoPayment[] = [];
  // Per-month aggregates (index = month from the range start) that drive the cost model.
  const activePaid = new Float64Array(months);
  const mrrUsd = new Float64Array(months);
  const newPaid = new Float64Array(months);

  let invoiceSequence = 0;
  const invoicePrefixes: string[] = [];
  /** 'INV/YYYY/MM/', shared by the payments of a month. */
  const invoicePrefix = (absMonth: number): string =>
    (invoicePrefixes[absMonth - startAbs] ??= `INV/${monthKey(absMonth).replace('-', '/')}/`);
  const freemiumItems: readonly DemoItem[] = Object.freeze([Object.freeze({ product_key: 'free', type: 'freemium', quantity: 1 } as const)]);
  const setupItems: readonly DemoItem[] = Object.freeze([Object.freeze({ product_key: 'onboarding', type: 'one_time', quantity: 1 } as const)]);

  // Company groups: their parents are customers without payments of their own.
  const groupCount = Math.max(3, Math.round(customerCount * 0.005));
  const regularCount = customerCount - groupCount;

  // How many customers sign up in each month: growth, seasonality, a partial current month.
  const weights = new Float64Array(months);
  let weightSum = 0;
  for (let m = 0; m < months; m++) {
    const calendarMonth = (startAbs + m) % 12;
    let weight = Math.pow(1 + SIGNUP_GROWTH, m) * (SIGNUP_SEASON[calendarMonth] as number) * (1 + 0.08 * random.gaussian());
    if (m === months - 1) weight *= todayDay / daysInMonth(endAbs);
    weights[m] = Math.max(weight, 0.01);
    weightSum += weights[m] as number;
  }
  const signups = new Int32Array(months);
  let assigned = 0;
  for (let m = 0; m < months; m++) {
    const count = Math.floor(((weights[m] as number) / weightSum) * regularCount);
    signups[m] = count;
    assigned += count;
  }
  for (let m = months - 1; assigned < regularCount; m = m === 0 ? months - 1 : m - 1) {
    signups[m] = (signups[m] as number) + 1;
    assigned++;
  }

  const addSegmentValue = (customer: DemoCustomer, segment: DemoSegmentKey, absMonth: number, value: string) => {
    if (!wantSegmentValues) return;
    const year = Math.floor(absMonth / 12);
    const month = (absMonth % 12) + 1;
    const last = segmentValues[segmentValues.length - 1];
    if (last && last.customer_id === customer.id && last.segment === segment && last.year === year && last.month === month) {
      last.value = value;
    } else {
      segmentValues.push({ customer_id: customer.id, segment, year, month, value });
    }
  };

  const pushPayment = (
    state: CustomerState,
    absMonth: number,
    day: number,
    duration: 1 | 3 | 12,
    total: number,
    items: readonly DemoItem[],
    discount: DemoDiscount | null,
  ): DemoPayment => {
    invoiceSequence++;
    const payment: DemoPayment = {
      id: paymentId(),
      customer_id: state.customer.id,
      invoice_number: invoicePrefix(absMonth) + invoiceSequence,
      started_at: days.get(absMonth, day),
      ended_at: days.get(absMonth + duration, day),
      duration_in_months: duration,
      total_value: total,
      currency: state.currency,
      items,
      discount,
      channel: state.channel,
      correction: null,
    };
    payments.push(payment);
    return payment;
  };

  let publicSequence = 0;
  for (let m = 0; m < months; m++) {
    const signupAbs = startAbs + m;
    const maxDay = m === months - 1 ? Math.min(28, todayDay) : 28;
    for (let k = 0; k < (signups[m] as number); k++) {
      const country = random.weighted(COUNTRIES);
      const size = random.weighted(SIZES);
      const industry = random.weighted(INDUSTRIES);
      let plan = random.weighted(PLAN_BY_SIZE[size]);
      const day = random.int(1, maxDay);
      publicSequence++;
      const customer: DemoCustomer = {
        id: customerId(),
        public_id: `C${String(publicSequence).padStart(6, '0')}`,
        name: `${random.pick(NAME_FIRST)} ${random.pick(NAME_SECOND)}${random.chance(0.6) ? ` ${random.pick(country.suffixes)}` : ''}`,
        parent_id: null,
        include_in_calculations_by_default: true,
        added_at: days.get(signupAbs, day),
        attributes: { country: country.name, plan: '', industry, company_size: size },
      };
      const state: CustomerState = {
        customer,
        currency: country.currency,
        channel: (plan === 'enterprise' || plan === 'pro') && (size === '201-1000' || size === '1000+') ? 'Sales' : 'Self-serve',
        paid: false,
      };
      customers.push(customer);
      states.push(state);
      addSegmentValue(customer, 'country', signupAbs, country.name);
      addSegmentValue(customer, 'industry', signupAbs, industry);
      addSegmentValue(customer, 'company_size', signupAbs, size);

      // Free trial first (freemium), and some never convert.
      let cursor = signupAbs;
      const trial = plan !== 'enterprise' && random.chance(0.35);
      if (trial) {
        const converts = random.chance(0.62);
        const freeMonths = converts ? random.int(1, 2) : random.int(1, 6);
        addSegmentValue(customer, 'plan', cursor, 'Free');
        customer.attributes.plan = 'Free';
        for (let f = 0; f < freeMonths && canStart(cursor, day); f++) {
          pushPayment(state, cursor, day, 1, 0, freemiumItems, null);
          cursor++;
        }
        if (!converts || !canStart(cursor, day)) continue;
      }

      // Paid life: renewals, changes, churn and sometimes a comeback.
      let interval = random.weighted(INTERVALS[plan]);
      const [minSeats, maxSeats] = SEATS[size];
      let seats = random.int(minSeats, maxSeats);
      if (plan === 'enterprise') seats = Math.max(seats, 10);
      let items: readonly DemoItem[] = [{ product_key: plan, type: 'recurring', quantity: seats }];
      const discountRoll = random.next();
      const discountKind: 'forever' | 'finite' | null = discountRoll < 0.07 ? 'forever' : discountRoll < 0.17 ? 'finite' : null;
      const discountShare = discountKind === 'forever' ? random.int(10, 20) / 100 : random.int(20, 50) / 100;
      let finiteMonthsLeft = discountKind === 'finite' ? 3 : 0;
      const metered = plan !== 'starter' && random.chance(0.08);
      let usage = random.int(5, 60);
      let comebacks = 0;
      let lastPlanValue = '';
      const setPlan = (absMonth: number) => {
        const value = PLAN_NAMES[plan];
        if (value !== lastPlanValue) addSegmentValue(customer, 'plan', absMonth, value);
        lastPlanValue = value;
        customer.attributes.plan = value;
      };

      while (canStart(cursor, day)) {
        const monthIndex = cursor - startAbs;
        if (!state.paid) {
          state.paid = true;
          if (monthIndex < months) newPaid[monthIndex] = (newPaid[monthIndex] as number) + 1;
          if ((plan === 'pro' || plan === 'enterprise') && random.chance(0.45)) {
            pushPayment(state, cursor, day, 1, SETUP_FEE[state.currency], setupItems, null);
          }
        }
        setPlan(cursor);
        const monthly = SEAT_PRICE[state.currency][plan] * seats;
        const total = interval === 1 ? monthly : interval === 3 ? Math.round(monthly * 3 * 0.95) : monthly * 10;
        let discount: DemoDiscount | null = null;
        if (discountKind === 'forever') {
          discount = { kind: 'forever', monthly_amount: Math.round((total / interval) * discountShare) };
        } else if (discountKind === 'finite' && finiteMonthsLeft > 0) {
          discount = { kind: 'finite', monthly_amount: Math.round((total / interval) * discountShare) };
          finiteMonthsLeft -= interval;
        }
        const payment = pushPayment(state, cursor, day, interval, total, items, discount);
        if (random.chance(0.004)) {
          const correctedOn = addDays(payment.started_at, random.int(2, 20));
          if (correctedOn <= days.get(endAbs, todayDay)) {
            const factor = random.chance(0.5) ? 1 + random.int(10, 50) / 100 : 1 - random.int(10, 50) / 100;
            payment.correction = { original_total_value: Math.round(total * factor), corrected_on: correctedOn };
          }
        }
        const monthlyUsd = ((total / interval) - (discount?.monthly_amount ?? 0)) * TO_USD[state.currency];
        for (let c = 0; c < interval; c++) {
          const index = monthIndex + c;
          if (index >= 0 && index < months) {
            activePaid[index] = (activePaid[index] as number) + 1;
            mrrUsd[index] = (mrrUsd[index] as number) + monthlyUsd;
          }
          if (metered && canStart(cursor + c, day)) {
            usage = Math.max(1, Math.round(usage * (1.03 + 0.12 * random.gaussian())));
            pushPayment(state, cursor + c, day, 1, usage * USAGE_PRICE[state.currency], [{ product_key: 'api_calls', type: 'metered', quantity: usage }], null);
          }
        }
        cursor += interval;

        // Churn at the end of the paid period?
        const seasonal = CHURN_SEASON[cursor % 12] as number;
        const hazard = CHURN[plan] * seasonal * (interval === 12 ? 0.55 : interval === 3 ? 0.8 : 1);
        if (random.chance(1 - Math.pow(1 - hazard, interval))) {
          if (comebacks < 2 && random.chance(comebacks === 0 ? 0.14 : 0.06)) {
            comebacks++;
            cursor += random.int(2, 9);
            if (random.chance(0.3)) interval = random.weighted(INTERVALS[plan]);
            continue;
          }
          break;
        }
        // Expansion or contraction at the renewal.
        let changed = false;
        for (let month = 0; month < interval; month++) {
          const roll = random.next();
          if (roll < 0.022) {
            seats += Math.max(1, Math.round(seats * random.int(10, 40) / 100));
            changed = true;
          } else if (roll < 0.029 && plan !== 'enterprise') {
            plan = PLANS[PLANS.indexOf(plan) + 1] as PlanKey;
            changed = true;
          } else if (roll < 0.04 && seats > 1) {
            seats = Math.max(1, seats - Math.max(1, Math.round(seats * random.int(10, 35) / 100)));
            changed = true;
          } else if (roll < 0.043 && plan !== 'starter') {
            plan = PLANS[PLANS.indexOf(plan) - 1] as PlanKey;
            changed = true;
          }
        }
        if (changed) items = [{ product_key: plan, type: 'recurring', quantity: seats }];
      }
    }
  }

  // A few excluded customers (internal test accounts), all distinct and paying.
  const payingStates = states.filter((state) => state.paid);
  const excludedCount = Math.min(payingStates.length, Math.max(3, Math.round(regularCount * 0.004)));
  for (let e = 0; e < excludedCount; e++) {
    let index = random.int(0, payingStates.length - 1);
    while (!(payingStates[index] as CustomerState).customer.include_in_calculations_by_default) index = (index + 1) % payingStates.length;
    const customer = (payingStates[index] as CustomerState).customer;
    customer.include_in_calculations_by_default = false;
    customer.name = `Internal test account ${e + 1}`;
  }

  // Company groups: a parent per group, two to four children renamed after it.
  const parents: DemoCustomer[] = [];
  const paidStates = states.filter((state) => state.paid && state.customer.include_in_calculations_by_default);
  const taken = new Set<number>();
  for (let g = 0; g < groupCount && paidStates.length - taken.size >= 4; g++) {
    const base = `${random.pick(NAME_FIRST)} ${random.pick(NAME_SECOND)}`;
    const parent: DemoCustomer = {
      id: customerId(),
      public_id: `G${String(g + 1).padStart(4, '0')}`,
      name: `${base} Group`,
      parent_id: null,
      include_in_calculations_by_default: true,
      added_at: '',
      attributes: { country: '', plan: '', industry: '', company_size: '' },
    };
    const childCount = random.int(2, 4);
    const countries = [...GROUP_COUNTRIES];
    for (let c = 0; c < childCount; c++) {
      let index = random.int(0, paidStates.length - 1);
      while (taken.has(index)) index = (index + 1) % paidStates.length;
      taken.add(index);
      const child = (paidStates[index] as CustomerState).customer;
      const countryName = countries.splice(random.int(0, countries.length - 1), 1)[0] as string;
      child.parent_id = parent.id;
      child.name = `${base} ${countryName}`;
      if (parent.added_at === '' || child.added_at < parent.added_at) {
        parent.added_at = child.added_at;
        parent.attributes = { ...child.attributes };
      }
    }
    parents.push(parent);
    if (wantSegmentValues) {
      const [y, mo] = parent.added_at.split('-').map(Number) as [number, number];
      for (const key of ['country', 'industry', 'company_size'] as const) {
        segmentValues.push({ customer_id: parent.id, segment: key, year: y, month: mo, value: parent.attributes[key] });
      }
    }
  }

  const costs = generateCosts({ random, costId, startAbs, months, endAbs, todayDay, activePaid, mrrUsd, newPaid });

  return {
    startMonth: monthKey(startAbs),
    endMonth: monthKey(endAbs),
    today: days.get(endAbs, todayDay),
    products: PRODUCTS.map((product) => ({ ...product })),
    // Parents first, so that a bulk insert in this order never references a missing parent.
    customers: parents.concat(customers),
    segmentValues,
    payments,
    costs,
  };
}

// ------------------------------------------------------------------------ costs

interface CostInputs {
  random: Random;
  costId: () => string;
  startAbs: number;
  months: number;
  endAbs: number;
  todayDay: number;
  activePaid: Float64Array;
  mrrUsd: Float64Array;
  newPaid: Float64Array;
}

function generateCosts(inputs: CostInputs): DemoCost[] {
  const { random, costId, startAbs, months, endAbs, todayDay, activePaid, mrrUsd, newPaid } = inputs;
  const costs: DemoCost[] = [];
  const sequences = new Map<string, number>();
  const add = (absMonth: number, day: number, name: string, category: string, currency: DemoCurrency, usdValue: number) => {
    if (absMonth === endAbs && day > todayDay) return;
    const date = `${monthKey(absMonth)}-${String(day).padStart(2, '0')}`;
    const sequence = (sequences.get(name) ?? 0) + 1;
    sequences.set(name, sequence);
    const vendorCode = name.replace(/[^A-Za-z]/g, '').slice(0, 4).toUpperCase();
    costs.push({
      id: costId(),
      name,
      category,
      // Whole currency units, stored in minor units.
      value: Math.max(100, Math.round(usdValue / TO_USD[currency]) * 100),
      currency,
      date,
      due_date: addDays(date, 14),
      invoice_number: `FV/${vendorCode}/${date.slice(0, 4)}/${sequence}`,
    });
  };
  for (let m = 0; m < months; m++) {
    const absMonth = startAbs + m;
    const calendarMonth = absMonth % 12;
    const mrr = mrrUsd[m] as number;
    const active = activePaid[m] as number;
    const fresh = newPaid[m] as number;
    const jitter = () => 1 + 0.06 * random.gaussian();
    const headcount = 6 + Math.floor(mrr / 30_000_00);
    add(absMonth, 1, 'Office rent', 'Office', 'PLN', 3_500 + headcount * 150);
    add(absMonth, 2, 'AWS', 'Hosting', 'USD', (1_500 + active * 1.1) * jitter());
    add(absMonth, 3, 'Google Ads', 'Marketing', 'USD', (800 + fresh * 140) * jitter());
    add(absMonth, 4, 'LinkedIn Ads', 'Marketing', 'USD', (400 + fresh * 70) * jitter());
    add(absMonth, 5, 'SaaS tools', 'Software', 'USD', 600 + headcount * 55);
    add(absMonth, 8, 'Content agency', 'Marketing', 'PLN', 2_500 * jitter());
    if (calendarMonth === 2 || calendarMonth === 5 || calendarMonth === 9) {
      add(absMonth, 15, 'Conference booth', 'Marketing', 'EUR', (6_000 + mrr / 100 / 40) * jitter());
    }
    add(absMonth, 25, 'Payroll', 'Salaries', 'PLN', headcount * 5_200 * (1 + m * 0.003));
  }
  return costs;
}
