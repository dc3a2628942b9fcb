import { IconReceiptOff } from '@tabler/icons-react';
import { ComingSoon } from '../components/ComingSoon';

export function InvoicesPage() {
  return (
    <ComingSoon
      title="Rejected invoices"
      icon={IconReceiptOff}
      description="Invoice lines an import could not read, with rules that teach Subscope to import them next time."
    />
  );
}
