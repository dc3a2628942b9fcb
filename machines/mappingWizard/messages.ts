import { CSV_FILE_EXTENSION } from '../../models/constants';

/**
 * The messages every mapping import shows. Quoted ones are the spec's, verbatim; the others fill
 * gaps the spec leaves ('text not shown'). Each import's mapping rule is in its config
 * (paymentsImport.ts, segmentsImport.ts).
 */

/** The file picked is not a .csv (the server refuses it with the same words). */
export const ONLY_CSV_MESSAGE = `Only ${CSV_FILE_EXTENSION} files can be imported`;
/** 'Upload' with no file picked. */
export const NO_FILE_MESSAGE = `Choose a ${CSV_FILE_EXTENSION} file to upload`;
/** Spec: the upload failed without a reason from the server. */
export const UPLOAD_FAILURE_MESSAGE = 'Something went wrong with uploading csv file';
/** Spec (CSV import, other errors): finalizing failed without a reason, or the import failed without one. */
export const IMPORT_FAILURE_MESSAGE = 'We are sorry, something went wrong';
/** Spec: polling over its limit. */
export const STATUS_LIMIT_MESSAGE = 'Failed to get status of import, please get in touch';
/** A status check failed; polling goes on (spec: an alert, text not shown). */
export const STATUS_CHECK_FAILURE_MESSAGE = 'We could not check the status of your import. Trying again shortly.';
