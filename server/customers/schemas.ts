import { Type } from '@fastify/type-provider-typebox';

/** Request pieces the customer routes share: every string bounded, none with a NUL character (PostgreSQL text cannot hold one). */
export const NO_NUL = '^[^\\u0000]*$';
export const Text = (maxLength: number, options: { minLength?: number; description?: string } = {}) => Type.String({ maxLength, pattern: NO_NUL, ...options });
export const CUSTOMER_ID_MAX = 200;
export const CustomerId = (description?: string) => Text(CUSTOMER_ID_MAX, { minLength: 1, ...(description ? { description } : {}) });
export const NAME_MAX = 500;
export const VALUE_MAX = 500;
export const IdParams = Type.Object({ id: CustomerId() });
