import type { paths } from '../../api/schema';

/** A report as GET /business_reports/latest lists it. */
export type ReportListItem =
  paths['/business_reports/latest']['get']['responses'][200]['content']['application/json']['items'][number];

/** A template of the report library, as GET /business_report/templates answers it. */
export type ReportTemplate =
  paths['/business_report/templates']['get']['responses'][200]['content']['application/json']['items'][number];
