import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { copyBootedPGliteDataDir } from '../../tests/server/helpers/database';

export interface RunningServer {
  url: string;
  dataDir: string;
  process: ChildProcess;
  output: () => string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

const root = path.resolve(import.meta.dirname, '../..');

/**
 * The command of `npm start` (or of another node script, `npm run worker`), run without npm in
 * between: npm exits at once on SIGTERM and leaves the server orphaned, so signals would not
 * reach the process under test. Leading `NAME=value` words are its environment
 * (`${NAME:-default}` takes NAME from ours when set).
 */
export function npmStartCommand(script: 'start' | 'worker' = 'start'): { args: string[]; env: Record<string, string> } {
  const scripts = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  const words = (scripts[script] ?? '').split(/\s+/);
  const env: Record<string, string> = {};
  for (let assignment = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(words[0] ?? ''); assignment; assignment = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(words[0] ?? '')) {
    const [, name, value] = assignment as unknown as [string, string, string];
    const fallback = /^\$\{([A-Z_][A-Z0-9_]*):-(.*)\}$/.exec(value);
    env[name] = fallback ? (process.env[fallback[1] as string] ?? (fallback[2] as string)) : value;
    words.shift();
  }
  const [command, ...args] = words;
  if (command !== 'node') throw new Error(`npm run ${script} is expected to run node, got '${scripts[script] ?? ''}'`);
  return { args, env };
}

/**
 * Starts the product as `npm start` does, on a free port. Resolves once the
 * server prints its URL; rejects with the server's output if it exits or takes too long.
 * Without a `dataDir` it makes a fresh one, holding the embedded cluster a first boot leaves
 * before the demo seed (migrated, the shipped rates loaded: tests/server/helpers/database.ts),
 * which spares every such start initdb and the rate load. A given `dataDir` is used as it is
 * (tests/server/process.test.ts gives an empty one: a new installation's first start).
 */
export async function startServer(options: { dataDir?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<RunningServer> {
  let dataDir = options.dataDir;
  if (!dataDir) {
    dataDir = mkdtempSync(path.join(tmpdir(), 'subscope-e2e-'));
    if (!options.env?.DATABASE_URL) await copyBootedPGliteDataDir(dataDir);
  }
  const start = npmStartCommand();
  const child = spawn(process.execPath, start.args, {
    cwd: root,
    env: {
      ...process.env,
      ...start.env,
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      DATABASE_URL: '',
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      ECB_FEED_URL: 'off',
      SUBSCOPE_TEST_ROUTES: 'true',
      SUBSCOPE_DEV_OUTBOX: 'true',
      RATE_LIMIT_SCALE: '100',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: false,
  });
  let log = '';
  child.stdout?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));

  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start in time:\n${log}`)), options.timeoutMs ?? 120_000);
    const onData = () => {
      const match = /Subscope is running at (http:\/\/\S+)/.exec(log);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${String(code)}:\n${log}`));
    });
  });

  return {
    url,
    dataDir,
    process: child,
    output: () => log,
    stop: (signal = 'SIGTERM') =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve(child.exitCode);
        child.once('exit', (code) => resolve(code));
        child.kill(signal);
      }),
  };
}

export function removeDataDir(dataDir: string): void {
  rmSync(dataDir, { recursive: true, force: true });
}
