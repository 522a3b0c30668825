// CLI stage: the `jwt` command → a signed user token on stdout (and which key signed it, on
// stderr), for trying row level security as a signed-in user without an auth server.
import type { JwtCommand } from "./config";
import { projectSigningKey } from "./management/cli/jwtCommand";
import { signUserToken, type SigningMaterial } from "./userToken";
import { unreachable } from "../../src/util/invariant";

export async function runJwtCommand(command: JwtCommand, note: (line: string) => void): Promise<string> {
  let material: SigningMaterial;
  switch (command.key.kind) {
    case "secret":
      material = { kind: "secret", secret: new TextEncoder().encode(command.key.secret) };
      note("signed with the JWT secret (HS256)\n");
      break;
    case "project": {
      const key = await projectSigningKey(command.key.platformDatabaseUrl, command.key.ref);
      material = key.material;
      note(`signed with ${key.described}\n`);
      break;
    }
    default:
      return unreachable(command.key, "jwt key");
  }
  const token = await signUserToken(material, { sub: command.sub, role: command.role, expiresInSeconds: command.expiresInSeconds });
  note(`role ${command.role}, sub ${command.sub}, expires in ${command.expiresInSeconds} s\n`);
  return `${token}\n`;
}
