import { IconCreditCard } from '@tabler/icons-react';
import { ComingSoon } from '../components/ComingSoon';

/** Serves /payments and /subscriptions: the same payments table. */
export function PaymentsPage() {
  return (
    <ComingSoon
      title="Payments"
      icon={IconCreditCard}
      description="Search your subscription payments by customer or invoice and add new ones by hand."
    />
  );
}
