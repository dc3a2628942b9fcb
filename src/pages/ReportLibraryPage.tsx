import { PageHeader } from '../components/PageHeader';
import { ReportLibrary } from '../reports/list/ReportLibrary';

/** /reports/library: create a report, blank or from a template of chart sections. */
export function ReportLibraryPage() {
  return (
    <>
      <PageHeader
        title="Create new report"
        description="Start from a blank report or from one of the report templates, each a ready set of chart sections."
      />
      <ReportLibrary />
    </>
  );
}
