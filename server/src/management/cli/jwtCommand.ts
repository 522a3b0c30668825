// CLI stage (Management API): a project's ref → the key its user tokens are signed with today:
// its in-use signing key (asymmetric or shared), else its JWT secret. Read from the platform.
import { openPlatform } from "../services";
import { sharedSecretBytes } from "../keys/signingKeyMaterial";
import { ProjectStore } from "../tenants/projectStore";
import { SigningKeyStore } from "../keys/signingKeyStore";
import type { SigningMaterial } from "../../userToken";

export interface ProjectSigningKey {
  material: SigningMaterial;
  /** Which key it is, for the command's message. */
  described: string;
}

export async function projectSigningKey(platformDatabaseUrl: string, ref: string): Promise<ProjectSigningKey> {
  const platform = await openPlatform(platformDatabaseUrl);
  try {
    const project = await new ProjectStore(platform).byRef(ref);
    if (!project) throw new Error(`no project with ref ${ref}`);
    const inUse = (await new SigningKeyStore(platform).list(project.id)).find((k) => k.status === "in_use");
    if (!inUse || inUse.legacy) {
      return { material: { kind: "secret", secret: new TextEncoder().encode(project.jwt_secret) }, described: `project ${ref}'s JWT secret (HS256)` };
    }
    if (inUse.algorithm === "HS256") {
      return { material: { kind: "secret", secret: sharedSecretBytes(inUse.private_jwk), kid: inUse.id }, described: `project ${ref}'s signing key ${inUse.id} (HS256)` };
    }
    return {
      material: { kind: "jwk", jwk: inUse.private_jwk, algorithm: inUse.algorithm, kid: inUse.id },
      described: `project ${ref}'s signing key ${inUse.id} (${inUse.algorithm})`,
    };
  } finally {
    await platform.end();
  }
}
