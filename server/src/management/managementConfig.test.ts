// Unit tests of the platform flags: which command a platform database URL selects, defaults,
// and the token subcommands.
import { describe, expect, it } from "vitest";
import { ConfigError, parseCommand } from "../config";

const platform = "postgresql://postgres@db/platform";

describe("platform mode", () => {
  it("serves only the Management API when there is no database URL of its own", () => {
    const command = parseCommand(["--platform-database-url", platform], {});
    expect(command.kind).toBe("platform");
    if (command.kind !== "platform") return;
    expect(command.config.management).toMatchObject({ platformDatabaseUrl: platform, projectServers: [platform], rateLimit: 60 });
  });

  it("serves both with a database URL and secret, and reads the environment", () => {
    const command = parseCommand([], {
      DATABASE_URL: "postgresql://u@h/db",
      JWT_SECRET: "s".repeat(32),
      PLATFORM_DATABASE_URL: platform,
      PROJECT_SERVERS: "postgresql://a/x, postgresql://b/y",
      MGMT_RATE_LIMIT: "5",
    });
    expect(command.kind).toBe("start");
    if (command.kind !== "start") return;
    expect(command.config.management).toMatchObject({ projectServers: ["postgresql://a/x", "postgresql://b/y"], rateLimit: 5 });
  });

  it("refuses a rate limit that is not a positive integer", () => {
    expect(() => parseCommand(["--platform-database-url", platform, "--rate-limit", "0"], {})).toThrow(ConfigError);
    expect(() => parseCommand(["--platform-database-url", platform, "--rate-limit", "1.5"], {})).toThrow(ConfigError);
  });

  it("runs the database router only when given a port, and refuses a bad one", () => {
    const off = parseCommand(["--platform-database-url", platform], {});
    const on = parseCommand(["--platform-database-url", platform], { DATABASE_ROUTER_PORT: "6543" });
    expect(off.kind === "platform" && off.config.management.databaseRouterPort).toBeUndefined();
    expect(on.kind === "platform" && on.config.management.databaseRouterPort).toBe(6543);
    for (const bad of ["-1", "65536", "x"]) {
      expect(() => parseCommand(["--platform-database-url", platform, "--database-router-port", bad], {}), bad).toThrow(ConfigError);
    }
  });
});

describe("request logs", () => {
  it("are on unless turned off by the flag or MGMT_REQUEST_LOGS, and refuse another word", () => {
    const on = parseCommand(["--platform-database-url", platform], {});
    const off = parseCommand(["--platform-database-url", platform, "--request-logs", "off"], {});
    const offByEnv = parseCommand(["--platform-database-url", platform], { MGMT_REQUEST_LOGS: "off" });
    expect(on.kind === "platform" && on.config.management.requestLogs).toBe(true);
    expect(off.kind === "platform" && off.config.management.requestLogs).toBe(false);
    expect(offByEnv.kind === "platform" && offByEnv.config.management.requestLogs).toBe(false);
    expect(() => parseCommand(["--platform-database-url", platform, "--request-logs", "no"], {})).toThrow(/on or off/);
  });
});

describe("tenant URLs", () => {
  it("are public unless the flag or MGMT_TENANT_URLS says local, and refuse another word", () => {
    const strict = parseCommand(["--platform-database-url", platform], {});
    const local = parseCommand(["--platform-database-url", platform, "--tenant-urls", "local"], {});
    const localByEnv = parseCommand(["--platform-database-url", platform], { MGMT_TENANT_URLS: "local" });
    expect(strict.kind === "platform" && strict.config.management.tenantUrls).toEqual({ access: "public" });
    expect(local.kind === "platform" && local.config.management.tenantUrls).toEqual({ access: "local" });
    expect(localByEnv.kind === "platform" && localByEnv.config.management.tenantUrls).toEqual({ access: "local" });
    expect(() => parseCommand(["--platform-database-url", platform, "--tenant-urls", "http"], {})).toThrow(/public or local/);
  });
});

describe("secrets key", () => {
  it("reads 64 hex digits from the flag or SECRETS_KEY, and refuses anything else", () => {
    const command = parseCommand(["--platform-database-url", platform], { SECRETS_KEY: "ab".repeat(32) });
    expect(command.kind === "platform" && command.config.management.secretsKey).toEqual(Buffer.alloc(32, 0xab));
    const none = parseCommand(["--platform-database-url", platform], {});
    expect(none.kind === "platform" && none.config.management.secretsKey).toBeUndefined();
    expect(() => parseCommand(["--platform-database-url", platform, "--secrets-key", "short"], {})).toThrow(/64 hex digits/);
  });
});

describe("token commands", () => {
  it("parses create, list and revoke", () => {
    expect(parseCommand(["token", "create", "--email", "a@b.c", "--platform-database-url", platform], {})).toEqual({
      kind: "token",
      platformDatabaseUrl: platform,
      command: { kind: "create", email: "a@b.c", name: "cli" },
    });
    expect(parseCommand(["token", "list", "--email", "a@b.c"], { PLATFORM_DATABASE_URL: platform })).toMatchObject({ command: { kind: "list" } });
    expect(parseCommand(["token", "revoke", "--id", "x"], { PLATFORM_DATABASE_URL: platform })).toMatchObject({ command: { kind: "revoke", id: "x" } });
  });

  it("needs a platform database, an action and its flag", () => {
    expect(() => parseCommand(["token", "create", "--email", "a@b.c"], {})).toThrow(/platform database/);
    expect(() => parseCommand(["token", "create"], { PLATFORM_DATABASE_URL: platform })).toThrow(/--email/);
    expect(() => parseCommand(["token", "rotate"], { PLATFORM_DATABASE_URL: platform })).toThrow(/unknown token command/);
  });
});
