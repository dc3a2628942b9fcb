import type { IntegrationProvider } from '../types';

/** Chargebee (stub: being built). */
export const chargebeeProvider: IntegrationProvider = {
  name: 'chargebee',
  configurable: true,
  connect: 'dialog',
  parseConfig: () => [{ pointer: '/body', detail: 'not built yet' }],
  verify: () => Promise.reject(new Error('not built yet')),
  sync: () => Promise.reject(new Error('not built yet')),
};
