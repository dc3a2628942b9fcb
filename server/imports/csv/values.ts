/**
 * Cell values of an imported CSV file: amounts, dates and whole numbers as spreadsheets in
 * different locales write them ('1 234,50 zł', '1,234.50', '31.12.2024', '12/31/2024').
 * Pure and synchronous. A failure carries a reason: a short phrase written to follow the column
 * name and the value, e.g. "Started at '31/31/2024' is not a date".
 */

export interface ValueFailure {
  ok: false;
  /** Follows the column name and the value: "is not a number". */
  reason: string;
}
export type MoneyResult = { ok: true; minor: number } | ValueFailure;
/** `iso`: YYYY-MM-DD. */
export type DateResult = { ok: true; iso: string } | ValueFailure;
export type IntegerResult = { ok: true; value: number } | ValueFailure;

/** How a slash date 'A/B/YYYY' reads: day first (Europe) or month first (US). */
export type DateOrder = 'dmy' | 'mdy';

const failure = (reason: string): ValueFailure => ({ ok: false, reason });

/** Text with every kind of space (no-break, narrow, thin: thousands separators) made one ' '. */
function normalizeSpaces(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

// ---------------------------------------------------------------------------------------------
// Money

/**
 * Currency signs and codes a cell may carry before or after the number: any three capital
 * letters (ISO 4217 codes such as PLN, USD), '$' with an optional country prefix (US$, C$),
 * € £ ¥, and 'zł'. Which currency it is does not matter here: the file's currency column or the
 * account decides, and the import checks that separately.
 */
const CURRENCY = String.raw`(?:[A-Z]{3}|[A-Z]{0,2}\$|€|£|¥|[zZ][łŁ])`;
const CURRENCY_PREFIX = new RegExp(`^${CURRENCY} ?`);
const CURRENCY_SUFFIX = new RegExp(` ?${CURRENCY}$`);
const SIGN = /^[-+\u2212] ?/;

/**
 * An amount in integer minor units of a currency with `minorDigits` decimals ('1 234,50', 2 →
 * 123450). Exact: the digits are put together as text, never through a float.
 *
 * Accepted: '.' or ',' as the decimal separator; '.', ',', spaces (including no-break ones) and
 * "'" as thousands separators; a leading '-' or parentheses for negatives; a currency sign or
 * code before or after (`CURRENCY`). Decimals beyond `minorDigits` are accepted only when they
 * are zeros ('12.5000').
 *
 * Which separator is decimal:
 * - '.' and ',' both present: the last one ('1.234,50', '1,234.50');
 * - one of them, several times: thousands ('1.234.567');
 * - one of them, once, followed by exactly three digits, with 1-3 digits (not starting with 0)
 *   before and no other separator ('10.001', '1,234'): AMBIGUOUS. 10.001 is ten thousand and
 *   one in Warsaw and ten and a thousandth in London; guessing either has imported amounts a
 *   thousand times off. It reads as `decimalMark` says when the caller knows the file's decimal
 *   separator (other values of the column prove it: `decimalMarkEvidence`); without it, it is
 *   refused, saying how to write it ("is ambiguous: write 10001 or 10.00");
 * - otherwise once: decimal ('1234,5', '0,125', '1 234,567', '10.5', '1200.20').
 */
export function parseMoney(text: string, minorDigits: number, decimalMark: DecimalMark | null = null): MoneyResult {
  if (!Number.isInteger(minorDigits) || minorDigits < 0 || minorDigits > 8) throw new RangeError(`minorDigits must be 0 to 8, got ${minorDigits}`);
  // The common case, read directly: plain digits, perhaps a '.' and one or two decimals (never
  // three: '1.234' is thousands, below).
  const plain = PLAIN_MONEY.exec(text);
  if (plain && (plain[2] === undefined || plain[2].length <= minorDigits)) {
    const fraction = (plain[2] ?? '').padEnd(minorDigits, '0');
    return { ok: true, minor: Number((plain[1] as string) + fraction) };
  }
  const cleaned = normalizeSpaces(text);
  if (cleaned === '') return failure('is empty');
  const signed = stripAffixes(cleaned);
  if (!signed) return failure('is not a number');
  const parts = numberParts(signed.body, decimalMark);
  if (!parts) return failure('is not a number');
  if (parts === AMBIGUOUS) return failure(ambiguous(signed.body, minorDigits));

  const fraction = parts.fraction.replace(/0+$/, '');
  if (fraction.length > minorDigits) return failure(tooManyDecimals(minorDigits));
  const digits = (parts.whole + fraction.padEnd(minorDigits, '0')).replace(/^0+(?=\d)/, '');
  if (BigInt(digits) > BigInt(Number.MAX_SAFE_INTEGER)) return failure('is too large');
  const minor = Number(digits);
  return { ok: true, minor: signed.negative && minor !== 0 ? -minor : minor };
}

/** Up to 13 digits (so with 8 decimals still below 2^53), then '.' and one or two digits. */
const PLAIN_MONEY = /^(\d{1,13})(?:\.(\d{1,2}))?$/;

function tooManyDecimals(minorDigits: number): string {
  if (minorDigits === 0) return 'has decimals, but the currency has none';
  return `has more than ${minorDigits} ${minorDigits === 1 ? 'decimal' : 'decimals'}`;
}

/**
 * The number of a money cell without its sign, parentheses and currency, or null when what is
 * around the number is not one of those. One sign at most: '(-12)' and '--12' are refused.
 */
function stripAffixes(text: string): { negative: boolean; body: string } | null {
  let rest = text;
  const parenthesized = rest.startsWith('(') && rest.endsWith(')');
  let negative = parenthesized;
  if (parenthesized) rest = rest.slice(1, -1).trim();
  let signs = 0;
  const takeSign = (): void => {
    const sign = SIGN.exec(rest);
    if (!sign) return;
    signs++;
    if (sign[0][0] !== '+') negative = true;
    rest = rest.slice(sign[0].length);
  };
  takeSign();
  const prefix = CURRENCY_PREFIX.exec(rest);
  if (prefix) {
    rest = rest.slice(prefix[0].length);
    takeSign();
  } else {
    const suffix = CURRENCY_SUFFIX.exec(rest);
    if (suffix) rest = rest.slice(0, -suffix[0].length);
  }
  if (signs > 1 || (signs === 1 && parenthesized)) return null;
  return { negative, body: rest };
}

/** The decimal separator of a file's amounts ('.' in '1,234.50', ',' in '1.234,50'). */
export type DecimalMark = '.' | ',';

/** A lone '.' or ',' before exactly three digits ('10.001'): thousands or decimals, by locale. */
const AMBIGUOUS = 'ambiguous';

/** "is ambiguous: write 10001 or 10.00": both readings of '10.001', each written unambiguously. */
function ambiguous(body: string, minorDigits: number): string {
  const mark = body.includes('.') ? '.' : ',';
  const [whole, fraction] = body.split(mark) as [string, string];
  // The decimal reading with the currency's decimals; with three of them it would be ambiguous again.
  let decimals = fraction.padEnd(minorDigits, '0').slice(0, minorDigits);
  if (decimals.length === 3) decimals += '0';
  return `is ambiguous: write ${whole}${fraction} or ${decimals ? `${whole}${mark}${decimals}` : whole}`;
}

/**
 * The integer digits and decimal digits of a number written with separators (see `parseMoney`
 * for which one is decimal), AMBIGUOUS for a lone separator before three digits that
 * `decimalMark` does not settle, or null when it is not a well-formed number: thousands groups
 * must be three digits after a first group of 1-3, with one kind of thousands separator.
 */
function numberParts(body: string, decimalMark: DecimalMark | null): { whole: string; fraction: string } | typeof AMBIGUOUS | null {
  if (!/^\d(?:[\d.,' ]*\d)?$/.test(body) || /[.,' ]{2}/.test(body)) return null;
  let decimal = decimalSeparator(body);
  if (decimal === AMBIGUOUS) {
    if (!decimalMark) return AMBIGUOUS;
    decimal = body.includes(decimalMark) ? decimalMark : null;
  }
  let whole = body;
  let fraction = '';
  if (decimal) {
    const at = body.lastIndexOf(decimal);
    if (body.indexOf(decimal) !== at) return null;
    whole = body.slice(0, at);
    fraction = body.slice(at + 1);
    if (!/^\d+$/.test(fraction)) return null;
  }
  const groupers = new Set(whole.replace(/\d/g, ''));
  if (groupers.size > 1) return null;
  if (groupers.size === 1) {
    const [first, ...groups] = whole.split([...groupers][0] as string);
    if (!/^\d{1,3}$/.test(first as string) || !groups.every((group) => /^\d{3}$/.test(group))) return null;
  }
  return { whole: whole.replace(/\D/g, ''), fraction };
}

/** The decimal separator of a number's text, null when it has none, AMBIGUOUS for '10.001'. */
function decimalSeparator(body: string): DecimalMark | typeof AMBIGUOUS | null {
  const dot = body.lastIndexOf('.');
  const comma = body.lastIndexOf(',');
  if (dot >= 0 && comma >= 0) return dot > comma ? '.' : ',';
  if (dot < 0 && comma < 0) return null;
  const mark = dot >= 0 ? '.' : ',';
  if (body.indexOf(mark) !== body.lastIndexOf(mark)) return null;
  return /^[1-9]\d{0,2}[.,]\d{3}$/.test(body) ? AMBIGUOUS : mark;
}

/** The common proofs, read directly: '12.50', '1200.2', '12,5'. */
const PLAIN_DECIMAL = /^\d+([.,])\d{1,2}$/;

/**
 * The decimal separator a money cell proves, or null when it proves none: with both, the last
 * ('1,234.56' '.', '1.234,56' ','); a lone one before other than three digits, that one
 * ('10.5', '1200.20', '0,125', '1234.567'); one several times, the other ('1.234.567' ',').
 * '10.001', '1234' and what is not a number prove nothing. The upload reads every cell of a
 * file for it, per column (staging.ts), and an import reads the ambiguous amounts of its amount
 * column by what that column's cells prove, when they prove one separator only.
 */
export function decimalMarkEvidence(text: string): DecimalMark | null {
  const plain = PLAIN_DECIMAL.exec(text);
  if (plain) return plain[1] as DecimalMark;
  if (!text.includes('.') && !text.includes(',')) return null;
  const signed = stripAffixes(normalizeSpaces(text));
  if (!signed) return null;
  const { body } = signed;
  const parts = numberParts(body, null);
  if (!parts || parts === AMBIGUOUS) return null;
  const decimal = decimalSeparator(body);
  if (decimal === '.' || decimal === ',') return decimal;
  // Thousands only: several of one separator means the other is the decimal one.
  if (body.includes('.')) return ',';
  if (body.includes(',')) return '.';
  return null;
}

// ---------------------------------------------------------------------------------------------
// Dates

/** A time after the date ('T10:00:00Z', ' 10:00', ' 9:30 PM'): ignored, the day is what counts. */
const TIME = String.raw`(?:(?:T| )\d{1,2}:\d{2}.*)?`;
const YEAR_FIRST = new RegExp(String.raw`^(\d{4})([-/])(\d{1,2})\2(\d{1,2})${TIME}$`);
const DAY_FIRST = new RegExp(String.raw`^(\d{1,2})([-.])(\d{1,2})\2(\d{4})${TIME}$`);
const SLASH = new RegExp(String.raw`^(\d{1,2})/(\d{1,2})/(\d{4})${TIME}$`);
const TWO_DIGIT_YEAR = new RegExp(String.raw`^\d{1,2}([-./])\d{1,2}\1\d{2}${TIME}$`);

const MIN_YEAR = 1900;
const MAX_YEAR = 2999;

/**
 * A date cell as an ISO date (YYYY-MM-DD). Accepted: 'YYYY-MM-DD' (a time after it, 'T...' or
 * ' HH:MM...', is ignored: no time zone shifts the day), 'YYYY/MM/DD', 'DD-MM-YYYY',
 * 'DD.MM.YYYY' (one-digit day and month too) and slash dates 'A/B/YYYY'. A slash date reads day
 * first when A > 12, month first when B > 12, the same either way when A = B, and otherwise as
 * `slashOrder`, which the caller decides for the whole file (`slashOrderEvidence`); with no order
 * it is refused as ambiguous rather than guessed. Only real calendar days of 1900-2999.
 */
export function parseDate(text: string, slashOrder: DateOrder | null): DateResult {
  // The common case first: an ISO date as it is.
  const iso = ISO_DATE.exec(text);
  if (iso) return calendarDate(iso[1], iso[2], iso[3]);
  const value = normalizeSpaces(text);
  if (value === '') return failure('is empty');

  const yearFirst = YEAR_FIRST.exec(value);
  if (yearFirst) return calendarDate(yearFirst[1], yearFirst[3], yearFirst[4]);
  const dayFirst = DAY_FIRST.exec(value);
  if (dayFirst) return calendarDate(dayFirst[4], dayFirst[3], dayFirst[1]);
  const slash = SLASH.exec(value);
  if (slash) {
    const [a, b, year] = [Number(slash[1]), Number(slash[2]), slash[3]];
    if (a > 12 && b > 12) return failure('is not a date');
    const order = a === b ? 'dmy' : (orderOf(a, b) ?? slashOrder);
    if (!order) return failure('is ambiguous (use YYYY-MM-DD)');
    return order === 'dmy' ? calendarDate(year, slash[2], slash[1]) : calendarDate(year, slash[1], slash[2]);
  }
  if (TWO_DIGIT_YEAR.test(value)) return failure('needs a four-digit year');
  return failure('is not a date');
}

/**
 * The order a single slash date proves: 'dmy' when its first number cannot be a month (> 12),
 * 'mdy' when its second cannot, null when it proves nothing (both <= 12, both > 12, or not a
 * slash date). The caller reads a file's dates once to decide its order, and reports a file
 * whose dates prove both.
 */
export function slashOrderEvidence(text: string): DateOrder | null {
  const slash = SLASH.exec(normalizeSpaces(text));
  return slash ? orderOf(Number(slash[1]), Number(slash[2])) : null;
}

function orderOf(a: number, b: number): DateOrder | null {
  if (a > 12 && b <= 12) return 'dmy';
  if (b > 12 && a <= 12) return 'mdy';
  return null;
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const pad2 = (n: number): string => (n < 10 ? `0${n}` : String(n));

function calendarDate(yearText: string | undefined, monthText: string | undefined, dayText: string | undefined): DateResult {
  const year = Number(yearText);
  const month = Number(monthText);
  const day = Number(dayText);
  if (year < MIN_YEAR || year > MAX_YEAR) return failure(`has a year outside ${MIN_YEAR}-${MAX_YEAR}`);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return failure('is not a date');
  return { ok: true, iso: `${year}-${pad2(month)}-${pad2(day)}` };
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

// ---------------------------------------------------------------------------------------------
// Whole numbers

/**
 * A whole number ('12', ' 3 ', '-2', '12.0' as spreadsheets export them). '1.000' and '1,500'
 * are refused as ambiguous: thousands in one locale, decimals in another, and either reading
 * would be a guess.
 */
export function parseInteger(text: string): IntegerResult {
  const value = normalizeSpaces(text);
  if (value === '') return failure('is empty');
  if (/^[-+]?[1-9]\d{0,2}[.,]\d{3}$/.test(value)) return failure('is ambiguous (write it without a separator)');
  const whole = /^([-+]?)(\d+)(?:[.,]0+)?$/.exec(value);
  if (whole) {
    const magnitude = Number(whole[2]);
    if (!Number.isSafeInteger(magnitude)) return failure('is too large');
    return { ok: true, value: whole[1] === '-' && magnitude !== 0 ? -magnitude : magnitude };
  }
  if (/^[-+]?\d*[.,]\d+$/.test(value)) return failure('is not a whole number');
  return failure('is not a number');
}
