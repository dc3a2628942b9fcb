import type { ColumnDefinitionInput } from '../../models/customerColumns';

/**
 * One calculated column of the customers table (a `customer_related_metric_definition`): its
 * formula over variables, computed for every customer by a job on the server.
 */

export type RecalculationStatus = 'in_progress' | 'finished';

export interface ColumnVariable {
  fetcher: 'BookedTotalContractValue' | 'Mrr';
  name: string;
  start_month: number;
  start_year: number;
  end_month: number;
  end_year: number;
}

/** A column definition as GET/POST/PUT /customer_related_metric_definitions answer it. */
export interface ColumnDefinition {
  id: string;
  name: string;
  formula: string;
  variables: ColumnVariable[];
  recalculation_status: RecalculationStatus;
  created_at: string;
  updated_at: string;
}

/** A CustomerColumnsChannel message: a column's recalculation started or ended. */
export interface ColumnStatusUpdate {
  id: string;
  recalculation_status: RecalculationStatus;
}

/**
 * Why a save failed: the server refused the values (400/422, its messages listed in the
 * drawer) or something else went wrong (a generic message with a support contact).
 */
export type ColumnSaveFailure = { kind: 'invalid'; messages: string[] } | { kind: 'failed' };

/** What the machine tells the page (provided `notify`): close the drawer, read the table again, toast. */
export type ColumnNotice =
  | { kind: 'saved'; definition: ColumnDefinition }
  | { kind: 'finished'; definitionId: string }
  | { kind: 'deleted'; definitionId: string }
  | { kind: 'deleteFailed' };

export interface ColumnRecalculationInput {
  /** The saved column, or null for a new one (the 'Create column' drawer). */
  definition: ColumnDefinition | null;
}

export interface ColumnRecalculationContext {
  definition: ColumnDefinition | null;
  /** Status polls made in this recalculation (capped at the schedule's length). */
  polls: number;
  /** The last save's failure, while the drawer shows it. */
  failure: ColumnSaveFailure | null;
  /** What the save in flight (or the last failed one) sends. */
  request: ColumnDefinitionInput | null;
}

/** Events from the drawers and from the page's CustomerColumnsChannel subscription. */
export type ColumnRecalculationEvent =
  /** 'Create column' / 'Save' in the drawer: POST (a new column) or PUT (a saved one). */
  | { type: 'column.save'; input: ColumnDefinitionInput }
  /** The drawer was closed after a failed save. */
  | { type: 'column.dismiss' }
  /** Delete in 'Edit columns': asks for confirmation. */
  | { type: 'column.deleteAsked' }
  | { type: 'column.deleteConfirmed' }
  | { type: 'column.deleteCancelled' }
  /** A CustomerColumnsChannel message (any column's: the machine picks its own). */
  | { type: 'columnsChannel.update'; update: ColumnStatusUpdate };

export type ColumnRecalculationEventType = ColumnRecalculationEvent['type'];
