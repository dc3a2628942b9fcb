import { orderedAlphanumeric } from '../../models/random';

/**
 * The id of a customer the server makes (one added by hand or from a payment form, one a sync or
 * an invoice rule brings): 'cus' and 13 letters or digits that rise with the time it was made
 * (orderedAlphanumeric), so customers written in bulk land on the right edge of the primary key.
 * Customers of a CSV import keep the ids their file gives.
 */
export const newCustomerId = (): string => `cus${orderedAlphanumeric(13)}`;
