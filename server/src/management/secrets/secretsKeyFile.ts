// Management API start-up: a key file path → the AES-256 key that encrypts project secrets at
// rest, made on first use (0600, in a 0700 folder). The key lives outside the platform database:
// a key stored beside the secrets would protect nothing.
import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";

/** Where `start` keeps the key unless told otherwise: the server's user's config folder. */
export function defaultSecretsKeyFile(env: Record<string, string | undefined> = process.env): string {
  const config = env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME.length > 0 ? env.XDG_CONFIG_HOME : join(homedir(), ".config");
  return join(config, "pg-graphql-server", "secrets.key");
}

export interface SecretsKey {
  key: Buffer;
  /** True when this call made the file. */
  created: boolean;
}

export function loadOrCreateSecretsKey(path: string): SecretsKey {
  let text: string | undefined;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
  }
  if (text !== undefined) {
    const hex = text.trim();
    if (!/^[0-9a-fA-F]{64}$/.test(hex)) throw new Error(`the secrets key file ${path} must hold 64 hex digits (32 bytes)`);
    if ((statSync(path).mode & 0o077) !== 0) {
      throw new Error(`the secrets key file ${path} is readable by other users: chmod 600 it`);
    }
    return { key: Buffer.from(hex, "hex"), created: false };
  }
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const key = randomBytes(32);
  // `wx`: two processes starting at once never overwrite each other's key.
  try {
    writeFileSync(path, `${key.toString("hex")}\n`, { mode: 0o600, flag: "wx" });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST") return loadOrCreateSecretsKey(path);
    throw e;
  }
  chmodSync(path, 0o600);
  return { key, created: true };
}
