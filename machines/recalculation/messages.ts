/** The recalculation's texts: the spec's, verbatim. */

/** The toast of a failed POST /business_reports/{id}/refresh (danger, 10 s). */
export const REFRESH_FAILURE_MESSAGE = 'Something went wrong and we could not refresh the report';
