import type { IntegrationProvider } from '../types';

/** Fakturownia (stub: being built). */
export const fakturowniaProvider: IntegrationProvider = {
  name: 'fakturownia',
  configurable: true,
  connect: 'dialog',
  parseConfig: () => [{ pointer: '/body', detail: 'not built yet' }],
  verify: () => Promise.reject(new Error('not built yet')),
  sync: () => Promise.reject(new Error('not built yet')),
};
