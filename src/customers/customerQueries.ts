import type { QueryClient } from '@tanstack/react-query';

/**
 * Whether a cached answer is about customers: its key's path starts with '/customer' (the
 * table, the search, a customer, its timeline and metrics, its segment values, explore).
 */
export function isCustomerQueryKey(queryKey: readonly unknown[]): boolean {
  const path = queryKey[0];
  return typeof path === 'string' && path.startsWith('/customer');
}

/**
 * Reads every cached customer answer again: after a change to a customer (merge, parent,
 * exclusion, delete, name, attribute value) or a live event that changes customers' numbers.
 */
export function invalidateCustomerQueries(queryClient: QueryClient): Promise<void> {
  return queryClient.invalidateQueries({ predicate: (query) => isCustomerQueryKey(query.queryKey) });
}

/**
 * Forgets what is cached about a customer that is gone (deleted, or merged into another), so
 * nothing asks for it again (its answers would be 404s).
 */
export function forgetCustomer(queryClient: QueryClient, customerId: string): void {
  queryClient.removeQueries({
    predicate: (query) => {
      const params = query.queryKey[1] as { id?: unknown; customerId?: unknown } | undefined;
      return isCustomerQueryKey(query.queryKey) && (params?.id === customerId || params?.customerId === customerId);
    },
  });
}
