import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * `npm run dev`: the API server in watch mode on API_PORT (3001) and Vite's dev server with
 * hot reload (5173), which proxies /api, /graphql and /cable to it. Ctrl+C stops both.
 */
const root = path.resolve(fileURLToPath(new URL('..', import.meta.url)));
const apiPort = process.env.API_PORT ?? '3001';
const children = [
  spawn(path.join(root, 'node_modules/.bin/tsx'), ['watch', '--clear-screen=false', 'server/main.ts'], {
    cwd: root,
    stdio: 'inherit',
    // E-mailed links (password reset, invitations) must open the SPA on Vite's port, not the API's.
    env: { PUBLIC_URL: 'http://localhost:5173', SUBSCOPE_DEV_OUTBOX: 'true', ...process.env, PORT: apiPort, SKIP_SPA_BUILD: 'true' },
  }),
  spawn(process.execPath, [path.join(root, 'node_modules/vite/bin/vite.js')], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, API_PORT: apiPort },
  }),
];
const stop = () => children.forEach((child) => child.kill('SIGTERM'));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
for (const child of children) child.on('exit', (code) => {
  stop();
  process.exitCode = code ?? 0;
});
