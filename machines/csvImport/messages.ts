import { CSV_FILE_EXTENSION } from '../../models/constants';

/** The dialog's texts. The first four are the spec's, verbatim (typos included). */

/** Any error but a 400 (and a failed import). */
export const CSV_IMPORT_ERROR_MESSAGE = 'We are sorry, something went wrong';
/** Polling went over its limit without the import finishing. */
export const CSV_IMPORT_POLLING_LIMIT_MESSAGE = 'Failed to get status of import, please get in touch';
/** The failure toast. */
export const CSV_IMPORT_FAILURE_TOAST = 'There were a problem with you import';
/** Only .csv files are imported (the server refuses others with the same words). */
export const CSV_ONLY_MESSAGE = `Only ${CSV_FILE_EXTENSION} files can be imported`;

/** Above the rows a refused upload (400) lists. */
export const CSV_IMPORT_VALIDATION_FAILURE_TITLE = 'Some rows of the file cannot be imported';

/** The import notice (30 s) once the upload is accepted. */
export const CSV_IMPORT_STARTED_NOTICE =
  'Your import has started. It can take a few minutes: you can close this dialog and we will let you know when it is done.';

/** The import notice (30 s) of an import that finished without failed rows. */
export function csvImportCompletedNotice(successCount: number): string {
  return `Your import is complete: ${successCount} ${successCount === 1 ? 'row' : 'rows'} imported`;
}
