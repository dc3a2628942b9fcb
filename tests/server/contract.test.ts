import { describe, expect, it } from 'vitest';
import { readCommittedContract, renderContract } from '../../scripts/contract';

describe('generated API contract', () => {
  it('docs/openapi.json and src/api/schema.ts match what the server emits (run `npm run api:generate`)', async () => {
    const fresh = await renderContract();
    const committed = readCommittedContract();
    expect(committed.openapi, 'docs/openapi.json is stale').toBe(fresh.openapi);
    expect(committed.types, 'src/api/schema.ts is stale').toBe(fresh.types);
  });
});
