import { IconRocket } from '@tabler/icons-react';
import { ComingSoon } from '../components/ComingSoon';

export function GettingStartedPage() {
  return (
    <ComingSoon
      title="Getting started"
      icon={IconRocket}
      description="Intro videos, a demo report, connecting your data, creating your first report and setting up segmentation."
    />
  );
}
