import os from 'node:os';

/**
 * The one method every benchmark uses to compare Subscope with its peer on a shared, noisy
 * machine (bench/README.md, "Method"): the contenders run one after the other in each round,
 * the order reversed every other round (AB, BA, AB, …), so a slow spell of the machine falls on
 * both sides alike; the first round is a warm-up whose numbers are dropped; each round gives
 * one ratio (ours / peer, of figures measured seconds apart), and the figure is the MEDIAN of
 * those ratios, printed with its spread (min–max and interquartile range) and the number of
 * rounds. The machine's load (load average before and after, CPU count) goes with it.
 */

export interface Spread {
  median: number;
  min: number;
  q1: number;
  q3: number;
  max: number;
  /** How many values. */
  n: number;
}

/** The value at quantile `q` (0..1) of sorted `values`, linearly interpolated (type 7, as R's and NumPy's default). */
function quantile(sorted: readonly number[], q: number): number {
  const at = (sorted.length - 1) * q;
  const low = Math.floor(at);
  const high = Math.ceil(at);
  return (sorted[low] as number) + ((sorted[high] as number) - (sorted[low] as number)) * (at - low);
}

export function spread(values: readonly number[]): Spread {
  if (values.length === 0) throw new Error('no values to take a median of');
  const sorted = [...values].sort((a, b) => a - b);
  return { median: quantile(sorted, 0.5), min: sorted[0] as number, q1: quantile(sorted, 0.25), q3: quantile(sorted, 0.75), max: sorted.at(-1) as number, n: sorted.length };
}

export function median(values: readonly number[]): number {
  return spread(values).median;
}

/** Rounded to `digits` decimals (0.12345 -> 0.123 with 3). */
export function roundTo(value: number, digits: number): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

/** A spread rounded for the JSON line. */
export function roundedSpread(s: Spread, digits: number): Spread {
  return { median: roundTo(s.median, digits), min: roundTo(s.min, digits), q1: roundTo(s.q1, digits), q3: roundTo(s.q3, digits), max: roundTo(s.max, digits), n: s.n };
}

/** `1.23 (min-max 1.10-1.41, IQR 1.18-1.30, 8 rounds)`. */
export function describeSpread(s: Spread, digits: number, unit = '', what = 'rounds'): string {
  const f = (value: number) => `${value.toFixed(digits)}${unit}`;
  return `${f(s.median)} (min-max ${f(s.min)}-${f(s.max)}, IQR ${f(s.q1)}-${f(s.q3)}, ${s.n} ${what})`;
}

// ------------------------------------------------------------------ machine load

export interface MachineLoad {
  cpus: number;
  /** os.loadavg() (1, 5, 15 minutes) when the benchmark started and when it ended. */
  before: number[];
  after: number[] | null;
  /** The 1-minute load average sampled as each round started (warm-up included): lowest and highest. */
  during: [number, number] | null;
}

const loadNow = () => os.loadavg().map((load) => roundTo(load, 2));

/** The machine's load as a benchmark saw it: call `finish()` at the end, `sample()` as often as useful. */
export class LoadRecorder {
  readonly cpus = os.cpus().length;
  readonly before = loadNow();
  private after: number[] | null = null;
  private samples: number[] = [];

  sample(): number {
    const oneMinute = loadNow()[0] as number;
    this.samples.push(oneMinute);
    return oneMinute;
  }

  finish(): MachineLoad {
    this.after = loadNow();
    return this.value();
  }

  value(): MachineLoad {
    return {
      cpus: this.cpus,
      before: this.before,
      after: this.after,
      during: this.samples.length > 0 ? [Math.min(...this.samples), Math.max(...this.samples)] : null,
    };
  }

  describe(): string {
    const { cpus, before, after, during } = this.value();
    return (
      `machine load: ${cpus} CPUs; load average (1, 5, 15 min) before ${before.join(', ')}` +
      (during ? `, 1-min during the rounds ${during[0]}-${during[1]}` : '') +
      (after ? `, after ${after.join(', ')}` : '') +
      ` (${(before[0] as number) / cpus > 1 ? 'loaded: more runnable work than CPUs' : 'not overloaded'})`
    );
  }
}

// ------------------------------------------------------------------ rounds

export interface Contender {
  name: string;
  /** One measurement; the figure it returns (ms, or p99 ms) is what the ratios divide. */
  run: (round: number) => number | Promise<number>;
}

