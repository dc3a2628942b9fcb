import type { IntegrationProvider } from '../types';

/** Stripe (stub: being built). */
export const stripeProvider: IntegrationProvider = {
  name: 'stripe',
  configurable: false,
  connect: 'oauth',
  parseConfig: () => [{ pointer: '/body', detail: 'not built yet' }],
  verify: () => Promise.reject(new Error('not built yet')),
  sync: () => Promise.reject(new Error('not built yet')),
};
