import { describe, expect, it } from 'vitest';
import { hashToken, newSecretToken, randomAlphanumeric } from '../../../server/auth/secrets';

describe('random ids and secrets', () => {
  it('makes ids of the asked length from [A-Za-z0-9], never the same twice across many pool refills', () => {
    const ids = Array.from({ length: 20_000 }, () => randomAlphanumeric(12));
    for (const id of ids.slice(0, 500)) expect(id).toMatch(/^[A-Za-z0-9]{12}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('uses every character about equally often (no bias from the byte pool or the rejection sampling)', () => {
    const counts = new Map<string, number>();
    const text = Array.from({ length: 4_000 }, () => randomAlphanumeric(31)).join('');
    for (const char of text) counts.set(char, (counts.get(char) ?? 0) + 1);
    expect(counts.size).toBe(62);
    const expected = text.length / 62;
    // 124,000 draws: each count is within 10 % of 2,000 with overwhelming probability (sd ~44).
    for (const count of counts.values()) expect(Math.abs(count - expected)).toBeLessThan(expected * 0.1);
  });

  it('makes 256-bit tokens stored only as their SHA-256', () => {
    const token = newSecretToken();
    expect(token).toMatch(/^[\w-]{43}$/);
    expect(hashToken(token)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashToken(token)).not.toContain(token);
  });
});
