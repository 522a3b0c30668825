// Auth (Management API): a SAML identity provider's metadata XML → its entity id and signing
// certificates, read with a real XML parser (namespaces dropped, entities never expanded) and
// each certificate checked as X.509 by node. Malformed or incomplete metadata is a 400.
import { X509Certificate } from "node:crypto";
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { ApiError } from "../http/apiError";

export interface SamlMetadata {
  entityId: string;
  /** Base64 DER of each signing certificate. */
  certificates: string[];
}

type Node = Record<string, unknown>;

const repeated = new Set(["EntityDescriptor", "IDPSSODescriptor", "KeyDescriptor", "X509Data", "X509Certificate"]);
const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@_",
  removeNSPrefix: true,
  processEntities: false,
  isArray: (name) => repeated.has(name),
});

const list = (value: unknown): Node[] => (Array.isArray(value) ? (value as Node[]) : []);
const text = (value: unknown): string => (typeof value === "string" ? value : typeof (value as Node | null)?.["#text"] === "string" ? ((value as Node)["#text"] as string) : "");

function certificatesOf(idp: Node): string[] {
  const signing = list(idp["KeyDescriptor"]).filter((k) => k["@_use"] === undefined || k["@_use"] === "signing");
  const encoded = signing.flatMap((k) => list((k["KeyInfo"] as Node | undefined)?.["X509Data"]).flatMap((d) => list(d["X509Certificate"]).map(text)));
  return encoded.map((raw, i) => {
    const base64 = raw.replace(/\s+/g, "");
    try {
      new X509Certificate(Buffer.from(base64, "base64"));
    } catch {
      throw new ApiError(400, `metadata_xml: signing certificate ${i + 1} is not a valid X.509 certificate`);
    }
    return base64;
  });
}

export function parseSamlMetadata(xml: string): SamlMetadata {
  const valid = XMLValidator.validate(xml);
  if (valid !== true) throw new ApiError(400, `metadata_xml is not well-formed XML: ${valid.err.msg} (line ${valid.err.line})`);
  const document = parser.parse(xml) as Node;
  const entities = (document["EntitiesDescriptor"] as Node | undefined)?.["EntityDescriptor"] ?? document["EntityDescriptor"];
  const entity = list(entities)[0];
  if (!entity) throw new ApiError(400, "metadata_xml has no EntityDescriptor element");
  const entityId = entity["@_entityID"];
  if (typeof entityId !== "string" || entityId.trim() === "") throw new ApiError(400, "metadata_xml: the EntityDescriptor has no entityID");
  const idp = list(entity["IDPSSODescriptor"])[0];
  if (!idp) throw new ApiError(400, "metadata_xml describes no identity provider (no IDPSSODescriptor element)");
  const certificates = certificatesOf(idp);
  if (certificates.length === 0) throw new ApiError(400, "metadata_xml: the identity provider has no signing certificate (KeyDescriptor/X509Certificate)");
  return { entityId, certificates };
}
