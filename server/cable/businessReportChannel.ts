import { reportBySecret, reportView } from '../reports/reports';
import { reportStream, type ReportEvent } from '../reports/recalculations';
import { idParam, type CableChannel } from './channels';

export const BUSINESS_REPORT_CHANNEL = 'BusinessReportChannel';

/**
 * `BusinessReportChannel` with params `{channel: 'BusinessReportChannel', secret: <report secret>}`:
 * the report's updates as its recalculation goes (server/reports/recalculations.ts
 * `ReportEvent`): its state (`object: 'business_report'`) and each recomputed section
 * (`object: 'business_report_section'`). For the users of the report's account; anything else
 * is rejected. The report's current state is sent right after the confirmation, so a client
 * that (re)subscribes learns what it missed.
 */
export const businessReportChannel: CableChannel = {
  name: BUSINESS_REPORT_CHANNEL,
  async authorize({ db, auth, params }) {
    const secret = idParam(params, 'secret');
    if (!secret) return null;
    const found = await reportBySecret(db, secret);
    if (!found || found.account_id !== auth.accountId) return null;
    return {
      streams: [reportStream(found.account_id, found.id)],
      current: async (): Promise<ReportEvent | null> => {
        const view = await reportView(db, found.account_id, found.id);
        return view
          ? { object: 'business_report', id: view.id, recalculation_status: view.recalculation_status, freshness_status: view.freshness_status, refreshed_at: view.refreshed_at }
          : null;
      },
    };
  },
};
