import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { JsonObject, JsonValue } from '../db/schema';

/**
 * Integration credentials at rest (integrations.secret_config): AES-256-GCM with the
 * deployment's key (INTEGRATION_SECRETS_KEY, or one kept in DATA_DIR), a random 12-byte IV per
 * seal, so the same key sealed twice differs and the row never holds a secret in the clear.
 * The sealed form is `{v: 1, iv, tag, data}` (base64). Opening with the wrong key, or a row
 * changed by hand, throws.
 */

const ALGORITHM = 'aes-256-gcm';
const VERSION = 1;

/** A key for apps built without one (tests): random per process, so nothing sealed by it outlives the process. */
let processKey: Buffer | undefined;

/** The key that seals this deployment's credentials: the configured one, else a per-process random one. */
export function secretsKeyOf(config: { integrationSecretsKey?: Buffer }): Buffer {
  if (config.integrationSecretsKey) return config.integrationSecretsKey;
  processKey ??= randomBytes(32);
  return processKey;
}

export function sealSecrets(key: Buffer, secrets: Record<string, string>): JsonObject {
  if (key.length !== 32) throw new Error('the integration secrets key must be 32 bytes');
  const iv = randomBytes(12);
  const cipher = createCipheriv(ALGORITHM, key, iv);
  const data = Buffer.concat([cipher.update(JSON.stringify(secrets), 'utf8'), cipher.final()]);
  return { v: VERSION, iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), data: data.toString('base64') };
}

export function openSecrets(key: Buffer, sealed: JsonValue): Record<string, string> {
  if (sealed === null || typeof sealed !== 'object' || Array.isArray(sealed)) return {};
  const { v, iv, tag, data } = sealed;
  if (v !== VERSION || typeof iv !== 'string' || typeof tag !== 'string' || typeof data !== 'string') throw new Error('integration secrets are not in a known sealed form');
  const decipher = createDecipheriv(ALGORITHM, key, Buffer.from(iv, 'base64'));
  decipher.setAuthTag(Buffer.from(tag, 'base64'));
  const text = Buffer.concat([decipher.update(Buffer.from(data, 'base64')), decipher.final()]).toString('utf8');
  const parsed = JSON.parse(text) as unknown;
  const secrets: Record<string, string> = {};
  if (parsed && typeof parsed === 'object') for (const [name, value] of Object.entries(parsed)) if (typeof value === 'string') secrets[name] = value;
  return secrets;
}
