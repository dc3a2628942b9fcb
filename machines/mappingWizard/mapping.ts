import type { ColumnMapping, FieldRolesConfig } from './types';

/**
 * The pure rules of a column mapping, whatever its roles: the empty and default mappings,
 * mapping a column, the required roles left unmapped.
 */

/** A mapping with nothing mapped. */
export function emptyMapping(config: FieldRolesConfig): ColumnMapping {
  return Object.fromEntries(config.roles.map((role) => [role, null]));
}

/** Each role on its default column when the file has that column (others stay unmapped). */
export function mappingOnDefaultColumns<Role extends string>(
  defaults: Readonly<Record<Role, number>>,
  columns: number,
): ColumnMapping<Role> {
  const entries = (Object.keys(defaults) as Role[]).map((role) => [role, defaults[role] < columns ? defaults[role] : null]);
  return Object.fromEntries(entries) as ColumnMapping<Role>;
}

/** The role a column plays, or null. */
export function roleOfColumn(config: FieldRolesConfig, mapping: ColumnMapping, column: number): string | null {
  return config.roles.find((role) => mapping[role] === column) ?? null;
}

export function isRole(config: FieldRolesConfig, value: string | null): value is string {
  return value !== null && config.roles.includes(value);
}

/**
 * Gives a column a role (null: the column is not mapped). The role leaves the column it was on,
 * and the column's previous role is unmapped: a column never plays two roles.
 */
export function mapColumn(config: FieldRolesConfig, mapping: ColumnMapping, column: number, role: string | null): ColumnMapping {
  const next = { ...mapping };
  for (const other of config.roles) {
    if (next[other] === column) next[other] = null;
  }
  if (role !== null && isRole(config, role)) next[role] = column;
  return next;
}

/** The required roles no column plays yet, in the config's order. */
export function unmappedRequiredRoles(config: FieldRolesConfig, mapping: ColumnMapping): string[] {
  return config.required.filter((role) => mapping[role] === null || mapping[role] === undefined);
}

export function isRequiredRole(config: FieldRolesConfig, role: string): boolean {
  return config.required.includes(role);
}

/** The mapping can be sent: the import's rule has nothing against it. */
export function isMappingComplete(config: FieldRolesConfig, mapping: ColumnMapping): boolean {
  return config.mappingProblem(mapping) === null;
}
