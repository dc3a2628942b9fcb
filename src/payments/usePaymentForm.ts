import { useForm } from '@mantine/form';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useMemo } from 'react';
import { paymentFormStruct, todayIso } from '../../models/payments';
import type { PaymentFormValues } from '../../models/payments';
import { useApi } from '../api/ApiContext';
import { superstructResolver } from '../forms/superstructResolver';
import { toastError } from '../notifications/toast';
import { paymentFormErrorsOfRefusal } from './paymentFormErrors';
import { createPaymentServices, invalidateAfterPaymentChange, PaymentWriteError } from './paymentsApi';
import type { PaymentForm } from './PaymentFields';

/**
 * The payment form (@mantine/form) checked by the model's struct, the same rules and words the
 * server uses: a new payment's start date must be in the window around today, an edit's may be
 * any day. Fields are checked as the user types and leaves them.
 */
export function usePaymentForm(initialValues: PaymentFormValues, isNew: boolean): PaymentForm {
  const validate = useMemo(() => superstructResolver(paymentFormStruct({ today: todayIso(), isNew })), [isNew]);
  return useForm<PaymentFormValues>({ initialValues, validate, validateInputOnBlur: true, validateInputOnChange: true });
}

/** The payment calls over the app's API client. */
export function usePaymentServices() {
  const client = useApi();
  return useMemo(() => createPaymentServices(client), [client]);
}

/**
 * A payment write (create, edit, attribute values, delete): on success every answer it moves is
 * read again (payments, customers, reports); on a refusal (400/422) the messages land on the
 * form's fields (`onRefused`) and the rest are returned; on any other failure the danger toast.
 * The form keeps what the user typed either way.
 */
export function usePaymentWrite<Input, Output>(call: (input: Input) => Promise<Output>, failure: string) {
  const queryClient = useQueryClient();
  const mutation = useMutation({
    mutationFn: call,
    onSuccess: () => {
      void invalidateAfterPaymentChange(queryClient);
    },
  });
  const run = async (input: Input, form?: PaymentForm): Promise<{ ok: true; output: Output } | { ok: false; other: string[] }> => {
    try {
      return { ok: true, output: await mutation.mutateAsync(input) };
    } catch (error) {
      if (error instanceof PaymentWriteError && (error.status === 400 || error.status === 422) && error.errors.length > 0) {
        const { fields, other } = paymentFormErrorsOfRefusal(error.errors);
        if (form) form.setErrors(fields);
        else other.unshift(...Object.values(fields));
        return { ok: false, other };
      }
      toastError(failure);
      return { ok: false, other: [] };
    }
  };
  return { run, pending: mutation.isPending };
}
