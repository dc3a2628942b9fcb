import { describe, expect, it } from 'vitest';
import {
  COLUMN_NAME_REQUIRED_MESSAGE,
  END_MONTH_REQUIRED_MESSAGE,
  END_YEAR_REQUIRED_MESSAGE,
  FETCHER_REQUIRED_MESSAGE,
  FORMULA_DIVIDES_BY_ZERO_MESSAGE,
  FORMULA_REQUIRED_MESSAGE,
  FROM_AFTER_TO_MESSAGE,
  normalizeColumnDefinition,
  START_MONTH_REQUIRED_MESSAGE,
  START_YEAR_REQUIRED_MESSAGE,
  VARIABLE_NAME_TAKEN_MESSAGE,
  type ColumnDefinitionInput,
  type ColumnVariableInput,
} from '../../models/customerColumns';
import { columnDefinitionErrors, compileFormula } from '../../models/customerFormula';

const tcv: ColumnVariableInput = { fetcher: 'BookedTotalContractValue', name: 'tcv', start_month: 1, start_year: 2025, end_month: 12, end_year: 2025 };
const mrr: ColumnVariableInput = { fetcher: 'Mrr', name: 'mrr', start_month: 12, start_year: 2025, end_month: null, end_year: null };
const blank: ColumnVariableInput = { fetcher: null, name: 'v', start_month: null, start_year: null, end_month: null, end_year: null };
const definition = (patch: Partial<ColumnDefinitionInput> = {}): ColumnDefinitionInput => ({ name: 'Ratio', formula: 'tcv / mrr', variables: [tcv, mrr], ...patch });

describe('the spec’s messages (second document, section 5), verbatim', () => {
  it('words each one as the spec does', () => {
    expect([
      COLUMN_NAME_REQUIRED_MESSAGE,
      START_MONTH_REQUIRED_MESSAGE,
      END_MONTH_REQUIRED_MESSAGE,
      START_YEAR_REQUIRED_MESSAGE,
      END_YEAR_REQUIRED_MESSAGE,
      FETCHER_REQUIRED_MESSAGE,
      FROM_AFTER_TO_MESSAGE,
      FORMULA_REQUIRED_MESSAGE,
    ]).toEqual([
      'Column name is required',
      'Starting month must be set',
      'Ending month must be set',
      'Starting year must be set',
      'Ending year must be set',
      'Calculation is required',
      'From date can not be ahead of the To date',
      'Formula is required when using more than one variable',
    ]);
  });
});

describe('normalizeColumnDefinition', () => {
  it('makes a single variable’s name the formula', () => {
    expect(normalizeColumnDefinition(definition({ formula: 'anything', variables: [{ ...tcv, name: ' bookings ' }] }))).toMatchObject({ formula: 'bookings', variables: [{ name: 'bookings' }] });
  });

  it('sets an Mrr variable’s To to its From, and trims the name and formula', () => {
    const normalized = normalizeColumnDefinition(definition({ name: '  Ratio ', formula: ' tcv / mrr ', variables: [tcv, { ...mrr, end_month: 1, end_year: 2019 }] }));
    expect(normalized).toEqual({ name: 'Ratio', formula: 'tcv / mrr', variables: [tcv, { ...mrr, end_month: 12, end_year: 2025 }] });
  });
});

describe('columnDefinitionErrors', () => {
  it('is empty for a valid definition', () => {
    expect(columnDefinitionErrors(definition())).toEqual({});
  });

  it('names every missing field of a variable, keyed by its path', () => {
    expect(columnDefinitionErrors(definition({ name: ' ', formula: 'v', variables: [blank] }))).toEqual({
      name: COLUMN_NAME_REQUIRED_MESSAGE,
      'variables.0.fetcher': FETCHER_REQUIRED_MESSAGE,
      'variables.0.start_month': START_MONTH_REQUIRED_MESSAGE,
      'variables.0.start_year': START_YEAR_REQUIRED_MESSAGE,
      'variables.0.end_month': END_MONTH_REQUIRED_MESSAGE,
      'variables.0.end_year': END_YEAR_REQUIRED_MESSAGE,
    });
  });

  it('asks an Mrr variable for its From only (To follows it)', () => {
    expect(columnDefinitionErrors(definition({ variables: [tcv, { ...mrr, start_year: null }] }))).toEqual({ 'variables.1.start_year': START_YEAR_REQUIRED_MESSAGE });
  });

  it('refuses From after To', () => {
    expect(columnDefinitionErrors(definition({ variables: [{ ...tcv, start_month: 2, end_month: 1, end_year: 2025 }, mrr] }))).toEqual({ 'variables.0.start_month': FROM_AFTER_TO_MESSAGE });
    expect(columnDefinitionErrors(definition({ variables: [{ ...tcv, start_month: 5, end_month: 5 }, mrr] }))).toEqual({});
  });

  it('needs a formula with more than one variable', () => {
    expect(columnDefinitionErrors(definition({ formula: '  ' }))).toEqual({ formula: FORMULA_REQUIRED_MESSAGE });
  });

  it('checks the formula against the variables', () => {
    expect(columnDefinitionErrors(definition({ formula: 'tcv / x' }))).toEqual({ formula: 'Unknown variable: x' });
    expect(columnDefinitionErrors(definition({ formula: 'tcv / 0' }))).toEqual({ formula: FORMULA_DIVIDES_BY_ZERO_MESSAGE });
  });

  it('refuses two variables of one name', () => {
    expect(columnDefinitionErrors(definition({ formula: 'tcv', variables: [tcv, { ...mrr, name: 'tcv' }] }))).toEqual({ 'variables.1.name': VARIABLE_NAME_TAKEN_MESSAGE });
  });
});

