import { removeDataDir, startServer } from './server';

/** One server for the whole run, on a fresh data directory; torn down gracefully at the end. */
export default async function globalSetup(): Promise<() => Promise<void>> {
  const server = await startServer();
  process.env.E2E_BASE_URL = server.url;
  return async () => {
    const code = await server.stop('SIGTERM');
    removeDataDir(server.dataDir);
    if (code !== 0) throw new Error(`the server did not stop cleanly (exit ${String(code)}):\n${server.output()}`);
  };
}
