import { skipToken, useQuery } from '@tanstack/react-query';
import { createContext, useCallback, useContext, useMemo, useRef, useState } from 'react';
import type { ReactNode } from 'react';
import { useLocation } from 'wouter';
import { useApi } from '../../api/ApiContext';
import { apiKey } from '../../api/queries';
import { CustomerDrawer } from '../../customers/CustomerDrawer';
import { explorePath, type ExploreRouteState } from '../../customers/explore/exploreApi';
import type { CustomerServices } from '../../customers/customersApi';
import type { ReportSection, SectionPointInfo } from '../charts/sectionModel';
import type { FilterItem } from '../../../models/reportFilter';
import { createDetailsServices, detailsKey } from './detailsApi';
import type { DetailsServices } from './detailsApi';
import { detailsTitle, SectionDetailsDialog } from './SectionDetailsDialog';
import type { DetailsState } from './SectionDetailsDialog';

type PointClick = (point: SectionPointInfo) => void;

const SectionDetailsContext = createContext<PointClick | null>(null);

/**
 * What a section's chart calls when a point is clicked: opens its details. Null outside a
 * `SectionDetailsProvider` (shared and demo reports, other accounts' users): no details then.
 */
export function useSectionPointClick(): PointClick | undefined {
  return useContext(SectionDetailsContext) ?? undefined;
}

export interface SectionDetailsProviderProps {
  /** The report's sections (a clicked point names its section by id). */
  sections: readonly ReportSection[];
  /** The currency the report is shown in (the customer drawer's amounts are in it too). */
  currency?: string;
  /** The filter the charts are shown with (the picker's): the details list the filtered rows. */
  filter?: FilterItem | null;
  children: ReactNode;
  /** The calls (a test passes its own); default over the app's API client. */
  services?: DetailsServices;
  customerServices?: CustomerServices;
}

/**
 * Drill-down for a report page: the section details dialog opened from a chart's point, and
 * the customer details drawer opened from a customer in it. Mount it only where details are
 * allowed (a signed-in user of the report's account on the normal report page).
 */
export function SectionDetailsProvider({ sections, currency, filter = null, children, services: given, customerServices }: SectionDetailsProviderProps) {
  const client = useApi();
  const services = useMemo(() => given ?? createDetailsServices(client), [given, client]);
  const sectionsRef = useRef(sections);
  sectionsRef.current = sections;
  const [target, setTarget] = useState<{ section: ReportSection; point: SectionPointInfo } | null>(null);
  const [customerId, setCustomerId] = useState<string | null>(null);
  const [location, navigate] = useLocation();

  // Stable: the charts are memoised and must not redraw when the report changes around them.
  const open = useCallback<PointClick>((point) => {
    const section = sectionsRef.current.find((candidate) => candidate.id === point.sectionId);
    if (!section) return;
    setTarget({ section, point });
  }, []);

  const point = target?.point;
  const query = useQuery({
    // A closed dialog asks nothing.
    queryKey: point ? detailsKey(point, filter) : apiKey('/business_report/sections/{id}/details'),
    queryFn: point ? ({ signal }) => services.details(point, undefined, signal, filter) : skipToken,
  });
  const state: DetailsState = query.data ? { status: 'ready', details: query.data } : query.isError && !query.isFetching ? { status: 'failed' } : { status: 'loading' };

  // Explore: the point's customers on their own page, with the dialog's title and the way back.
  const handleExplore = () => {
    if (!target) return;
    const { point: clicked, section } = target;
    const state: ExploreRouteState = { title: detailsTitle(section, clicked), returnTo: location };
    navigate(explorePath({ sectionId: clicked.sectionId, segmentId: clicked.segmentId || 'total', date: clicked.time, ...(clicked.segmentValue !== undefined ? { segmentValue: clicked.segmentValue } : {}) }), { state });
  };

  return (
    <SectionDetailsContext value={open}>
      {children}
      <SectionDetailsDialog target={target} state={state} onClose={() => setTarget(null)} onOpenCustomer={setCustomerId} onExplore={handleExplore} />
      <CustomerDrawer customerId={customerId} onClose={() => setCustomerId(null)} {...(currency ? { currency } : {})} {...(customerServices ? { services: customerServices } : {})} />
    </SectionDetailsContext>
  );
}
