import { create, parseDependencies, type FactoryFunctionMap, type MathNode } from 'mathjs';
import {
  COLUMN_FETCHERS,
  COLUMN_FORMULA_MAX_LENGTH,
  COLUMN_NAME_MAX_LENGTH,
  COLUMN_NAME_REQUIRED_MESSAGE,
  COLUMN_VARIABLE_NAME_MAX_LENGTH,
  COLUMN_VARIABLES_MAX,
  END_MONTH_REQUIRED_MESSAGE,
  END_YEAR_REQUIRED_MESSAGE,
  FETCHER_REQUIRED_MESSAGE,
  FORMULA_DIVIDES_BY_ZERO_MESSAGE,
  FORMULA_FUNCTION_NAMES,
  FORMULA_REQUIRED_MESSAGE,
  FORMULA_SYNTAX_MESSAGE,
  FROM_AFTER_TO_MESSAGE,
  RESERVED_WORDS,
  START_MONTH_REQUIRED_MESSAGE,
  START_YEAR_REQUIRED_MESSAGE,
  VARIABLE_NAME,
  VARIABLE_NAME_INVALID_MESSAGE,
  VARIABLE_NAME_REQUIRED_MESSAGE,
  VARIABLE_NAME_RESERVED_MESSAGE,
  VARIABLE_NAME_TAKEN_MESSAGE,
  VARIABLES_REQUIRED_MESSAGE,
  disallowedOperatorMessage,
  isMonth,
  isYear,
  normalizeColumnDefinition,
  unknownFunctionMessage,
  unknownVariableMessage,
  type ColumnDefinitionInput,
} from './customerColumns';

/**
 * Calculated column formulas (second spec document, section 5), the same on the client (the
 * 'Create column' drawer's validation and preview) and the server (POST/PUT
 * /customer_related_metric_definitions and the job that computes the values).
 *
 * Formulas are parsed with mathjs and then walked node by node: only numbers, the declared
 * variables, + - * / ^, unary minus and plus, parentheses and a few functions are allowed, and
 * the allowed tree is turned into plain closures. Nothing is ever handed to `eval`, and
 * mathjs's own evaluator (which knows matrices, units, assignments, ...) is not used.
 */

type NumberFunction = (...args: number[]) => number;
const FUNCTIONS: Readonly<Record<string, { arity: [number, number]; fn: NumberFunction }>> = {
  min: { arity: [1, Infinity], fn: Math.min },
  max: { arity: [1, Infinity], fn: Math.max },
  abs: { arity: [1, 1], fn: Math.abs },
  // round(x) to a whole number, round(x, n) to n decimals (n a whole number 0-15).
  round: {
    arity: [1, 2],
    fn: (x: number, n = 0) => {
      if (!Number.isInteger(n) || n < 0 || n > 15) return NaN;
      const scale = 10 ** n;
      return Math.round(x * scale) / scale;
    },
  },
};

const BINARY: Readonly<Record<string, (a: number, b: number) => number>> = {
  add: (a, b) => a + b,
  subtract: (a, b) => a - b,
  multiply: (a, b) => a * b,
  divide: (a, b) => a / b,
  pow: (a, b) => a ** b,
};

/** A mathjs holding only its parser (the client bundle takes no more of mathjs than that). */
// mathjs types its dependency maps as possibly undefined; this one is always defined.
const math = create({ parseDependencies: parseDependencies as FactoryFunctionMap });

/**
 * The first problem of each field, keyed 'name', 'formula', 'variables', 'variables.0.fetcher',
 * 'variables.0.name', 'variables.0.start_month', ... (the spec's messages); {} when valid. Reads
 * the input as `normalizeColumnDefinition` leaves it (it normalizes first).
 */
