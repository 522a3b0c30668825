// Platform store: a user's call at a moment → whether the per-user rate limit lets it through,
// with the numbers for the X-RateLimit headers. Counted in the platform database, so every
// server process shares one count.
import type { Sql } from "../platform/sql";

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window (or the block) ends. */
  resetSeconds: number;
}

const minuteMs = 60_000;

export class RateLimitStore {
  constructor(
    private readonly sql: Sql,
    private readonly limit: number,
    private readonly now: () => number,
  ) {}

  async take(userId: string): Promise<RateDecision> {
    const at = this.now();
    const minute = Math.floor(at / minuteMs);
    const row = await this.sql.one<{ allowed: boolean; used: number; blocked_through: string | null }>(
      "select allowed, used, blocked_through from platform.rate_limit_take($1, $2, $3)",
      [userId, minute, this.limit],
    );
    const { allowed, used, blocked_through } = row!;
    const endMinute = blocked_through === null ? minute : Number(blocked_through);
    return {
      allowed,
      limit: this.limit,
      remaining: allowed ? Math.max(0, this.limit - used) : 0,
      resetSeconds: Math.ceil(((endMinute + 1) * minuteMs - at) / 1000),
    };
  }
}
