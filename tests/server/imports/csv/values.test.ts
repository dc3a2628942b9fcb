import { describe, expect, it } from 'vitest';
import { decimalMarkEvidence, parseDate, parseInteger, parseMoney, slashOrderEvidence } from '../../../../server/imports/csv/values';

const minor = (text: string, digits = 2): number | string => {
  const result = parseMoney(text, digits);
  return result.ok ? result.minor : result.reason;
};

const iso = (text: string, order: 'dmy' | 'mdy' | null = null): string => {
  const result = parseDate(text, order);
  return result.ok ? result.iso : result.reason;
};

const integer = (text: string): number | string => {
  const result = parseInteger(text);
  return result.ok ? result.value : result.reason;
};

describe('parseMoney', () => {
  it.each([
    ['1234.5', 123450],
    ['1234', 123400],
    ['0.99', 99],
    ['007.10', 710],
  ])('reads a plain number with a decimal point: %s', (text, expected) => {
    expect(minor(text)).toBe(expected);
  });

  it.each([
    ['1234,50', 123450],
    ['1234,5', 123450],
    ['0,125', 'has more than 2 decimals'],
  ])('reads a decimal comma: %s', (text, expected) => {
    expect(minor(text)).toBe(expected);
  });

  it.each([
    ['1 234,50', 123450],
    ['1\u00a0234,50', 123450],
    ['1\u202f234\u202f567,50', 123456750],
    ['1.234,50', 123450],
    ['1.234.567,89', 123456789],
    ['1,234.50', 123450],
    ['1,234,567.89', 123456789],
    ["1'234.50", 123450],
    ["12'345'678", 1234567800],
    ['1 234', 123400],
  ])('reads thousands separators: %s', (text, expected) => {
    expect(minor(text)).toBe(expected);
  });

  it.each([
    ['10.001', 'is ambiguous: write 10001 or 10.00'],
    ['10,001', 'is ambiguous: write 10001 or 10,00'],
    ['1,234', 'is ambiguous: write 1234 or 1,23'],
    ['1.234', 'is ambiguous: write 1234 or 1.23'],
    ['123.456', 'is ambiguous: write 123456 or 123.45'],
    ['$10.001', 'is ambiguous: write 10001 or 10.00'],
    ['-10,001 zł', 'is ambiguous: write 10001 or 10,00'],
  ])('refuses one separator before exactly three digits as ambiguous (thousands or decimals), saying how to write it: %s', (text, expected) => {
    expect(minor(text)).toBe(expected);
  });

  it('writes the ambiguous amount with the currency decimals in its advice (never ambiguous again)', () => {
    expect(minor('10.001', 0)).toBe('is ambiguous: write 10001 or 10');
    expect(minor('10.001', 3)).toBe('is ambiguous: write 10001 or 10.0010');
  });

  it.each([
    ['1,234.56', 123456],
    ['1.234,56', 123456],
    ['10.5', 1050],
    ['1200.20', 120020],
    ['1 200,20', 120020],
    ['1.5', 150],
    ['1,234,567', 123456700],
    ['1.234.567', 123456700],
    ['1234.567', 'has more than 2 decimals'],
    ['1 234,567', 'has more than 2 decimals'],
    ['0.500', 50],
    ['0,125', 'has more than 2 decimals'],
  ])('keeps reading what is not ambiguous: %s', (text, expected) => {
    expect(minor(text)).toBe(expected);
  });

  it('reads an ambiguous amount by the decimal separator the file proves', () => {
    expect(parseMoney('10.001', 2, ',')).toEqual({ ok: true, minor: 1000100 });
    expect(parseMoney('10,001', 2, '.')).toEqual({ ok: true, minor: 1000100 });
    expect(parseMoney('10.001', 2, '.')).toEqual({ ok: false, reason: 'has more than 2 decimals' });
    expect(parseMoney('10.001', 3, '.')).toEqual({ ok: true, minor: 10001 });
    expect(parseMoney('10,001', 2, ',')).toEqual({ ok: false, reason: 'has more than 2 decimals' });
    // What is not ambiguous reads the same whatever the file says.
    expect(parseMoney('1,234.56', 2, ',')).toEqual({ ok: true, minor: 123456 });
    expect(parseMoney('10.5', 2, ',')).toEqual({ ok: true, minor: 1050 });
  });

  it.each([
    ['-12.50', -1250],
    ['\u221212,50', -1250],
    ['(12.50)', -1250],
    ['($1,234.50)', -123450],
    ['-0.00', 0],
    ['+3', 300],
  ])('reads negatives written with a minus or parentheses: %s', (text, expected) => {
    expect(minor(text)).toBe(expected);
  });

  it.each([
    ['$12.50', 1250],
    ['12.50 $', 1250],
    ['€ 1.234,50', 123450],
    ['1 234,50 €', 123450],
    ['12,50 zł', 1250],
    ['12,50zł', 1250],
    ['PLN 1 234,50', 123450],
    ['1234.50 USD', 123450],
    ['USD12', 1200],
    ['-$5', -500],
    ['$-5', -500],
    ['-5 zł', -500],
    ['US$ 5', 500],
  ])('strips a currency sign or code before or after: %s', (text, expected) => {
    expect(minor(text)).toBe(expected);
  });

  it('keeps decimals beyond the currency when they are zeros', () => {
    expect(minor('12.5000')).toBe(1250);
    expect(minor('100.00', 0)).toBe(100);
  });

  it('scales to the currency minor digits', () => {
    expect(minor('1234', 0)).toBe(1234);
    expect(minor('1,5', 3)).toBe(1500);
    expect(minor('12.5', 1)).toBe(125);
  });

  it('is exact where floats are not', () => {
    expect(minor('0.29')).toBe(29);
    expect(minor('1.15')).toBe(115);
    expect(minor('90071992547409.91')).toBe(9007199254740991);
  });

  it.each(['', '   ', '\u00a0'])('refuses an empty cell: %j', (text) => {
    expect(minor(text)).toBe('is empty');
  });

  it.each(['abc', '12abc', '1,2,3', '1.2.3', '12.', '.5', '1..5', '1,,234', '1,23,456.00', '1 234.567,89', '(-12)', '--12', '$12 USD', '12-', '1e5', '0x10', 'NaN', '12 kg'])(
    'refuses what is not a number: %s',
    (text) => {
      expect(minor(text)).toBe('is not a number');
    },
  );

  it('refuses more decimals than the currency has, saying how many it has', () => {
    expect(minor('1234.345')).toBe('has more than 2 decimals');
    expect(minor('12.3456')).toBe('has more than 2 decimals');
    expect(minor('12,05', 1)).toBe('has more than 1 decimal');
    expect(minor('12.5', 0)).toBe('has decimals, but the currency has none');
  });

  it('refuses amounts beyond safe integers', () => {
    expect(minor('90071992547409.92')).toBe('is too large');
    expect(minor('99999999999999999999')).toBe('is too large');
  });

  it('throws for impossible minor digits (a programming error, not a cell error)', () => {
    expect(() => parseMoney('1', -1)).toThrow(RangeError);
    expect(() => parseMoney('1', 1.5)).toThrow(RangeError);
  });
});

