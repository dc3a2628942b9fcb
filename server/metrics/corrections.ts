import type { CorrectionsHandling } from '../db/schema';
import { DAY_NEVER_AFTER, DAY_NEVER_BEFORE } from './days';
import type { RecordColumns } from './snapshot/columns';

/**
 * Which payment versions count, and on which measurement days (METRICS.md section 6,
 * docs/data-model.md "Payment versions"):
 * - change_original: the current row of every payment that is not deleted, on every day;
 * - when_occurred: every version that is not a deletion, on the days it was in force: from
 *   the day it was recorded until the day the next version was recorded. The lowest version
 *   counts as in force since always (history imported today describes the past too), so a
 *   period that ended before a correction keeps the version current at its end, and the
 *   difference shows as a movement in the period of the correction.
 *
 * A version is in force on the measurement day t when from <= t < to; since MRR at t needs
 * coverage (start <= t < end) too, a version simply contributes on
 * [max(start, from), min(end, to)).
 */
export interface VersionWindow {
  from: number;
  to: number;
}

/** The measurement days on which record r counts; `to <= from` when it never does. */
export function versionWindow(records: RecordColumns, r: number, handling: CorrectionsHandling, out: VersionWindow): VersionWindow {
  if (records.deleted[r] === 1 || (handling === 'change_original' && records.current[r] !== 1)) {
    out.from = 0;
    out.to = 0;
  } else if (handling === 'change_original') {
    out.from = DAY_NEVER_BEFORE;
    out.to = DAY_NEVER_AFTER;
  } else {
    out.from = records.validFromDay[r] as number;
    out.to = records.validToDay[r] as number;
  }
  return out;
}
