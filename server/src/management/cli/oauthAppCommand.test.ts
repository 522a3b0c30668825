// Unit tests of the `oauth-app create` flags: what they parse to and what they refuse.
import { describe, expect, it } from "vitest";
import { ConfigError, parseCommand } from "../../config";

const platform = ["--platform-database-url", "postgresql://postgres@db/platform"];

describe("oauth-app create", () => {
  it("parses the organization, name, redirect URIs and scopes", () => {
    const command = parseCommand(
      ["oauth-app", "create", ...platform, "--org", "acme", "--name", "Deployer", "--redirect-uri", "https://a.example/cb", "--redirect-uri", "http://localhost:3000/cb", "--scopes", "projects:read, organizations:read"],
      {},
    );
    expect(command).toEqual({
      kind: "oauth-app",
      platformDatabaseUrl: "postgresql://postgres@db/platform",
      command: { kind: "create", organizationSlug: "acme", name: "Deployer", redirectUris: ["https://a.example/cb", "http://localhost:3000/cb"], scopes: ["projects:read", "organizations:read"] },
    });
  });

  it("refuses missing flags, bad redirect URIs and unknown actions", () => {
    expect(() => parseCommand(["oauth-app", "create", ...platform, "--name", "x", "--redirect-uri", "https://a.example/cb"], {})).toThrow("--org");
    expect(() => parseCommand(["oauth-app", "create", ...platform, "--org", "a", "--name", "x"], {})).toThrow("--redirect-uri");
    expect(() => parseCommand(["oauth-app", "create", ...platform, "--org", "a", "--name", "x", "--redirect-uri", "/relative"], {})).toThrow(ConfigError);
    expect(() => parseCommand(["oauth-app", "create", ...platform, "--org", "a", "--name", "x", "--redirect-uri", "https://a.example/cb#frag"], {})).toThrow("fragment");
    expect(() => parseCommand(["oauth-app", "delete", ...platform], {})).toThrow("use create");
    expect(() => parseCommand(["oauth-app", "create", "--org", "a", "--name", "x", "--redirect-uri", "https://a.example/cb"], {})).toThrow("platform database URL");
  });
});
