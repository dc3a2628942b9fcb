import { readFileSync } from 'node:fs';

export const API_VERSION = 11;
export const API_PREFIX = `/api/v${API_VERSION}`;
export const APP_VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