export function columnDefinitionErrors(input: ColumnDefinitionInput): Record<string, string> {
  const definition = normalizeColumnDefinition(input);
  const errors: Record<string, string> = {};
  const add = (key: string, message: string) => {
    errors[key] ??= message;
  };
  if (!definition.name) add('name', COLUMN_NAME_REQUIRED_MESSAGE);
  else if (definition.name.length > COLUMN_NAME_MAX_LENGTH) add('name', `Column name is too long (at most ${COLUMN_NAME_MAX_LENGTH} characters)`);
  if (definition.variables.length === 0) add('variables', VARIABLES_REQUIRED_MESSAGE);
  if (definition.variables.length > COLUMN_VARIABLES_MAX) add('variables', `At most ${COLUMN_VARIABLES_MAX} variables`);

  const seen = new Set<string>();
  definition.variables.forEach((variable, i) => {
    const at = (field: string) => `variables.${i}.${field}`;
    if (variable.fetcher === null || !(COLUMN_FETCHERS as readonly string[]).includes(variable.fetcher)) add(at('fetcher'), FETCHER_REQUIRED_MESSAGE);
    if (!variable.name) add(at('name'), VARIABLE_NAME_REQUIRED_MESSAGE);
    else if (!VARIABLE_NAME.test(variable.name) || variable.name.length > COLUMN_VARIABLE_NAME_MAX_LENGTH) add(at('name'), VARIABLE_NAME_INVALID_MESSAGE);
    else if (RESERVED_WORDS.has(variable.name) || Object.hasOwn(FUNCTIONS, variable.name)) add(at('name'), VARIABLE_NAME_RESERVED_MESSAGE);
    else if (seen.has(variable.name)) add(at('name'), VARIABLE_NAME_TAKEN_MESSAGE);
    seen.add(variable.name);
    if (!isMonth(variable.start_month)) add(at('start_month'), START_MONTH_REQUIRED_MESSAGE);
    if (!isYear(variable.start_year)) add(at('start_year'), START_YEAR_REQUIRED_MESSAGE);
    // An Mrr variable's To is its From: only the From is asked for.
    if (variable.fetcher !== 'Mrr' && !isMonth(variable.end_month)) add(at('end_month'), END_MONTH_REQUIRED_MESSAGE);
    if (variable.fetcher !== 'Mrr' && !isYear(variable.end_year)) add(at('end_year'), END_YEAR_REQUIRED_MESSAGE);
    if (isMonth(variable.start_month) && isYear(variable.start_year) && isMonth(variable.end_month) && isYear(variable.end_year)) {
      if (variable.start_year * 12 + variable.start_month > variable.end_year * 12 + variable.end_month) add(at('start_month'), FROM_AFTER_TO_MESSAGE);
    }
  });

  if (definition.variables.length > 1 && !definition.formula) add('formula', FORMULA_REQUIRED_MESSAGE);
  else if (definition.formula.length > COLUMN_FORMULA_MAX_LENGTH) add('formula', `The formula is too long (at most ${COLUMN_FORMULA_MAX_LENGTH} characters)`);
  else if (definition.formula && definition.variables.every((variable) => VARIABLE_NAME.test(variable.name))) {
    const compiled = compileFormula(definition.formula, definition.variables.map((variable) => variable.name));
    if (!compiled.ok) add('formula', compiled.message);
  }
  return errors;
}

// ---------------------------------------------------------------------------------------
// Formulas

type Values = Readonly<Record<string, number>>;
type Compiled = (values: Values) => number;

class FormulaError extends Error {}

export type CompiledFormula = { ok: true; evaluate(values: Values): number | null } | { ok: false; message: string };

/**
 * Parses with mathjs (never eval); unknown variables, disallowed functions or operators,
 * syntax errors and a division by a constant zero → {ok: false, message}. `evaluate` answers
 * null for a non-finite result (a division by zero for that customer) or a missing variable.
 */
