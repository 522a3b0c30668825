// Auth (Management API): a SAML identity provider's metadata XML → its entity id and signing
// certificates, read with a real XML parser (namespaces dropped, entities never expanded, size and
// nesting bounded) and each certificate checked as X.509 by node. Malformed or incomplete metadata
// is a 400; for fetched metadata the message never quotes the document.
import { X509Certificate } from "node:crypto";
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { invalid } from "../errors/domainError";

export interface SamlMetadata {
  entityId: string;
  /** Base64 DER of each signing certificate. */
  certificates: string[];
}

type Node = Record<string, unknown>;

/** Where the XML came from: the tenant's own text, or a document fetched from its URL. */
export type MetadataSource = "metadata_xml" | "metadata_url";

/** Metadata of one identity provider is a few kilobytes, nested about ten levels. */
export const samlMetadataLimits = { maxBytes: 1024 * 1024, maxDepth: 32 };

const repeated = new Set(["EntityDescriptor", "IDPSSODescriptor", "KeyDescriptor", "X509Data", "X509Certificate"]);
const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@_",
  removeNSPrefix: true,
  processEntities: false,
  // Its stack of open tags holds the document node too: this many elements may nest, no more.
  maxNestedTags: samlMetadataLimits.maxDepth - 1,
  isArray: (name) => repeated.has(name),
});

const list = (value: unknown): Node[] => (Array.isArray(value) ? (value as Node[]) : []);
const text = (value: unknown): string => (typeof value === "string" ? value : typeof (value as Node | null)?.["#text"] === "string" ? ((value as Node)["#text"] as string) : "");

function certificatesOf(idp: Node, source: MetadataSource): string[] {
  const signing = list(idp["KeyDescriptor"]).filter((k) => k["@_use"] === undefined || k["@_use"] === "signing");
  const encoded = signing.flatMap((k) => list((k["KeyInfo"] as Node | undefined)?.["X509Data"]).flatMap((d) => list(d["X509Certificate"]).map(text)));
  return encoded.map((raw, i) => {
    const base64 = raw.replace(/\s+/g, "");
    try {
      new X509Certificate(Buffer.from(base64, "base64"));
    } catch {
      throw invalid(`${source}: signing certificate ${i + 1} is not a valid X.509 certificate`);
    }
    return base64;
  });
}

/** The parsed document, after the checks that keep the parser's work bounded. */
function parsed(xml: string, source: MetadataSource): Node {
  if (Buffer.byteLength(xml, "utf8") > samlMetadataLimits.maxBytes) {
    throw invalid(`${source}: the metadata is larger than ${samlMetadataLimits.maxBytes / (1024 * 1024)} MiB`);
  }
  // The validator keeps its own stack of open tags (no recursion), so it is safe at any depth.
  const valid = XMLValidator.validate(xml);
  if (valid !== true) {
    const detail = source === "metadata_xml" ? `: ${valid.err.msg} (line ${valid.err.line})` : "";
    throw invalid(`${source} is not well-formed XML${detail}`);
  }
  try {
    return parser.parse(xml) as Node;
  } catch (e) {
    // The parser stops at maxNestedTags, before its recursive steps could exhaust the stack.
    if (/nested/i.test((e as Error).message)) throw invalid(`${source}: the metadata nests elements deeper than ${samlMetadataLimits.maxDepth} levels`);
    throw invalid(`${source} could not be read as XML`);
  }
}

export function parseSamlMetadata(xml: string, source: MetadataSource): SamlMetadata {
  const document = parsed(xml, source);
  const entities = (document["EntitiesDescriptor"] as Node | undefined)?.["EntityDescriptor"] ?? document["EntityDescriptor"];
  const entity = list(entities)[0];
  if (!entity) throw invalid(`${source} has no EntityDescriptor element`);
  const entityId = entity["@_entityID"];
  if (typeof entityId !== "string" || entityId.trim() === "") throw invalid(`${source}: the EntityDescriptor has no entityID`);
  const idp = list(entity["IDPSSODescriptor"])[0];
  if (!idp) throw invalid(`${source} describes no identity provider (no IDPSSODescriptor element)`);
  const certificates = certificatesOf(idp, source);
  if (certificates.length === 0) throw invalid(`${source}: the identity provider has no signing certificate (KeyDescriptor/X509Certificate)`);
  return { entityId, certificates };
}
