import { IconTableImport } from '@tabler/icons-react';
import { ComingSoon } from '../components/ComingSoon';

export function ImportSubscriptionsPage() {
  return (
    <ComingSoon
      title="Import payments"
      icon={IconTableImport}
      description="Upload a CSV of payments, map its columns, preview the rows and import them in one go."
    />
  );
}
