// API stage (pure): how long a page waits before its next poll. Each poll waits twice as long as
// the one before (1 s, 2 s, 4 s … up to 15 s), and longer when the rate limit asks for it, so
// watching a slow operation costs a handful of calls, not one a second.

export const firstPollMs = 1_000;
export const longestPollMs = 15_000;

/** The wait before poll number `attempt` (0 for the first), given what the rate limit asks. */
export function pollDelay(attempt: number, rateWaitMs = 0): number {
  const grown = firstPollMs * 2 ** Math.min(Math.max(attempt, 0), 10);
  return Math.max(Math.min(grown, longestPollMs), rateWaitMs);
}

/** The calls `polls` polls spend over `ms` milliseconds at most, for the budgets. */
export function pollsWithin(ms: number): number {
  let spent = 0;
  let calls = 0;
  while (spent + pollDelay(calls) <= ms) {
    spent += pollDelay(calls);
    calls += 1;
  }
  return calls;
}
