import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const INPUT_DIRS = ['src', 'models', 'machines', 'public'];
const INPUT_FILES = ['index.html', 'vite.config.ts', 'postcss.config.cjs', 'package-lock.json', 'tsconfig.json'];
const STAMP = '.build-hash';

function* filesUnder(dir: string): Generator<string> {
  if (!existsSync(dir)) return;
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* filesUnder(full);
    else if (entry.isFile()) yield full;
  }
}

/** A hash of every input of the SPA build, by content (a fresh clone has new mtimes). */
export function spaInputHash(root: string): string {
  const hash = createHash('sha256');
  const files = [...INPUT_FILES.map((f) => path.join(root, f)), ...INPUT_DIRS.flatMap((d) => [...filesUnder(path.join(root, d))])];
  for (const file of files) {
    if (!existsSync(file) || !statSync(file).isFile()) continue;
    hash.update(path.relative(root, file)).update('\0').update(readFileSync(file)).update('\0');
  }
  return hash.digest('hex');
}

/**
 * Builds the SPA into `dist/` when it is missing or older than its sources, so
 * `npm install && npm start` works on a fresh clone and after a `git pull`.
 */
export function ensureSpaBuild(root: string, log: (message: string) => void): string {
  const outDir = path.join(root, 'dist');
  const expected = spaInputHash(root);
  const stampFile = path.join(outDir, STAMP);
  const current = existsSync(stampFile) ? readFileSync(stampFile, 'utf8').trim() : undefined;
  if (current === expected && existsSync(path.join(outDir, 'index.html'))) return outDir;

  log(current ? 'The web app changed since its last build; rebuilding…' : 'Building the web app (first start)…');
  const started = Date.now();
  const result = spawnSync(process.execPath, [path.join(root, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn'], {
    cwd: root,
    stdio: 'inherit',
    // The shipped app is always a production build, whatever NODE_ENV the server runs under.
    env: { ...process.env, NODE_ENV: 'production' },
  });
  if (result.status !== 0) throw new Error(`The web app build failed (exit ${String(result.status)})`);
  writeFileSync(stampFile, expected + '\n');
  log(`Web app built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return outDir;
}
