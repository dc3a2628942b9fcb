import type { ReactNode } from 'react';
import type { FilterItem } from '../../../models/reportFilter';
import { FULL_ACCESS_PERMISSION_LEVEL } from '../../../models/constants';
import { useSession } from '../../session/SessionContext';
import type { ReportSection } from '../charts/sectionModel';
import { SectionDetailsProvider } from './SectionDetailsProvider';

/** Whether this viewer may open a report's details: a signed-in full user of its account, not on the demo (spec: details access). */
export function detailsAllowed(user: { account_id: string; permission_level: string } | null, reportAccountId: string, demo: boolean): boolean {
  return !demo && user !== null && user.account_id === reportAccountId && user.permission_level === FULL_ACCESS_PERMISSION_LEVEL;
}

/**
 * The report page's sections with drill-down where it is allowed (the details provider), as
 * they are otherwise: their charts then take no clicks.
 */
export function ReportDetails({
  report,
  demo = false,
  filter = null,
  children,
}: {
  report: { account_id: string; currency: string; sections: readonly ReportSection[] };
  demo?: boolean;
  /** The picker's filter the sections are shown with: the details list its rows. */
  filter?: FilterItem | null;
  children: ReactNode;
}) {
  const { user } = useSession();
  if (!detailsAllowed(user, report.account_id, demo)) return children;
  return (
    <SectionDetailsProvider sections={report.sections} currency={report.currency} filter={filter}>
      {children}
    </SectionDetailsProvider>
  );
}
