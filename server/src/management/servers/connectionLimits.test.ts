// The data API's connection budget worked out from a server's max_connections, and the
// max_connections recommended for the projects a server holds.
import { describe, expect, it } from "vitest";
import { connectionBudget, platformConnectionsPerProcess, recommendedMaxConnections } from "./connectionLimits";

const capacity = { maxConnections: 300, superuserReserved: 3 };

describe("connectionBudget", () => {
  it("leaves superusers' slots, the platform's own connections and a tenth for tenants", () => {
    const budget = connectionBudget(capacity, {}, 1);
    expect(budget.reserved).toBe(3 + platformConnectionsPerProcess + 30);
    expect(budget.perProcess).toBe(300 - budget.reserved);
    expect(budget.configured).toBe(false);
  });

  it("splits across the workers of every instance, the platform's share counted per process", () => {
    const budget = connectionBudget(capacity, { serverInstances: 2 }, 3);
    expect(budget.processes).toBe(6);
    expect(budget.perProcess).toBe(Math.floor((300 - 3 - 6 * platformConnectionsPerProcess - 30) / 6));
  });

  it("takes a configured budget as the whole servers' share, split the same way", () => {
    expect(connectionBudget(capacity, { dataApiConnections: 100 }, 4)).toMatchObject({ perProcess: 25, configured: true });
  });

  it("never leaves a process without a connection", () => {
    expect(connectionBudget({ maxConnections: 20, superuserReserved: 3 }, {}, 2).perProcess).toBe(1);
  });
});

describe("recommendedMaxConnections", () => {
  it("gives each project two connections in every process once its reserves are taken", () => {
    for (const processes of [1, 2, 4]) {
      for (const projects of [1, 20, 100, 1000]) {
        const probe = connectionBudget(capacity, {}, processes);
        const wanted = recommendedMaxConnections(capacity, probe, projects);
        const then = connectionBudget({ ...capacity, maxConnections: wanted }, {}, processes);
        expect(then.perProcess).toBeGreaterThanOrEqual(2 * projects);
        // and not much more than that
        expect(connectionBudget({ ...capacity, maxConnections: wanted - 2 }, {}, processes).perProcess).toBeLessThan(2 * projects + 2);
      }
    }
  });
});
