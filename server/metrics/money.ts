/**
 * Whole minor units. The engine rounds money at exactly two places (docs/metrics.md,
 * "Rounding"): a payment's monthly amount in its own currency (total / months), and each
 * conversion into the report currency. Both round half to even ("banker's rounding", no bias
 * over many values). Every later step adds whole numbers, so totals, segments, movements and
 * drill-down details add up exactly.
 */

/** Distance from .5 still treated as a tie: float products such as 2.675 * 100 miss it by ~1e-13. */
const TIE_TOLERANCE = 1e-7;

/** Rounds to the nearest integer, ties to the even neighbour (2.5 -> 2, 3.5 -> 4, -2.5 -> -2). */
export function roundHalfEven(value: number): number {
  const floor = Math.floor(value);
  const fraction = value - floor;
  if (fraction > 0.5 + TIE_TOLERANCE) return floor + 1;
  if (fraction < 0.5 - TIE_TOLERANCE) return floor === 0 ? 0 : floor;
  return floor % 2 === 0 ? floor : floor + 1;
}

/**
 * Splits a whole amount into whole parts proportional to non-negative weights (largest
 * remainder; ties go to the earlier part), so the parts always sum to the amount. With all
 * weights zero the amount is split evenly. Writes into `out` (length >= weights.length).
 */
export function allocateProportionally(amount: number, weights: ArrayLike<number>, out: Float64Array | number[], count = weights.length): void {
  if (count === 0) return;
  if (count === 1) {
    out[0] = amount;
    return;
  }
  let weightSum = 0;
  for (let i = 0; i < count; i++) weightSum += weights[i] as number;
  const sign = amount < 0 ? -1 : 1;
  const whole = Math.abs(amount);
  let assigned = 0;
  const remainders: number[] = [];
  for (let i = 0; i < count; i++) {
    const exact = weightSum > 0 ? (whole * (weights[i] as number)) / weightSum : whole / count;
    const part = Math.floor(exact + 1e-9);
    out[i] = part;
    assigned += part;
    remainders.push(exact - part);
  }
  let left = whole - assigned;
  if (left > 0) {
    const order = remainders.map((remainder, index) => index).sort((a, b) => (remainders[b] as number) - (remainders[a] as number) || a - b);
    for (let k = 0; left > 0; k = (k + 1) % count, left--) out[order[k] as number] = (out[order[k] as number] as number) + 1;
  }
  if (sign < 0) for (let i = 0; i < count; i++) out[i] = -(out[i] as number);
}
