// Provision stage: a password → its SCRAM-SHA-256 verifier, the form PostgreSQL stores. Sending
// the verifier in CREATE ROLE keeps the password itself out of the server's log.
import { createHash, createHmac, pbkdf2Sync, randomBytes } from "node:crypto";

const iterations = 4096;

export function scramVerifier(password: string, salt: Buffer = randomBytes(16)): string {
  // PostgreSQL applies SASLprep; NFKC normalization is its part that matters for real passwords.
  const salted = pbkdf2Sync(password.normalize("NFKC"), salt, iterations, 32, "sha256");
  const hmac = (key: Buffer, text: string) => createHmac("sha256", key).update(text).digest();
  const storedKey = createHash("sha256").update(hmac(salted, "Client Key")).digest();
  const serverKey = hmac(salted, "Server Key");
  return `SCRAM-SHA-256$${iterations}:${salt.toString("base64")}$${storedKey.toString("base64")}:${serverKey.toString("base64")}`;
}
