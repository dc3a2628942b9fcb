import { createContext, useContext } from 'react';
import type { ReactNode } from 'react';
import { api } from './client';
import type { ApiClient } from './client';

const ApiContext = createContext<ApiClient>(api);

/** Gives pages the API client: the app's one client, or a test's client over a fake transport. */
export function ApiProvider({ client, children }: { client: ApiClient; children: ReactNode }) {
  return <ApiContext value={client}>{children}</ApiContext>;
}

export function useApi(): ApiClient {
  return useContext(ApiContext);
}
