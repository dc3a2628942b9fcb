import type { ReportFilter } from '../filters';
import type { MrrPieces } from '../pieceColumns';
import { resolveMetricsSettings, type ReportSettingsInput } from '../settings';
import { ITEM_FREEMIUM } from '../snapshot/rows';
import { type AccountSnapshot } from '../snapshot/columns';
import { buildLinePieces } from './linePieces';

/**
 * Freemium coverage: the days a freemium item of a payment version in force covers, per
 * counted unit, after the report filter. A unit is a free customer at a period end it is
 * covered on while its MRR is 0 there.
 */
export type FreemiumPieces = MrrPieces;

export function buildFreemiumPieces(snapshot: AccountSnapshot, options: { settings: ReportSettingsInput; useHierarchy: boolean; filter: ReportFilter | null }): FreemiumPieces {
  const settings = resolveMetricsSettings(snapshot.account, options.settings);
  return buildLinePieces(snapshot, {
    useHierarchy: options.useHierarchy,
    filter: options.filter,
    handling: settings.correctionsHandling,
    keep: (type) => type === ITEM_FREEMIUM,
    span: 'coverage',
  });
}
