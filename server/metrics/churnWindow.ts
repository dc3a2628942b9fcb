import type { MrrPieces } from './pieceColumns';

/**
 * The churn window (METRICS.md section 2): a gap in a unit's paid coverage no longer than the
 * window is bridged, and the unit keeps the MRR it had before the gap; a longer gap is churn
 * dated at the end of the paid period (no delay).
 *
 * Bridging extends every piece that was paying on the last day before the gap (the pieces
 * ending where coverage ends) up to the first day of the next coverage. So the MRR kept
 * through the gap is exactly the MRR before it, with its products, currencies and exchange
 * rules, whatever period ends fall inside the gap.
 *
 * A gap still open today (no later payment yet) is bridged up to today while it is not yet
 * longer than the window, because a renewal may still arrive; once it is longer, the unit has
 * churned at the end of its paid period, and reports measured after that show it.
 *
 * Pieces must be grouped by unit and sorted by start within a unit. Ends are changed in place;
 * returns the number of gaps bridged (an open gap counts).
 */
export function bridgeCoverageGaps(pieces: MrrPieces, windowDays: number, today: number): number {
  if (!(windowDays > 0)) return 0;
  const { start, end, unitStart } = pieces;
  const enders: number[] = [];
  let bridged = 0;
  for (let unit = 0; unit + 1 < unitStart.length; unit++) {
    const first = unitStart[unit] as number;
    const last = unitStart[unit + 1] as number;
    if (first === last) continue;
    enders.length = 0;
    enders.push(first);
    let coverageEnd = end[first] as number;
    for (let i = first + 1; i < last; i++) {
      const pieceStart = start[i] as number;
      if (pieceStart > coverageEnd && pieceStart - coverageEnd <= windowDays) {
        for (const e of enders) end[e] = pieceStart;
        coverageEnd = pieceStart;
        bridged++;
      }
      const pieceEnd = end[i] as number;
      if (pieceEnd > coverageEnd) {
        coverageEnd = pieceEnd;
        enders.length = 0;
        enders.push(i);
      } else if (pieceEnd === coverageEnd) {
        enders.push(i);
      }
    }
    if (coverageEnd <= today && today - coverageEnd + 1 <= windowDays) {
      for (const e of enders) end[e] = today + 1;
      bridged++;
    }
  }
  return bridged;
}
