import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import type { Kysely } from 'kysely';
import { hashPassword, verifyPassword } from '../auth/password';
import type { DB } from '../db/schema';

/** The demo password the README publishes. It opens the demo account only on a loopback-only instance. */
export const PUBLISHED_DEMO_PASSWORD = 'subscope-demo-2026';

/** True when a listen address accepts connections from this machine only. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === 'localhost' || bare === '::1') return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  return bare.startsWith('::ffff:127.');
}

export interface DemoPassword {
  password: string;
  /** Generated for this start (printed in the log), because the published one would be reachable from other machines. */
  generated: boolean;
}

/**
 * The demo account's password for this start: DEMO_PASSWORD when the operator chose one, the
 * published password on an instance that listens on loopback only, otherwise 24 random
 * bytes made for this start. The published password never opens an instance that other
 * machines can reach, even when DEMO_PASSWORD repeats it.
 */
export function chooseDemoPassword(options: { host: string; configured: string | undefined }): DemoPassword {
  const local = isLoopbackHost(options.host);
  if (options.configured && (local || options.configured !== PUBLISHED_DEMO_PASSWORD)) return { password: options.configured, generated: false };
  if (local) return { password: PUBLISHED_DEMO_PASSWORD, generated: false };
  return { password: randomBytes(24).toString('base64url'), generated: true };
}

/**
 * Makes the demo account's owner sign in with `password` (an existing demo account keeps its
 * data; only the password hash changes, and only when it differs). False when there is no
 * demo account with that e-mail.
 */
export async function applyDemoPassword(db: Kysely<DB>, email: string, password: string): Promise<boolean> {
  const user = await db
    .selectFrom('users as u')
    .innerJoin('accounts as a', 'a.id', 'u.account_id')
    .select(['u.account_id', 'u.id', 'u.password_hash'])
    .where('a.is_demo', '=', true)
    .where((eb) => eb(eb.fn('lower', ['u.email']), '=', email.trim().toLowerCase()))
    .executeTakeFirst();
  if (!user) return false;
  if (await verifyPassword(password, user.password_hash)) return true;
  await db
    .updateTable('users')
    .set({ password_hash: await hashPassword(password) })
    .where('account_id', '=', user.account_id)
    .where('id', '=', user.id)
    .execute();
  return true;
}
