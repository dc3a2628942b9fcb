import { IconTemplate } from '@tabler/icons-react';
import { ComingSoon } from '../components/ComingSoon';

export function ReportLibraryPage() {
  return (
    <ComingSoon
      title="Create new report"
      icon={IconTemplate}
      description="Start from a blank report or from one of the report templates, each a ready set of chart sections."
    />
  );
}
