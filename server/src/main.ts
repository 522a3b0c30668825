// CLI stage: argv and environment → the chosen command (start, setup or demo) run to completion.
import cluster from "node:cluster";
import { ConfigError, parseCommand, usage } from "./config";
import { runDemo } from "./demo/runDemo";
import { onShutdown, serve } from "./serve";
import { bannerOf } from "./http/banner";
import { applySetup } from "./setup";
import { runTokenCommand } from "./management/cli/tokenCommand";
import { runOAuthAppCommand } from "./management/cli/oauthAppCommand";
import { runJwtCommand } from "./jwtCommand";
import { servePlatform } from "./management/servePlatform";
import { loadOrCreateSecretsKey } from "./management/secrets/secretsKeyFile";
import { reportReady, superviseWorkers } from "./workers";
import { unreachable } from "../../src/util/invariant";

async function main(): Promise<void> {
  const command = parseCommand(process.argv.slice(2), process.env);
  switch (command.kind) {
    case "help":
      process.stdout.write(usage);
      return;
    case "setup":
      const preload = await applySetup(command.databaseUrl, { demo: command.demo, preloadPlv8: command.preloadPlv8 });
      process.stdout.write(`setup done: roles anon, authenticated, service_role, authenticator; auth helpers; grants\n${preload}\n`);
      return;
    case "start": {
      if (command.config.workers > 1 && cluster.isPrimary) return superviseWorkers(command.config, bannerOf(command.config));
      const running = await serve(command.config);
      onShutdown(() => running.app.close());
      if (cluster.isWorker) return reportReady(running.baseUrl, running.warnings);
      process.stdout.write(`pg_graphql server is running\n${await bannerOf(command.config)(running.baseUrl)}\n`);
      for (const warning of running.warnings) process.stderr.write(`\n*** WARNING: ${warning}\n`);
      return;
    }
    case "demo":
      await runDemo(command.config);
      return;
    case "platform": {
      // Workers share the port; each holds its share of every project server's connection budget.
      if (command.config.workers > 1 && cluster.isPrimary) {
        // The primary makes the secrets key file, so workers starting together only read it.
        const { secretsKey, secretsKeyFile } = command.config.management;
        if (!secretsKey && secretsKeyFile) loadOrCreateSecretsKey(secretsKeyFile);
        return superviseWorkers(command.config, bannerOf(command.config), "pg_graphql platform");
      }
      const running = await servePlatform(command.config);
      onShutdown(() => running.close());
      if (cluster.isWorker) return reportReady(running.baseUrl, []);
      process.stdout.write(`pg_graphql platform is running\n${await bannerOf(command.config)(running.baseUrl)}\n`);
      return;
    }
    case "token":
      process.stdout.write(await runTokenCommand(command.platformDatabaseUrl, command.command));
      return;
    case "oauth-app":
      process.stdout.write(await runOAuthAppCommand(command.platformDatabaseUrl, command.command));
      return;
    case "jwt":
      process.stdout.write(await runJwtCommand(command.command, (line) => process.stderr.write(line)));
      return;
    default:
      unreachable(command, "command");
  }
}

main().catch((e: unknown) => {
  if (e instanceof ConfigError) {
    process.stderr.write(`${e.message}\n\n${usage}`);
    process.exit(2);
  }
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
