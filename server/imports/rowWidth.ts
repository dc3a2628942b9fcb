/**
 * Rows with more cells than the file's first row (its header, or its first data row when it has
 * none). Spreadsheets export every row with as many cells as the header; a row with more has,
 * most likely, a value holding the delimiter without quotes ('Acme, Inc', '1,234.50' in a comma
 * file), which shifts its later cells into other columns: read as mapped, it would import wrong
 * values. Such a row is refused with its row number. Extra cells that are all blank (a trailing
 * delimiter) are not a reason.
 */

/** Follows "Row N has M columns, ": why that is refused. */
export function extraCellsReason(width: number, header: boolean, delimiter: string): string {
  const name = delimiter === '\t' ? 'a tab' : `'${delimiter}'`;
  return `more than the ${width} of the ${header ? 'header row' : 'first row'} (a value with ${name} in it must be in quotes)`;
}

/** The refusal of row `number` when it has more cells than `width` and the extra ones are not all blank; else null. */
export function extraCellsMessage(number: number, cells: readonly string[], width: number, header: boolean, delimiter: string): string | null {
  if (cells.length <= width) return null;
  for (let k = width; k < cells.length; k++) {
    if ((cells[k] as string).trim() !== '') return `Row ${number} has ${cells.length} columns, ${extraCellsReason(width, header, delimiter)}`;
  }
  return null;
}
