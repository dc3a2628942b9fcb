/** The section export's texts: the spec's, verbatim (second document, section 8). */

/** The export has started (5 s). */
export const EXPORT_STARTED_MESSAGE = 'Your export is in progress. We will notify you once completed';
/** The export could not start, or it failed on the server (30 s). */
export const EXPORT_START_FAILURE_MESSAGE = 'We could not start your export, please try again later';
/** The export-complete notification (no timeout), with its Download action. */
export const EXPORT_READY_MESSAGE = 'Your export is ready';
