import { useLocation, useParams } from 'wouter';
import { CustomersView } from '../customers/table/CustomersView';

/** Serves /customers and /customers/:customerId (the table with a customer's details open). */
export function CustomersPage() {
  const { customerId } = useParams<{ customerId?: string }>();
  const [, navigate] = useLocation();
  return <CustomersView customerId={customerId ?? null} onOpenCustomer={(id) => navigate(`/customers/${encodeURIComponent(id)}`)} onCloseCustomer={() => navigate('/customers')} />;
}
