import { sql, type RawBuilder } from 'kysely';

/**
 * `unnest($1::type[], $2::type[], …)`: many rows sent as one array parameter per column, which
 * PostgreSQL turns back into rows (`insert … select * from unnest(…)`). A statement then takes any
 * number of rows with as many parameters as it has columns. The types are the code's own
 * constants, never input.
 */
export function unnestColumns(columns: readonly (readonly [values: readonly unknown[], pgType: string])[]): RawBuilder<unknown> {
  return sql`unnest(${sql.join(columns.map(([values, pgType]) => sql`${values}::${sql.raw(pgType)}[]`))})`;
}