describe('decimalMarkEvidence', () => {
  it.each([
    ['1,234.56', '.'],
    ['1.234,56', ','],
    ['10.5', '.'],
    ['10,5', ','],
    ['1200.20', '.'],
    ['1 200,20', ','],
    ['0.500', '.'],
    ['1234.567', '.'],
    ['1.234.567', ','],
    ['1,234,567', '.'],
    ['$1,234.50', '.'],
    ['12,50 zł', ','],
  ])('proves the decimal separator of a well-formed number: %s', (text, expected) => {
    expect(decimalMarkEvidence(text)).toBe(expected);
  });

  it.each(['10.001', '1,234', '1234', '1 234', 'abc', '01.02.2025', '1.2.3', '', '2025-01-01'])('proves nothing from an ambiguous amount or what is not one: %j', (text) => {
    expect(decimalMarkEvidence(text)).toBeNull();
  });
});

describe('parseDate', () => {
  it.each([
    ['2024-03-05', '2024-03-05'],
    ['2024-3-5', '2024-03-05'],
    ['2024-03-05T10:15:00Z', '2024-03-05'],
    ['2024-03-05T23:59:59.999+02:00', '2024-03-05'],
    ['2024-03-05 10:15', '2024-03-05'],
    ['2024/03/05', '2024-03-05'],
    [' 2024-03-05 ', '2024-03-05'],
  ])('reads year-first dates, ignoring a time: %s', (text, expected) => {
    expect(iso(text)).toBe(expected);
  });

  it.each([
    ['05-03-2024', '2024-03-05'],
    ['05.03.2024', '2024-03-05'],
    ['5.3.2024', '2024-03-05'],
    ['31.12.2024 23:59', '2024-12-31'],
  ])('reads day-first dashes and dots: %s', (text, expected) => {
    expect(iso(text)).toBe(expected);
  });

  it('reads a slash date day first when the first number cannot be a month', () => {
    expect(iso('31/01/2024')).toBe('2024-01-31');
    expect(iso('13/1/2024', 'mdy')).toBe('2024-01-13');
  });

  it('reads a slash date month first when the second number cannot be a month', () => {
    expect(iso('01/31/2024')).toBe('2024-01-31');
    expect(iso('1/13/2024 9:30 PM', 'dmy')).toBe('2024-01-13');
  });

  it('reads an ambiguous slash date in the given order', () => {
    expect(iso('03/05/2024', 'dmy')).toBe('2024-05-03');
    expect(iso('03/05/2024', 'mdy')).toBe('2024-03-05');
  });

  it('refuses an ambiguous slash date when no order is known', () => {
    expect(iso('03/05/2024')).toBe('is ambiguous (use YYYY-MM-DD)');
  });

  it('reads a slash date whose day and month are equal without an order', () => {
    expect(iso('07/07/2024')).toBe('2024-07-07');
  });

  it.each(['31/31/2024', '2025-02-30', '2023-02-29', '2024-13-01', '2024-00-10', '2024-04-31', '00.01.2024', '32/01/2024'])(
    'refuses days that are not on the calendar: %s',
    (text) => {
      expect(iso(text, 'dmy')).toBe('is not a date');
    },
  );

  it('accepts leap days', () => {
    expect(iso('2024-02-29')).toBe('2024-02-29');
    expect(iso('29.02.2000')).toBe('2000-02-29');
    expect(iso('1900-02-29')).toBe('is not a date');
  });

  it('keeps years within 1900-2999', () => {
    expect(iso('1900-01-01')).toBe('1900-01-01');
    expect(iso('2999-12-31')).toBe('2999-12-31');
    expect(iso('1899-12-31')).toBe('has a year outside 1900-2999');
    expect(iso('01.01.3000')).toBe('has a year outside 1900-2999');
  });

  it('asks for a four-digit year', () => {
    expect(iso('31/12/24', 'dmy')).toBe('needs a four-digit year');
    expect(iso('31.12.24')).toBe('needs a four-digit year');
  });

  it.each(['', '  '])('refuses an empty cell: %j', (text) => {
    expect(iso(text)).toBe('is empty');
  });

  it.each(['yesterday', '2024-03', '2024.03.05', '05-03-2024x', '2024-03-05 garbage', '03/05-2024', '45292', 'March 5, 2024'])(
    'refuses other text: %s',
    (text) => {
      expect(iso(text, 'dmy')).toBe('is not a date');
    },
  );

  it('makes a reason that follows the column name', () => {
    const result = parseDate('31/31/2024', null);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(`Started at '31/31/2024' ${result.reason}`).toBe("Started at '31/31/2024' is not a date");
  });
});

