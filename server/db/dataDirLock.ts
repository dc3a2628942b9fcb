import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Embedded PGlite files may be opened by one process only. The lock file holds the owner's
 * pid; a lock left by a process that no longer runs (a crash, a kill -9) is taken over.
 */
export function lockDataDir(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, 'subscope.pid');
  try {
    writeFileSync(file, String(process.pid), { flag: 'wx' });
  } catch {
    const owner = Number(readFileSync(file, 'utf8').trim());
    if (owner && owner !== process.pid && isRunning(owner)) {
      throw new Error(
        `DATA_DIR ${dataDir} is in use by process ${owner}. Embedded storage serves one process; ` +
          'stop it, choose another DATA_DIR, or set DATABASE_URL to share a PostgreSQL server.',
      );
    }
    writeFileSync(file, String(process.pid));
  }
  return () => {
    try {
      if (readFileSync(file, 'utf8').trim() === String(process.pid)) rmSync(file);
    } catch {
      // already gone
    }
  };
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
