import { IconChartHistogram } from '@tabler/icons-react';
import { useParams } from 'wouter';
import { ComingSoon } from '../components/ComingSoon';

/** /reports/:secret/new-section adds a chart section; with /:sectionId it edits one's calculation. */
export function SectionEditorPage() {
  const { sectionId } = useParams();
  return sectionId ? (
    <ComingSoon
      title="Edit section calculation"
      icon={IconChartHistogram}
      description="Change the series, groups and filters that this chart section calculates."
    />
  ) : (
    <ComingSoon
      title="Add a chart section"
      icon={IconChartHistogram}
      description="Define a custom chart section from series, groups and filters over your customers and payments."
    />
  );
}