describe('slashOrderEvidence', () => {
  it('proves day first when the first number is over 12', () => {
    expect(slashOrderEvidence('31/01/2024')).toBe('dmy');
    expect(slashOrderEvidence(' 13/1/2024 10:00 ')).toBe('dmy');
  });

  it('proves month first when the second number is over 12', () => {
    expect(slashOrderEvidence('01/31/2024')).toBe('mdy');
  });

  it('proves nothing for ambiguous, impossible or non-slash dates', () => {
    expect(slashOrderEvidence('03/05/2024')).toBeNull();
    expect(slashOrderEvidence('31/31/2024')).toBeNull();
    expect(slashOrderEvidence('2024-01-31')).toBeNull();
    expect(slashOrderEvidence('31.01.2024')).toBeNull();
    expect(slashOrderEvidence('')).toBeNull();
  });
});

describe('parseInteger', () => {
  it.each([
    ['12', 12],
    [' 3 ', 3],
    ['12.0', 12],
    ['12,00', 12],
    ['-2', -2],
    ['+4', 4],
    ['0', 0],
    ['-0', 0],
    ['007', 7],
  ])('reads a whole number: %j', (text, expected) => {
    expect(integer(text)).toBe(expected);
  });

  it('refuses an empty cell', () => {
    expect(integer('')).toBe('is empty');
    expect(integer(' ')).toBe('is empty');
  });

  it('refuses fractions', () => {
    expect(integer('1.5')).toBe('is not a whole number');
    expect(integer('2,25')).toBe('is not a whole number');
  });

  it('refuses a separator before three digits as ambiguous (thousands or decimals)', () => {
    expect(integer('1.000')).toBe('is ambiguous (write it without a separator)');
    expect(integer('1,500')).toBe('is ambiguous (write it without a separator)');
  });

  it('refuses what is not a number', () => {
    expect(integer('abc')).toBe('is not a number');
    expect(integer('12 seats')).toBe('is not a number');
    expect(integer('1e3')).toBe('is not a number');
  });

  it('refuses numbers beyond safe integers', () => {
    expect(integer('9007199254740992')).toBe('is too large');
    expect(integer('9007199254740991')).toBe(9007199254740991);
  });
});
