import { CSV_IMPORT_MAX_POLLS } from '../../models/constants';

/** Whether `polls` polls have used up the limit (1000): polling then gives up. */
export function isPollLimitReached(polls: number, maxPolls: number = CSV_IMPORT_MAX_POLLS): boolean {
  return polls >= maxPolls;
}
