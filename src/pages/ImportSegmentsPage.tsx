import { IconTags } from '@tabler/icons-react';
import { ComingSoon } from '../components/ComingSoon';

export function ImportSegmentsPage() {
  return (
    <ComingSoon
      title="Import attribute values"
      icon={IconTags}
      description="Upload a CSV, map one column to Customer ID and another to a custom attribute, and import the values."
    />
  );
}
