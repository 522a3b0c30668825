// Bench stage: repetition. Input: a measurement that yields one number per round (a ratio taken
// within the round, so a drift of the machine's speed between rounds cancels). Output: the median
// over rounds with its spread, after at least `min` rounds and until the median is known to within
// `tolerance` (the 95% interval of the median by order statistics, relative to it), or `max` rounds.

export interface Settled {
  median: number;
  /** The lowest and highest round. */
  low: number;
  high: number;
  n: number;
}

export interface SettleOptions {
  min: number;
  max: number;
  /** Half the width of the median's 95% interval, relative to the median, that is enough. */
  tolerance: number;
}

/** The rounds of the sections judged within rounds (the nested query's and the opt-in features'). */
export const ROUNDS: SettleOptions = { min: 5, max: 15, tolerance: 0.02 };

export function summarize(samples: number[]): Settled {
  const s = [...samples].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  const median = s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
  return { median, low: s[0]!, high: s.at(-1)!, n: s.length };
}

/** The 95% interval of the median of `samples` (order statistics; the whole range when few). */
export function medianInterval(samples: number[]): { low: number; high: number } {
  const s = [...samples].sort((a, b) => a - b);
  const n = s.length;
  const reach = 0.98 * Math.sqrt(n);
  const j = Math.max(0, Math.floor(n / 2 - reach));
  const k = Math.min(n - 1, Math.ceil(n / 2 + reach) - 1);
  return { low: s[j]!, high: s[k]! };
}

export function settled(samples: number[], tolerance: number): boolean {
  const { median } = summarize(samples);
  const { low, high } = medianInterval(samples);
  return median !== 0 && (high - low) / 2 / Math.abs(median) <= tolerance;
}

export async function settle(sample: () => number | Promise<number>, o: SettleOptions): Promise<Settled & { samples: number[] }> {
  const samples: number[] = [];
  while (samples.length < o.min || (samples.length < o.max && !settled(samples, o.tolerance))) samples.push(await sample());
  return { ...summarize(samples), samples };
}