export function compileFormula(formula: string, variableNames: readonly string[]): CompiledFormula {
  const text = formula.trim();
  if (!text) return { ok: false, message: FORMULA_SYNTAX_MESSAGE };
  if (text.length > COLUMN_FORMULA_MAX_LENGTH) return { ok: false, message: `The formula is too long (at most ${COLUMN_FORMULA_MAX_LENGTH} characters)` };
  let root: MathNode;
  try {
    root = math.parse(text);
  } catch (error) {
    const detail = error instanceof Error ? error.message : '';
    return { ok: false, message: detail ? `${FORMULA_SYNTAX_MESSAGE}: ${detail}` : FORMULA_SYNTAX_MESSAGE };
  }
  const names = new Set(variableNames);
  try {
    const compiled = compileNode(root, names);
    return {
      ok: true,
      evaluate(values) {
        const result = compiled(values);
        return Number.isFinite(result) ? result : null;
      },
    };
  } catch (error) {
    if (error instanceof FormulaError) return { ok: false, message: error.message };
    throw error;
  }
}

/** The node as a closure; throws FormulaError for anything outside the allowed language. */
function compileNode(node: MathNode, names: ReadonlySet<string>, depth = 0): Compiled {
  if (depth > 100) throw new FormulaError('The formula is nested too deeply');
  const next = (child: MathNode) => compileNode(child, names, depth + 1);
  switch (node.type) {
    case 'ConstantNode': {
      const value = (node as unknown as { value: unknown }).value;
      if (typeof value !== 'number' || !Number.isFinite(value)) throw new FormulaError(typeof value === 'number' ? `Not a finite number: ${String(value)}` : 'Only numbers and variables may appear in a formula');
      return () => value;
    }
    case 'SymbolNode': {
      const { name } = node as unknown as { name: string };
      if (!names.has(name)) throw new FormulaError(unknownVariableMessage(name));
      return (values) => {
        const value = values[name];
        return typeof value === 'number' ? value : NaN;
      };
    }
    case 'ParenthesisNode':
      return next((node as unknown as { content: MathNode }).content);
    case 'OperatorNode': {
      const { fn, op, args } = node as unknown as { fn: string; op: string; args: MathNode[] };
      if (args.length === 1 && (fn === 'unaryMinus' || fn === 'unaryPlus')) {
        const operand = next(args[0] as MathNode);
        return fn === 'unaryMinus' ? (values) => -operand(values) : operand;
      }
      const binary = BINARY[fn];
      if (!binary || args.length !== 2) throw new FormulaError(disallowedOperatorMessage(op));
      const left = next(args[0] as MathNode);
      const rightNode = args[1] as MathNode;
      const right = next(rightNode);
      if (fn === 'divide' && isConstant(rightNode) && right({}) === 0) throw new FormulaError(FORMULA_DIVIDES_BY_ZERO_MESSAGE);
      return (values) => binary(left(values), right(values));
    }
    case 'FunctionNode': {
      const { fn, args } = node as unknown as { fn: MathNode; args: MathNode[] };
      const name = fn.type === 'SymbolNode' ? (fn as unknown as { name: string }).name : null;
      const known = name !== null && Object.hasOwn(FUNCTIONS, name) ? FUNCTIONS[name] : undefined;
      if (!known || name === null) throw new FormulaError(unknownFunctionMessage(name ?? fn.toString()));
      const [least, most] = known.arity;
      if (args.length < least || args.length > most) throw new FormulaError(`${name}() takes ${least === most ? least : `${least} or more`} argument${most === 1 ? '' : 's'}`);
      const compiled = args.map(next);
      return (values) => known.fn(...compiled.map((arg) => arg(values)));
    }
    default:
      throw new FormulaError(`${FORMULA_SYNTAX_MESSAGE}: only numbers, variables, + - * / ^, parentheses and ${FORMULA_FUNCTION_NAMES.join(', ')} are allowed`);
  }
}

/** Whether the subtree holds no variable (its value is known when the formula is saved). */
function isConstant(node: MathNode): boolean {
  let constant = true;
  node.traverse((child, path) => {
    // A function's name is a SymbolNode at the path 'fn': not a variable.
    if (child.type === 'SymbolNode' && path !== 'fn') constant = false;
  });
  return constant;
}
