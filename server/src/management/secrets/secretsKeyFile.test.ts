import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, chmodSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { defaultSecretsKeyFile, loadOrCreateSecretsKey } from "./secretsKeyFile";
import { parseCommand } from "../../config";

const dir = mkdtempSync(join(tmpdir(), "secrets-key-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the secrets key file", () => {
  it("is made once with a new key (0600 in a 0700 folder) and read back the same after", () => {
    const path = join(dir, "made", "secrets.key");
    const first = loadOrCreateSecretsKey(path);
    expect(first.created).toBe(true);
    expect(first.key).toHaveLength(32);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, "made")).mode & 0o777).toBe(0o700);
    expect(readFileSync(path, "utf8")).toBe(`${first.key.toString("hex")}\n`);
    const again = loadOrCreateSecretsKey(path);
    expect(again).toEqual({ key: first.key, created: false });
  });

  it("refuses a file others can read, or one that is not a key, leaving it as it was", () => {
    const open = join(dir, "open.key");
    writeFileSync(open, "ab".repeat(32));
    chmodSync(open, 0o644);
    expect(() => loadOrCreateSecretsKey(open)).toThrow(`the secrets key file ${open} is readable by other users: chmod 600 it`);
    const bad = join(dir, "bad.key");
    writeFileSync(bad, "not a key", { mode: 0o600 });
    expect(() => loadOrCreateSecretsKey(bad)).toThrow("must hold 64 hex digits");
    expect(readFileSync(bad, "utf8")).toBe("not a key");
  });

  it("defaults to the user's config folder, and a given key overrides the file", () => {
    expect(defaultSecretsKeyFile({ XDG_CONFIG_HOME: "/etc/x" })).toBe("/etc/x/pg-graphql-server/secrets.key");
    const platform = "postgresql://postgres@localhost/platform";
    const byFile = parseCommand(["--platform-database-url", platform], { SECRETS_KEY_FILE: "/srv/key" });
    expect(byFile.kind === "platform" && byFile.config.management).toMatchObject({ secretsKeyFile: "/srv/key" });
    const byDefault = parseCommand(["--platform-database-url", platform], {});
    expect(byDefault.kind === "platform" && byDefault.config.management.secretsKeyFile).toBe(defaultSecretsKeyFile());
    const byKey = parseCommand(["--platform-database-url", platform, "--secrets-key-file", "/srv/key"], { SECRETS_KEY: "ab".repeat(32) });
    expect(byKey.kind === "platform" && byKey.config.management.secretsKeyFile).toBeUndefined();
  });
});
