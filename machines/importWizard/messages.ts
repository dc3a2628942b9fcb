import { SUBSCRIPTION_CSV_REQUIRED_FIELDS } from '../../models/constants';

/**
 * The import page's messages. Quoted ones are the spec's, verbatim (its typos and lowercase
 * included); the others fill gaps the spec leaves ('text not shown').
 */

/** The file picked is not a .csv (the server refuses it with the same words). */
export const ONLY_CSV_MESSAGE = 'Only .csv files can be imported';
/** 'Upload' with no file picked. */
export const NO_FILE_MESSAGE = 'Choose a .csv file to upload';
/** Spec: the upload failed without a reason from the server. */
export const UPLOAD_FAILURE_MESSAGE = 'Something went wrong with uploading csv file';
/** Spec: the subscription import mapping rule (the server answers 422 with the same words). */
export const MAPPING_INCOMPLETE_MESSAGE = `Subscription import requires mapping of ${SUBSCRIPTION_CSV_REQUIRED_FIELDS.join(', ')}`;
/** Spec (CSV import, other errors): finalizing failed without a reason, or the import failed without one. */
export const IMPORT_FAILURE_MESSAGE = 'We are sorry, something went wrong';
/** Spec: polling over its limit. */
export const STATUS_LIMIT_MESSAGE = 'Failed to get status of import, please get in touch';
/** A status check failed; polling goes on (spec: an alert, text not shown). */
export const STATUS_CHECK_FAILURE_MESSAGE = 'We could not check the status of your import. Trying again shortly.';

/** Spec: the result of an import without refused rows, 'all N records imported'. */
export function allRecordsImportedMessage(successCount: number): string {
  return `all ${successCount} records imported`;
}
