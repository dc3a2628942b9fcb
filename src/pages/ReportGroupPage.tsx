import { IconLink } from '@tabler/icons-react';
import { ComingSoon } from '../components/ComingSoon';

export function ReportGroupPage() {
  return (
    <ComingSoon
      title="Latest report"
      icon={IconLink}
      description="A group link always opens the latest report of its group."
    />
  );
}
