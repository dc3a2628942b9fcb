import { seedTarget } from './snapshotRead';

/**
 * The seeding half of `measureSnapshotRead`, in its own process: it generates and writes the
 * account, reports over IPC and exits, so the reading process starts like a server would.
 */
const request = JSON.parse(process.argv[2] ?? '{}') as Parameters<typeof seedTarget>[0];
const send = (message: unknown) => new Promise<void>((resolve, reject) => process.send!(message, undefined, {}, (error) => (error ? reject(error) : resolve())));
const result = await seedTarget(request, (line) => void send({ kind: 'log', line }));
await send({ kind: 'seeded', ...result });
process.disconnect();
