import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { npmStartCommand } from '../../e2e/support/server';

/**
 * The product's server for `npm run bench:report`, started as `npm start` starts it (the same
 * command and environment, so the SPA build is checked and redone when stale, the demo account
 * is seeded into the empty database, job workers run), in a process of its own on a free port.
 */
export interface BenchServer {
  base: string;
  pid: number;
  /** The process's CPU time so far (user + system), in ms, from /proc (Linux). */
  cpuMs: () => number;
  /** Its peak resident memory (VmHWM), MB. */
  peakRssMb: () => number;
  /** Everything it printed on stdout. */
  output: () => string;
  stop: () => Promise<void>;
}

const ROOT = path.resolve(import.meta.dirname, '../..');

export async function startBenchServer(storage: { DATABASE_URL: string; DATA_DIR: string } | { DATA_DIR: string }, log: (line: string) => void): Promise<BenchServer> {
  const start = npmStartCommand();
  const child = spawn(process.execPath, start.args, {
    cwd: ROOT,
    env: {
      ...process.env,
      ...start.env,
      DATABASE_URL: '',
      ...storage,
      PORT: '0',
      HOST: '127.0.0.1',
      ECB_FEED_URL: 'off',
      LOG_LEVEL: 'warn',
      JWT_SECRET: randomBytes(32).toString('hex'),
    },
    // The SPA build (when stale) writes through the server's stdout/stderr: ours.
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  const base = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (data: Buffer) => {
      const text = data.toString();
      out += text;
      for (const line of text.split('\n')) if (line.trim()) log(`  server: ${line.trim()}`);
      const found = /running at (http:\/\/localhost:\d+)/.exec(out);
      if (found) resolve((found[1] as string).replace('localhost', '127.0.0.1'));
    });
    child.once('exit', (code) => reject(new Error(`the server exited (${String(code)}) before it listened: ${out}`)));
  });
  child.stdout?.removeAllListeners('data');
  child.stdout?.on('data', (data: Buffer) => (out += data.toString()));
  const exitedEarly = (code: number | null) => log(`the server exited unexpectedly (${String(code)})`);
  child.once('exit', exitedEarly);
  const pid = child.pid as number;
  const ticks = Number(process.env.CLK_TCK ?? 100);
  return {
    base,
    pid,
    cpuMs: () => {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
      // utime and stime are fields 14 and 15 of stat, 12 and 13 after the command name.
      return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticks;
    },
    peakRssMb: () => Math.round(Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024),
    output: () => out,
    stop: async () => {
      child.off('exit', exitedEarly);
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

export { postgresDatabase } from './postgresDatabase';
