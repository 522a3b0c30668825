// Unit tests of the CLI stage: flags and environment to commands.
import { describe, expect, it } from "vitest";
import { ConfigError, parseCommand } from "./config";

const secret = "s".repeat(32);

describe("parseCommand", () => {
  it("starts by default, with defaults for everything but the URL and secret", () => {
    const command = parseCommand([], { DATABASE_URL: "postgresql://u@h/db", JWT_SECRET: secret });
    expect(command).toEqual({
      kind: "start",
      config: {
        databaseUrl: "postgresql://u@h/db",
        jwtSecret: secret,
        host: "127.0.0.1",
        port: 54321,
        poolSize: 10,
        bodyLimit: 1048576,
        corsOrigins: "*",
        schemas: ["public"],
        logLevel: "info",
        statementTimeoutMs: 8000,
        limits: { maxDocumentLength: 100_000, maxDepth: 32, maxFields: 2000, maxVariablesDepth: 64 },
        jwks: undefined,
        extraRoles: [],
        preparedStatements: true,
        replicaUrls: [],
        replicaMaxLagMs: 5000,
        workers: 1,
        trustProxy: false,
      },
    });
  });

  it("reads the trusted proxies as addresses and ranges or a hop count, refusing anything else", () => {
    const env = { DATABASE_URL: "postgresql://u@h/db", JWT_SECRET: secret };
    expect(parseCommand(["--trust-proxy", "127.0.0.1, 10.0.0.0/8"], env)).toMatchObject({ config: { trustProxy: ["127.0.0.1", "10.0.0.0/8"] } });
    expect(parseCommand([], { ...env, TRUST_PROXY: "2" })).toMatchObject({ config: { trustProxy: 2 } });
    expect(parseCommand(["--trust-proxy", "off"], env)).toMatchObject({ config: { trustProxy: false } });
    expect(() => parseCommand(["--trust-proxy", "proxy.example"], env)).toThrow('trust-proxy takes addresses, CIDR ranges or a hop count, got "proxy.example"');
  });

  it("lets flags override environment variables", () => {
    const command = parseCommand(
      ["start", "--port", "8080", "--schemas", "public, app", "--cors-origins", "http://a.test,http://b.test"],
      { DATABASE_URL: "postgresql://u@h/db", JWT_SECRET: secret, PORT: "9090" },
    );
    expect(command).toMatchObject({
      kind: "start",
      config: { port: 8080, schemas: ["public", "app"], corsOrigins: ["http://a.test", "http://b.test"] },
    });
    const operations = parseCommand(
      ["--no-prepared-statements", "--replica-urls", "postgresql://r1,postgresql://r2", "--max-depth", "5", "--jwt-roles", "editor"],
      { DATABASE_URL: "postgresql://u@h/db", JWT_SECRET: secret, STATEMENT_TIMEOUT_MS: "0", WORKERS: "3" },
    );
    expect(operations).toMatchObject({
      config: {
        preparedStatements: false,
        replicaUrls: ["postgresql://r1", "postgresql://r2"],
        limits: { maxDepth: 5 },
        extraRoles: ["editor"],
        statementTimeoutMs: 0,
        workers: 3,
      },
    });
  });

  it("parses setup and demo", () => {
    expect(parseCommand(["setup", "--demo", "--database-url", "postgresql://x"], {})).toEqual({
      kind: "setup",
      databaseUrl: "postgresql://x",
      demo: true,
      preloadPlv8: false,
    });
    expect(parseCommand(["setup", "--preload-plv8", "--database-url", "postgresql://x"], {})).toMatchObject({ preloadPlv8: true });
    expect(parseCommand(["demo"], {})).toMatchObject({ kind: "demo", config: { jwtSecret: undefined } });
  });

  it("refuses short secrets, bad numbers, unknown commands and missing settings", () => {
    const env = { DATABASE_URL: "postgresql://x", JWT_SECRET: secret };
    expect(() => parseCommand([], { ...env, JWT_SECRET: "short" })).toThrow(ConfigError);
    expect(() => parseCommand(["--pool-size", "0"], env)).toThrow(/pool size/);
    expect(() => parseCommand(["serve"], env)).toThrow(/unknown command/);
    expect(() => parseCommand([], { JWT_SECRET: secret })).toThrow(/database URL/);
    expect(() => parseCommand(["--nope"], env)).toThrow(ConfigError);
    expect(() => parseCommand(["--statement-timeout", "-1"], env)).toThrow(/statement-timeout/);
    expect(() => parseCommand([], { ...env, PREPARED_STATEMENTS: "maybe" })).toThrow(/on or off/);
  });
});