export interface RoundsOptions<Names extends string> {
  contenders: readonly (Contender & { name: Names })[];
  /** Ratios to take each round: name -> [numerator, denominator]. */
  ratios: Record<string, readonly [Names, Names]>;
  /** Measured rounds (after the warm-up). */
  rounds: number;
  /** Warm-up rounds, run and dropped (1 unless told). */
  warmupRounds?: number;
  load?: LoadRecorder;
  log?: (line: string) => void;
  /** Digits of the figures in the log lines. */
  digits?: number;
}

export interface RoundsResult<Names extends string> {
  rounds: number;
  warmupRounds: number;
  /** The order the contenders ran in, each measured round. */
  orders: Names[][];
  /** Each contender's figure in each measured round. */
  values: Record<Names, number[]>;
  /** Each contender's figures: median and spread. */
  figures: Record<Names, Spread>;
  /** Each ratio of each measured round. */
  ratioValues: Record<string, number[]>;
  /** Each ratio: the median of the rounds' ratios, and its spread. */
  ratios: Record<string, Spread>;
}

/**
 * Runs the contenders in `rounds` rounds after `warmupRounds` dropped ones: in each round each
 * contender once, one after the other, in the given order in even rounds and reversed in odd
 * ones (the warm-up is round 0). Each round's ratios come from that round's figures.
 */
export async function alternateRounds<Names extends string>(options: RoundsOptions<Names>): Promise<RoundsResult<Names>> {
  const { contenders, rounds, log = () => {}, digits = 1 } = options;
  const warmupRounds = options.warmupRounds ?? 1;
  if (contenders.length < 2) throw new Error('rounds need at least two contenders');
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`rounds must be a whole number >= 1, not ${rounds}`);
  const names = contenders.map((c) => c.name);
  const values = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<Names, number[]>;
  const ratioValues: Record<string, number[]> = Object.fromEntries(Object.keys(options.ratios).map((name) => [name, [] as number[]]));
  const orders: Names[][] = [];
  for (let round = 0; round < warmupRounds + rounds; round++) {
    const warmup = round < warmupRounds;
    const order = round % 2 === 0 ? [...contenders] : [...contenders].reverse();
    const load = options.load?.sample();
    const figures = {} as Record<Names, number>;
    for (const contender of order) {
      const figure = await contender.run(round);
      if (!Number.isFinite(figure)) throw new Error(`${contender.name} gave ${figure} in round ${round}`);
      figures[contender.name] = figure;
    }
    const ratios = Object.entries(options.ratios).map(([name, [top, bottom]]) => [name, figures[top] / Math.max(Number.EPSILON, figures[bottom])] as const);
    log(
      `  ${warmup ? `warm-up ${round + 1}` : `round ${round - warmupRounds + 1}/${rounds}`} (${order.map((c) => c.name).join(', ')}${load === undefined ? '' : `; load ${load}`}): ` +
        `${order.map((c) => `${c.name} ${figures[c.name].toFixed(digits)}`).join(', ')}; ${ratios.map(([name, value]) => `${name} ${value.toFixed(3)}`).join(', ')}${warmup ? ' (dropped)' : ''}`,
    );
    if (warmup) continue;
    orders.push(order.map((c) => c.name));
    for (const name of names) values[name].push(figures[name]);
    for (const [name, value] of ratios) ratioValues[name]?.push(value);
  }
  const figures = Object.fromEntries(names.map((name) => [name, spread(values[name])])) as Record<Names, Spread>;
  const ratios = Object.fromEntries(Object.entries(ratioValues).map(([name, list]) => [name, spread(list)]));
  for (const name of names) log(`  ${name}: median ${describeSpread(figures[name], digits)}`);
  for (const [name, s] of Object.entries(ratios)) log(`  ${name}: median ${describeSpread(s, 3)}`);
  return { rounds, warmupRounds, orders, values, figures, ratioValues, ratios };
}

/** Whether each measured round ran in the reverse order of the one before (what the smoke tests check). */
export function ordersAlternate(orders: readonly (readonly string[])[]): boolean {
  return orders.every((order, k) => k === 0 || order.join() === [...(orders[k - 1] as string[])].reverse().join());
}

/** The fields every benchmark's JSON line carries about its method and machine. */
export function methodFields<Names extends string>(result: RoundsResult<Names>, load: MachineLoad) {
  return {
    rounds: result.rounds,
    warmup_rounds: result.warmupRounds,
    orders: result.orders.map((order) => order.join(',')),
    load,
  };
}
