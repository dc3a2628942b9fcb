import { IconUsers } from '@tabler/icons-react';
import { ComingSoon } from '../components/ComingSoon';

/** Serves /customers and /customers/:customerId (the table with a customer's details open). */
export function CustomersPage() {
  return (
    <ComingSoon
      title="Customers"
      icon={IconUsers}
      description="Search, sort and page through your customers, choose the table's columns and open any customer's details."
    />
  );
}
