/** Drill-down: the section details dialog and its provider (mounted by the report page). */
export { SectionDetailsProvider, useSectionPointClick } from './SectionDetailsProvider';
export type { SectionDetailsProviderProps } from './SectionDetailsProvider';
export { SectionDetailsDialog, detailsTitle } from './SectionDetailsDialog';
export { createDetailsServices, DETAILS_FETCH_FAILURE } from './detailsApi';
export type { SectionDetails, DetailsServices } from './detailsApi';
export { ReportDetails, detailsAllowed } from './ReportDetails';
