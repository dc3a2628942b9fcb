import { IconChartDots3 } from '@tabler/icons-react';
import { ComingSoon } from '../components/ComingSoon';

export function ExplorePage() {
  return (
    <ComingSoon
      title="Explore customers"
      icon={IconChartDots3}
      description="A scatter chart of the customers behind a data point, by months as a customer and MRR growth."
    />
  );
}
