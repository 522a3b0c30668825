// API stage: the rate-limit headers of each answer (X-RateLimit-Limit, -Remaining, -Reset and a
// 429's Retry-After) → what the dashboard may still call this minute. While a 429's block lasts no
// call is sent (each would be refused again); polling stops short of the last few calls of a
// minute so that what the user clicks still goes through.

export interface RateSnapshot {
  limit?: number;
  remaining?: number;
  /** When the current window ends (ms since the epoch). */
  resetAt?: number;
  /** After a 429: when calls are accepted again. */
  blockedUntil?: number;
}

/** Calls left to the user's own actions: polling waits rather than spend them. */
export const pollReserve = 10;

interface HeaderSource {
  get(name: string): string | null;
}

function seconds(value: string | null): number | undefined {
  if (value === null || value.trim() === "") return undefined;
  const n = Number(value);
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

export class RateLimit {
  private snapshot: RateSnapshot = {};
  private readonly listeners = new Set<() => void>();

  /** Records an answer's headers (any status: every answer counts against the limit). */
  observe(headers: HeaderSource, status: number, now: number): void {
    const limit = seconds(headers.get("x-ratelimit-limit"));
    const remaining = seconds(headers.get("x-ratelimit-remaining"));
    const reset = seconds(headers.get("x-ratelimit-reset"));
    const next: RateSnapshot = { ...this.snapshot };
    if (limit !== undefined) next.limit = limit;
    if (remaining !== undefined) next.remaining = remaining;
    if (reset !== undefined) next.resetAt = now + reset * 1000;
    if (status === 429) {
      const retry = seconds(headers.get("retry-after")) ?? reset ?? 60;
      next.blockedUntil = now + retry * 1000;
      next.remaining = 0;
    }
    this.set(next);
  }

  /** Milliseconds left of a 429's block (0 when calls may be sent). */
  blockedFor(now: number): number {
    const until = this.snapshot.blockedUntil;
    return until !== undefined && until > now ? until - now : 0;
  }

  /** Milliseconds a poll should wait so that `reserve` calls stay for the user (0: poll now). */
  pollWait(now: number, reserve = pollReserve): number {
    const blocked = this.blockedFor(now);
    if (blocked > 0) return blocked;
    const { remaining, resetAt } = this.snapshot;
    if (remaining === undefined || resetAt === undefined || resetAt <= now) return 0;
    return remaining > reserve ? 0 : resetAt - now;
  }

  current(): RateSnapshot {
    return this.snapshot;
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private set(next: RateSnapshot): void {
    this.snapshot = next;
    for (const listener of this.listeners) listener();
  }
}
