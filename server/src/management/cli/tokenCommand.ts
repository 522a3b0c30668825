// CLI stage (Management API): a `token` subcommand → its effect on the platform database and the
// text to print (a new token is printed once; it is stored only as a hash).
import { unreachable } from "../../../../src/util/invariant";
import type { TokenCommand } from "../managementConfig";
import { openPlatform } from "../services";
import { UserStore } from "../users/userStore";

export async function runTokenCommand(platformDatabaseUrl: string, command: TokenCommand): Promise<string> {
  const platform = await openPlatform(platformDatabaseUrl);
  try {
    const users = new UserStore(platform);
    switch (command.kind) {
      case "create": {
        const created = await users.createToken(command.email, command.name);
        return `${created.token}\n`;
      }
      case "list": {
        const user = await users.byEmail(command.email);
        if (!user) return `no user with email ${command.email}\n`;
        const rows = await users.listTokens(user.id);
        return rows.map((t) => `${t.id}  ${t.name}  created ${t.created_at}${t.revoked_at ? `  revoked ${t.revoked_at}` : ""}\n`).join("");
      }
      case "revoke":
        if (!(await users.revokeToken(command.id))) throw new Error(`no live token with id ${command.id}`);
        return `revoked ${command.id}\n`;
      default:
        return unreachable(command, "token command");
    }
  } finally {
    await platform.end();
  }
}
