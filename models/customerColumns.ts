import { COLUMN_YEAR_FIRST, COLUMN_YEAR_LAST } from './constants';

/**
 * Calculated customer columns (second spec document, sections 3, 4 and 5): a column is a
 * formula over named variables, each a fetcher of one number per customer over a month range.
 * The same rules on the client (the 'Create column' drawer and its preview) and the server
 * (POST/PUT /customer_related_metric_definitions and the job that computes the values).
 *
 * This file holds the shapes, messages, limits and normalization; the formula parser and the
 * validation that needs it are in models/customerFormula.ts, kept apart so that only the code
 * that reads formulas loads mathjs (the server imports it when a column is saved or computed).
 */

export const COLUMN_FETCHERS = ['BookedTotalContractValue', 'Mrr'] as const;
export type ColumnFetcher = (typeof COLUMN_FETCHERS)[number];

export interface ColumnVariableInput {
  fetcher: ColumnFetcher | null;
  name: string;
  start_month: number | null;
  start_year: number | null;
  end_month: number | null;
  end_year: number | null;
}

export interface ColumnDefinitionInput {
  name: string;
  formula: string;
  variables: ColumnVariableInput[];
}

// ---------------------------------------------------------------------------------------
// Messages (second document, section 5, verbatim), and the few the spec does not word.

export const COLUMN_NAME_REQUIRED_MESSAGE = 'Column name is required';
export const START_MONTH_REQUIRED_MESSAGE = 'Starting month must be set';
export const END_MONTH_REQUIRED_MESSAGE = 'Ending month must be set';
export const START_YEAR_REQUIRED_MESSAGE = 'Starting year must be set';
export const END_YEAR_REQUIRED_MESSAGE = 'Ending year must be set';
export const FETCHER_REQUIRED_MESSAGE = 'Calculation is required';
export const FROM_AFTER_TO_MESSAGE = 'From date can not be ahead of the To date';
export const FORMULA_REQUIRED_MESSAGE = 'Formula is required when using more than one variable';
/** Not worded by the spec. */
export const VARIABLES_REQUIRED_MESSAGE = 'Add at least one variable';
export const VARIABLE_NAME_REQUIRED_MESSAGE = 'Variable name is required';
export const VARIABLE_NAME_INVALID_MESSAGE = 'A variable name starts with a letter and holds only letters, digits and _';
export const VARIABLE_NAME_TAKEN_MESSAGE = 'Another variable has this name';
export const VARIABLE_NAME_RESERVED_MESSAGE = 'This name is taken by a function of formulas';
export const FORMULA_DIVIDES_BY_ZERO_MESSAGE = 'The formula divides by zero';
export const FORMULA_SYNTAX_MESSAGE = 'The formula is not valid';
export const unknownVariableMessage = (name: string) => `Unknown variable: ${name}`;
export const unknownFunctionMessage = (name: string) => `Unknown function: ${name} (allowed: ${FORMULA_FUNCTION_NAMES.join(', ')})`;
export const disallowedOperatorMessage = (op: string) => `The operator ${op} is not allowed (allowed: + - * / ^ and parentheses)`;

/** Longest column name and formula, and most variables, a definition may have. */
export const COLUMN_NAME_MAX_LENGTH = 200;
export const COLUMN_FORMULA_MAX_LENGTH = 1000;
export const COLUMN_VARIABLES_MAX = 10;
export const COLUMN_VARIABLE_NAME_MAX_LENGTH = 50;

export const VARIABLE_NAME = /^[A-Za-z][A-Za-z0-9_]*$/;
/** Words mathjs reads as operators or constants: a variable of such a name could not be written in a formula. */
export const RESERVED_WORDS = new Set(['mod', 'to', 'in', 'and', 'or', 'xor', 'not', 'true', 'false', 'null', 'undefined', 'end']);

/** The functions a formula may call. */
export const FORMULA_FUNCTION_NAMES = ['min', 'max', 'abs', 'round'] as const;

// ---------------------------------------------------------------------------------------

/** Single variable → formula = its name; Mrr → end = start. Names trimmed. */
export function normalizeColumnDefinition(input: ColumnDefinitionInput): ColumnDefinitionInput {
  const variables = input.variables.map((variable) => {
    const name = variable.name.trim();
    return variable.fetcher === 'Mrr' ? { ...variable, name, end_month: variable.start_month, end_year: variable.start_year } : { ...variable, name };
  });
  const only = variables.length === 1 ? variables[0] : undefined;
  return { name: input.name.trim(), formula: only ? only.name : input.formula.trim(), variables };
}

export const isMonth = (value: number | null): value is number => value !== null && Number.isInteger(value) && value >= 1 && value <= 12;
export const isYear = (value: number | null): value is number => value !== null && Number.isInteger(value) && value >= COLUMN_YEAR_FIRST && value <= COLUMN_YEAR_LAST;
