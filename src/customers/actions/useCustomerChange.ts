import { useMutation, useQueryClient } from '@tanstack/react-query';
import { toastError, toastSuccess } from '../../notifications/toast';
import { forgetCustomer, invalidateCustomerQueries } from '../customerQueries';

export interface CustomerChangeOptions<Input, Output> {
  /** The call. */
  call: (input: Input) => Promise<Output>;
  /** The danger toast of a failure (the spec's message of the action). */
  failure: string | ((error: unknown) => string);
  /** Customers that no longer exist afterwards (a deleted one, a merge's source). */
  gone?: (input: Input) => readonly string[];
  /** Called after the success toast (close a drawer, the dialog). */
  onDone?: (output: Output, input: Input) => void;
}

/**
 * A change to customers as the drawer's actions make it: the call, then the success toast and
 * every customer answer read again (the numbers changed); on failure the action's danger toast,
 * and the caller's form keeps what was typed (`run` answers false).
 */
export function useCustomerChange<Input, Output>({ call, failure, gone, onDone }: CustomerChangeOptions<Input, Output>) {
  const queryClient = useQueryClient();
  const mutation = useMutation({
    mutationFn: call,
    onSuccess: (output, input) => {
      for (const id of gone?.(input) ?? []) forgetCustomer(queryClient, id);
      toastSuccess();
      void invalidateCustomerQueries(queryClient);
      onDone?.(output, input);
    },
    onError: (error) => {
      toastError(typeof failure === 'function' ? failure(error) : failure);
    },
  });
  const run = async (input: Input): Promise<boolean> => {
    try {
      await mutation.mutateAsync(input);
      return true;
    } catch {
      return false;
    }
  };
  return { run, pending: mutation.isPending };
}
