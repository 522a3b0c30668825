// Platform store: a secret value ⇄ its encrypted form (AES-256-GCM with the server's key, a fresh
// IV each time), and the digest that reads answer instead of the value.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";

export interface SealedValue {
  iv: Buffer;
  ciphertext: Buffer;
  authTag: Buffer;
}

export class SecretCipher {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error("the secrets key must be 32 bytes");
  }

  seal(value: string): SealedValue {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    const ciphertext = Buffer.concat([cipher.update(value, "utf8"), cipher.final()]);
    return { iv, ciphertext, authTag: cipher.getAuthTag() };
  }

  open(sealed: SealedValue): string {
    const decipher = createDecipheriv("aes-256-gcm", this.key, sealed.iv);
    decipher.setAuthTag(sealed.authTag);
    return Buffer.concat([decipher.update(sealed.ciphertext), decipher.final()]).toString("utf8");
  }
}

export function secretDigest(value: string): string {
  return createHash("sha256").update(value, "utf8").digest("hex");
}
