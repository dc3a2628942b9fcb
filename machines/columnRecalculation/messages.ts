import { HELP_EMAIL } from '../../models/constants';

/** The column drawers' texts (second spec document, sections 4 and 8). */

/** A calculated column's header while its values are computed (spec: 'Calculating:' with a spinner). */
export const CALCULATING_LABEL = 'Calculating:';
/** A save failure that is not a 400/422: a generic message with a support contact (spec). */
export const COLUMN_SAVE_FAILURE_MESSAGE = `We could not save this column. Please try again or contact us at ${HELP_EMAIL}.`;
/** The delete-column failure (the spec does not give its text). */
export const COLUMN_DELETE_FAILURE_MESSAGE = 'We could not delete this column, please try again.';
