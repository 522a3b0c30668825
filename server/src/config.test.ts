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
      },
    });
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
  });

  it("parses setup and demo", () => {
    expect(parseCommand(["setup", "--demo", "--database-url", "postgresql://x"], {})).toEqual({
      kind: "setup",
      databaseUrl: "postgresql://x",
      demo: true,
    });
    expect(parseCommand(["demo"], {})).toMatchObject({ kind: "demo", config: { jwtSecret: undefined } });
  });

  it("refuses short secrets, bad numbers, unknown commands and missing settings", () => {
    const env = { DATABASE_URL: "postgresql://x", JWT_SECRET: secret };
    expect(() => parseCommand([], { ...env, JWT_SECRET: "short" })).toThrow(ConfigError);
    expect(() => parseCommand(["--pool-size", "0"], env)).toThrow(/pool size/);
    expect(() => parseCommand(["serve"], env)).toThrow(/unknown command/);
    expect(() => parseCommand([], { JWT_SECRET: secret })).toThrow(/database URL/);
    expect(() => parseCommand(["--nope"], env)).toThrow(ConfigError);
  });
});
