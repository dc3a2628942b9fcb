import { object, optional, record, refine, string, type Infer } from 'superstruct';
import { isIsoDay } from './accountSettings';
import { currencyDigits } from './money';
import { randomAlphanumeric } from './random';
import { requiredString } from './validation';

/**
 * Costs: money the business spends (salaries, ads, tools), each on a day, in a currency, with an
 * optional due date, invoice number, name and cost attribute values. Reports sum them in the
 * costs and CAC sections. The form and the server share the rules and the messages below.
 */

export const COST_VALUE_REQUIRED = 'Cost value is required';
export const COST_VALUE_NOT_NUMBER = 'Should be a number ex. 1200.20';
export const COST_DATE_REQUIRED = 'Date is required';
export const COST_DATE_INVALID = 'Should be a date (YYYY-MM-DD)';
export const COST_CURRENCY_REQUIRED = 'Currency is required';
export const COST_CURRENCY_UNKNOWN = 'Unknown currency';
export const COST_ID_INVALID = "Should be 'cost' and 12 letters or digits";
export const COST_NOT_FOUND = 'Cost not found';
export const COST_ATTRIBUTE_NOT_FOUND = 'Cost attribute not found';

/** The cost import's mapping without the value or the date column (the page and the server say the same). */
export const COST_MAPPING_VALUE_REQUIRED = 'Choose the column of the cost value';
export const COST_MAPPING_DATE_REQUIRED = 'Choose the column of the cost date';

export const COSTS_FETCH_FAILURE = 'We could not fetch costs';
export const COST_UPDATE_FAILURE = 'We could not update the cost record, please try again.';
export const COST_CREATE_FAILURE = 'We could not create a new cost, please try again.';
export const COST_DELETE_FAILURE = 'We could not delete this cost, please try again.';
export const COSTS_EMPTY = 'Start by adding new costs records';

/** The spec's cost currency menu; the account's used currencies follow. */
export const COST_CURRENCY_MENU = ['usd', 'pln', 'eur'] as const;

/** Longest invoice number, name and attribute value kept. */
export const COST_TEXT_MAX = 255;
/** Largest value in minor units (a safe integer in every engine). */
export const COST_VALUE_MAX_MINOR = Number.MAX_SAFE_INTEGER;

export const COST_ID_PATTERN = /^cost[A-Za-z0-9]{12}$/;
/** 'cost' + 12 random letters or digits (the client names a new cost before it is saved). */
export function newCostId(): string {
  return `cost${randomAlphanumeric(12)}`;
}

/** The currency menu: usd, pln, eur, then the account's other used currencies (upper case, each once). */
export function costCurrencyMenu(usedCurrencies: readonly string[]): string[] {
  const menu = COST_CURRENCY_MENU.map((iso) => iso.toUpperCase());
  for (const iso of usedCurrencies) {
    const upper = iso.toUpperCase();
    if (!menu.includes(upper)) menu.push(upper);
  }
  return menu;
}

/** A cost as the API answers it; money in minor units of its currency. */
export interface Cost {
  id: string;
  name: string | null;
  value: number;
  currency: string;
  date: string;
  due_date: string | null;
  invoice_number: string | null;
  segments: { id: string; name: string; value: string | null }[];
  source: string;
}

/** The body of POST /costs and PUT /costs/upsert/{id}. */
export interface CostBody {
  value: number;
  currency: string;
  date: string;
  due_date?: string | null;
  invoice_number?: string | null;
  name?: string | null;
  segments?: { id: string; value: string | null }[];
}

/** A typed amount in major units ('1200.20', '1200,20', '1 200'). */
const AMOUNT = /^\d{1,13}([.,]\d+)?$/;

const amountText = (text: string) => text.trim().replace(/\s/g, '');

/** The cost drawer's form: every field as the inputs hold it; dates YYYY-MM-DD or ''. */
export const costFormStruct = refine(
  object({
    value: refine(requiredString(COST_VALUE_REQUIRED), 'number', (text) => text.trim() === '' || AMOUNT.test(amountText(text)) || COST_VALUE_NOT_NUMBER),
    currency: requiredString(COST_CURRENCY_REQUIRED),
    date: refine(requiredString(COST_DATE_REQUIRED), 'date', (text) => text.trim() === '' || isIsoDay(text.trim()) || COST_DATE_INVALID),
    due_date: refine(string(), 'date', (text) => text.trim() === '' || isIsoDay(text.trim()) || COST_DATE_INVALID),
    invoice_number: refine(string(), 'length', (text) => text.trim().length <= COST_TEXT_MAX || `At most ${COST_TEXT_MAX} characters`),
    name: refine(string(), 'length', (text) => text.trim().length <= COST_TEXT_MAX || `At most ${COST_TEXT_MAX} characters`),
    segments: optional(record(string(), string())),
  }),
  'decimals',
  (form) => {
    const text = amountText(form.value);
    if (!AMOUNT.test(text) || form.currency.trim() === '') return true;
    const decimals = text.split(/[.,]/)[1] ?? '';
    return decimals.replace(/0+$/, '').length <= currencyDigits(form.currency) || { path: ['value'], message: COST_VALUE_NOT_NUMBER };
  },
);

export type CostForm = Infer<typeof costFormStruct> & { segments: Record<string, string> };

/** The empty form of a new cost in `currency`. */
export function newCostForm(currency: string, attributeIds: readonly string[] = []): CostForm {
  return { value: '', currency, date: '', due_date: '', invoice_number: '', name: '', segments: Object.fromEntries(attributeIds.map((id) => [id, ''])) };
}

/** A typed amount in integer minor units of `currency` (the form is valid: at most the currency's decimals). */
export function majorTextToMinor(text: string, currency: string): number {
  const [whole = '0', fraction = ''] = amountText(text).split(/[.,]/);
  const digits = currencyDigits(currency);
  return Number(whole + fraction.replace(/0+$/, '').padEnd(digits, '0'));
}

/** Minor units as the form shows them in major units ('1200.20' for 120020 USD). */
export function minorToMajorText(minor: number, currency: string): string {
  const digits = currencyDigits(currency);
  if (digits === 0) return String(minor);
  const negative = minor < 0;
  const text = String(Math.abs(minor)).padStart(digits + 1, '0');
  return `${negative ? '-' : ''}${text.slice(0, -digits)}.${text.slice(-digits)}`;
}

/** The form of an existing cost (every cost attribute listed, '' when it has no value). */
export function costToForm(cost: Cost, attributeIds: readonly string[] = []): CostForm {
  const segments: Record<string, string> = Object.fromEntries(attributeIds.map((id) => [id, '']));
  for (const segment of cost.segments) segments[segment.id] = segment.value ?? '';
  return {
    value: minorToMajorText(cost.value, cost.currency),
    currency: cost.currency,
    date: cost.date,
    due_date: cost.due_date ?? '',
    invoice_number: cost.invoice_number ?? '',
    name: cost.name ?? '',
    segments,
  };
}

const blankToNull = (text: string) => (text.trim() === '' ? null : text.trim());

/** The body a valid form sends: money in minor units, blank optional fields and attribute values null. */
export function costFormToBody(form: CostForm): CostBody {
  return {
    value: majorTextToMinor(form.value, form.currency),
    currency: form.currency.trim().toUpperCase(),
    date: form.date.trim(),
    due_date: blankToNull(form.due_date),
    invoice_number: blankToNull(form.invoice_number),
    name: blankToNull(form.name),
    segments: Object.entries(form.segments).map(([id, value]) => ({ id, value: blankToNull(value) })),
  };
}
