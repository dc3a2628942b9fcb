/** The spec's messages of the reports list and the library, verbatim. */
export const REPORTS_FETCH_FAILURE_MESSAGE = 'Uh :( we failed to fetch your reports';
export const REPORT_REMOVE_FAILURE_MESSAGE = 'Something went wrong and we could not remove report';
export const REPORT_ADD_FAILURE_MESSAGE = 'Something went wrong and we could not add new report';

/** Ours (the spec has no message for it): the library still offers the blank report. */
export const TEMPLATES_FETCH_FAILURE_MESSAGE = 'We could not fetch report templates';