describe('compileFormula', () => {
  const evaluate = (formula: string, values: Record<string, number>) => {
    const compiled = compileFormula(formula, Object.keys(values));
    if (!compiled.ok) throw new Error(compiled.message);
    return compiled.evaluate(values);
  };
  const message = (formula: string, names: readonly string[] = ['a', 'b']) => {
    const compiled = compileFormula(formula, names);
    return compiled.ok ? null : compiled.message;
  };

  it('follows the usual precedence: ^ before unary minus before * and / before + and -', () => {
    expect(evaluate('a + b * 2', { a: 1, b: 3 })).toBe(7);
    expect(evaluate('(a + b) * 2', { a: 1, b: 3 })).toBe(8);
    expect(evaluate('a - b - 1', { a: 10, b: 3 })).toBe(6);
    expect(evaluate('a / b / 2', { a: 12, b: 3 })).toBe(2);
    expect(evaluate('-a ^ 2', { a: 3 })).toBe(-9);
    expect(evaluate('a ^ b ^ 2', { a: 2, b: 3 })).toBe(512);
    expect(evaluate('2a + 1', { a: 3 })).toBe(7);
  });

  it('knows min, max, abs and round', () => {
    expect(evaluate('max(a, b) - min(a, b)', { a: 4, b: 9 })).toBe(5);
    expect(evaluate('abs(a - b)', { a: 4, b: 9 })).toBe(5);
    expect(evaluate('round(a / b)', { a: 10, b: 4 })).toBe(3);
    expect(evaluate('round(a / b, 2)', { a: 10, b: 3 })).toBe(3.33);
  });

  it('answers null for a result that is not finite (a division by zero for one customer)', () => {
    expect(evaluate('a / b', { a: 1, b: 0 })).toBeNull();
    expect(evaluate('a / b', { a: 0, b: 0 })).toBeNull();
    expect(evaluate('a ^ b', { a: -8, b: 0.5 })).toBeNull();
  });

  it('refuses a division by a constant zero', () => {
    expect(message('a / 0')).toBe(FORMULA_DIVIDES_BY_ZERO_MESSAGE);
    expect(message('a / (2 - 2)')).toBe(FORMULA_DIVIDES_BY_ZERO_MESSAGE);
    expect(message('a / (b - b)')).toBeNull();
  });

  it('refuses unknown variables, other functions, other operators and syntax errors', () => {
    expect(message('a + x')).toBe('Unknown variable: x');
    expect(message('pi * a')).toBe('Unknown variable: pi');
    expect(message('sqrt(a)')).toMatch(/^Unknown function: sqrt/);
    expect(message('a % b')).toMatch(/operator % is not allowed/);
    expect(message('a == b')).toMatch(/operator == is not allowed/);
    expect(message('a.b')).toMatch(/^The formula is not valid/);
    expect(message('a ? 1 : 2')).toMatch(/^The formula is not valid/);
    expect(message('f(x) = 2')).toMatch(/^The formula is not valid/);
    expect(message('"text"')).toMatch(/Only numbers and variables/);
    expect(message('a +')).toMatch(/^The formula is not valid/);
    expect(message('')).toMatch(/^The formula is not valid/);
  });

  it('never runs code: what looks like JavaScript is only a formula or an error', () => {
    expect(message('constructor')).toBe('Unknown variable: constructor');
    expect(message('a.constructor("return 1")()')).toMatch(/^The formula is not valid/);
    expect(message('import("fs")')).not.toBeNull();
  });
});
