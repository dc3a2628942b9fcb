/**
 * Money as the product keeps it: whole minor units of a currency (cents of USD, yen of JPY,
 * fils of KWD). How many digits a currency's minor unit has decides how an imported amount is
 * stored, how amounts convert between currencies and how a chart or an export shows them, so
 * client and server read the digits from this one table.
 */

/** ISO 4217 code, name, minor-unit digits: the ECB's currencies (current and former) and common others. */
export const CURRENCIES: readonly (readonly [iso: string, name: string, minorUnitDigits: number])[] = [
  ['AED', 'UAE Dirham', 2],
  ['ARS', 'Argentine Peso', 2],
  ['AUD', 'Australian Dollar', 2],
  ['BGN', 'Bulgarian Lev', 2],
  ['BHD', 'Bahraini Dinar', 3],
  ['BRL', 'Brazilian Real', 2],
  ['CAD', 'Canadian Dollar', 2],
  ['CHF', 'Swiss Franc', 2],
  ['CLP', 'Chilean Peso', 0],
  ['CNY', 'Yuan Renminbi', 2],
  ['COP', 'Colombian Peso', 2],
  ['CYP', 'Cyprus Pound', 2],
  ['CZK', 'Czech Koruna', 2],
  ['DKK', 'Danish Krone', 2],
  ['EEK', 'Estonian Kroon', 2],
  ['EGP', 'Egyptian Pound', 2],
  ['EUR', 'Euro', 2],
  ['GBP', 'Pound Sterling', 2],
  ['HKD', 'Hong Kong Dollar', 2],
  ['HRK', 'Croatian Kuna', 2],
  ['HUF', 'Forint', 2],
  ['IDR', 'Rupiah', 2],
  ['ILS', 'New Israeli Sheqel', 2],
  ['INR', 'Indian Rupee', 2],
  ['ISK', 'Iceland Krona', 0],
  ['JPY', 'Yen', 0],
  ['KRW', 'Won', 0],
  ['KWD', 'Kuwaiti Dinar', 3],
  ['LTL', 'Lithuanian Litas', 2],
  ['LVL', 'Latvian Lats', 2],
  ['MTL', 'Maltese Lira', 2],
  ['MXN', 'Mexican Peso', 2],
  ['MYR', 'Malaysian Ringgit', 2],
  ['NGN', 'Naira', 2],
  ['NOK', 'Norwegian Krone', 2],
  ['NZD', 'New Zealand Dollar', 2],
  ['PHP', 'Philippine Peso', 2],
  ['PKR', 'Pakistan Rupee', 2],
  ['PLN', 'Zloty', 2],
  ['ROL', 'Romanian Leu (old)', 2],
  ['RON', 'Romanian Leu', 2],
  ['RUB', 'Russian Ruble', 2],
  ['SAR', 'Saudi Riyal', 2],
  ['SEK', 'Swedish Krona', 2],
  ['SGD', 'Singapore Dollar', 2],
  ['SIT', 'Slovenian Tolar', 2],
  ['SKK', 'Slovak Koruna', 2],
  ['THB', 'Baht', 2],
  ['TRL', 'Turkish Lira (old)', 0],
  ['TRY', 'Turkish Lira', 2],
  ['TWD', 'New Taiwan Dollar', 2],
  ['UAH', 'Hryvnia', 2],
  ['USD', 'US Dollar', 2],
  ['VND', 'Dong', 0],
  ['ZAR', 'Rand', 2],
];

/**
 * Digits of a currency's minor unit that no table entry names: two, as most currencies have.
 * Amounts are only ever stored in a currency of the table (an import refuses any other code).
 */
export const DEFAULT_MINOR_UNIT_DIGITS = 2;

const DIGITS: ReadonlyMap<string, number> = new Map(CURRENCIES.map(([iso, , digits]) => [iso, digits]));

/**
 * Minor-unit digits of a currency (any case), as ISO 4217 defines them: 2 for USD, 0 for JPY, 3
 * for KWD, and 2 for HUF or IDR, whose cents a display may leave out but whose amounts are
 * still stored in hundredths.
 */
export function currencyDigits(currency: string): number {
  return DIGITS.get(currency.toUpperCase()) ?? DEFAULT_MINOR_UNIT_DIGITS;
}

/** 123456 minor units of USD are 1234.56 dollars. */
export function minorToMajor(minorUnits: number, currency: string): number {
  return minorUnits / 10 ** currencyDigits(currency);
}
