// ServerConnections.waitForOwn: whether a pool whose connections are all busy waits for one of
// them, decided from the budget and how recently the other pools were used (the clock is the
// test's own).
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Database } from "../../database";
import { ServerConnections } from "./serverConnections";

/** A pool as ServerConnections sees it: whether it has an idle connection. */
const pool = (idle: boolean) => ({ hasIdle: () => idle, closeIdle: () => idle }) as unknown as Database;

describe("waitForOwn", () => {
  beforeEach(() => vi.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => vi.useRealTimers());

  const full = async (connections: ServerConnections, pools: Database[]) => {
    for (const p of pools) {
      connections.used(p);
      await connections.take(p);
    }
  };

  it("opens another connection while the budget has room", async () => {
    const connections = new ServerConnections(3, 10_000, 1_000);
    const [busy, other] = [pool(false), pool(true)];
    await full(connections, [busy, other]);
    expect(connections.waitForOwn(busy)).toBe(0);
  });

  it("waits for its own while every other pool with an idle connection is in use", async () => {
    const connections = new ServerConnections(2, 10_000, 1_000);
    const [busy, other] = [pool(false), pool(true)];
    await full(connections, [other, busy]);
    vi.advanceTimersByTime(999);
    expect(connections.waitForOwn(busy)).toBe(1_000);
  });

  it("waits no longer than the budget's wait", async () => {
    const connections = new ServerConnections(2, 500, 1_000);
    const [busy, other] = [pool(false), pool(true)];
    await full(connections, [other, busy]);
    expect(connections.waitForOwn(busy)).toBe(500);
  });

  it("opens another connection once a pool with an idle connection has been left unused", async () => {
    const connections = new ServerConnections(3, 10_000, 1_000);
    const [stale, noIdle, busy] = [pool(true), pool(false), pool(false)];
    await full(connections, [stale, noIdle]);
    vi.advanceTimersByTime(1_000);
    await full(connections, [busy]);
    expect(connections.waitForOwn(busy)).toBe(0);
    // A pool left unused with no idle connection gives no room.
    const connections2 = new ServerConnections(2, 10_000, 1_000);
    await full(connections2, [noIdle]);
    vi.advanceTimersByTime(1_000);
    await full(connections2, [busy]);
    expect(connections2.waitForOwn(busy)).toBe(1_000);
  });
});
