import { CSV_IMPORT_PREVIEW_TTL_MS } from '../../models/constants';

/**
 * What an import tells its client when the file cannot be imported at all (an upload's 4xx, or
 * a failed import's `result.error`). The spec's toast for a failed import is the client's own
 * ('There were a problem with you import'); these say why.
 */

/** '200 MB', '1 GB' (binary units, as the limits are set). */
export function sizeText(bytes: number): string {
  const gb = 1024 * 1024 * 1024;
  if (bytes >= gb && bytes % gb === 0) return `${bytes / gb} GB`;
  return `${Math.round(bytes / (1024 * 1024))} MB`;
}

/** The message of a file over the upload limit (200 MB unless the app was built with another). */
export const fileTooLarge = (limitBytes: number) => `The file is larger than ${Math.round(limitBytes / (1024 * 1024))} MB`;
export const ONLY_CSV = 'Only .csv files can be imported';
export const NO_FILE = 'Attach the CSV file';
export const EMPTY_FILE = 'The file has no rows';
/** A file of one row that is its header (or whose only row the mapping skips). */
export const NO_DATA_ROWS = 'The file has no rows to import: it has only a header row';
export const NUL_IN_FILE_NAME = 'The file name must not contain NUL characters (\\u0000)';
export const NUL_IN_FIELD = 'Form fields must not contain NUL characters (\\u0000)';
export const MULTIPART_NO_BOUNDARY = 'The multipart/form-data body has no boundary: its Content-Type header must name one';
export const MULTIPART_TRUNCATED = 'The upload ended before the end of its multipart/form-data body: send the file again';
export const MULTIPART_MALFORMED = 'The upload is not a well-formed multipart/form-data body';

const previewHours = Math.round(CSV_IMPORT_PREVIEW_TTL_MS / (60 * 60 * 1000));

/** The bytes of uploads an account has not imported yet would pass `limitBytes`. */
export const pendingUploadsTooLarge = (limitBytes: number) =>
  `Uploads not yet imported would take more than ${sizeText(limitBytes)} for this account: finish the imports waiting for their mapping, or wait until they expire (after ${previewHours} hours)`;

/** An upload left waiting for its mapping past CSV_IMPORT_PREVIEW_TTL_MS. */
export const UPLOAD_EXPIRED = `The upload expired: its columns were not mapped within ${previewHours} hours. Upload the file again`;

/** Whether a failed import's result says it expired waiting for its mapping. */
export function expired(result: unknown): boolean {
  return (result as { error?: unknown } | null)?.error === UPLOAD_EXPIRED;
}
