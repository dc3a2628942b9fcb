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

// ---------------------------------------------------------------------------------------
// The customer drawer's and customers page's messages (spec, first document 5 and 8).

/** A customer's name is required (the drawer's name edit, POST /customers, PUT /customers/{id}). */
export const CUSTOMER_NAME_REQUIRED_MESSAGE = 'This field is required';
/** Merge and assign-parent need a selected customer. */
export const SELECT_CUSTOMER_MESSAGE = 'Please select a customer';
export const MERGE_FAILURE_MESSAGE = 'We could not perform merge, please try again or contact us.';
export const ASSIGN_PARENT_FAILURE_MESSAGE = 'We could not assign parent, please try again or contact us.';
export const REMOVE_CUSTOMER_FAILURE_MESSAGE = 'Something went wrong and we could not remove customer';
export const CREATE_CUSTOMER_FAILURE_MESSAGE = 'We could not create new customer. Please try again.';
export const SEGMENT_VALUE_UPDATE_FAILURE_MESSAGE = 'Sorry, could not update the segments value. Please try again.';
export const SEGMENT_SUGGESTIONS_FAILURE_MESSAGE = (segment: string) => `We could not get segment suggestions for ${segment}`;
/** The customers table's load failure empties the table and says so (spec: a customer list failure empties the table). */
export const CUSTOMER_LIST_FAILURE_MESSAGE = 'We could not fetch your customers';
