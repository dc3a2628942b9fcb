import { PaymentsView } from '../payments/PaymentsView';

/** Serves /payments and /subscriptions: the same payments table. */
export function PaymentsPage() {
  return <PaymentsView />;
}
