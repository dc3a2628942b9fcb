/**
 * Rules about customers shared by the client and the server: how an import names the column
 * that identifies each customer.
 */

/**
 * The attribute values import needs one column mapped to Customer ID (spec, segments import);
 * the import page checks it before finalizing and the server answers a mapping without one
 * with the same words.
 */
export const CUSTOMER_COLUMN_REQUIRED_MESSAGE = 'One of the columns must be mapped to Customer ID';
