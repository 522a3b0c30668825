// Settings stage (pure): a network as text → PostgreSQL's `cidr` reading of it (family, canonical
// text), computed here rather than by a query: what the platform writes into pg_hba.conf must
// not come from a database a tenant controls. Accepts what the `cidr` type accepts, including
// IPv4's abbreviated and classful forms, and refuses host bits right of the mask.

export type Cidr = { kind: "cidr"; family: 4 | 6; text: string } | { kind: "invalid"; message: string };

function syntax(text: string): Cidr {
  return { kind: "invalid", message: `invalid input syntax for type cidr: "${text}"` };
}

function bitsRightOfMask(text: string): Cidr {
  return { kind: "invalid", message: `invalid cidr value: "${text}"` };
}

function prefixLength(text: string | undefined, max: number): number | undefined | null {
  if (text === undefined) return undefined;
  if (!/^\d{1,3}$/.test(text) || Number(text) > max) return null;
  return Number(text);
}

function hostBitsZero(bytes: number[], bits: number): boolean {
  return bytes.every((byte, i) => {
    const keep = Math.max(0, Math.min(8, bits - i * 8));
    return (byte & (0xff >> keep)) === 0;
  });
}

// PostgreSQL's inet_cidr_pton_ipv4: 1 to 4 octets, the mask implied from the first octet's class
// when absent, and never narrower than the octets written.
function ipv4(text: string, address: string, maskText: string | undefined): Cidr {
  const parts = address.split(".");
  if (parts.length > 4 || parts.some((p) => !/^\d{1,3}$/.test(p) || Number(p) > 255)) return syntax(text);
  const octets = parts.map(Number);
  let bits = prefixLength(maskText, 32);
  if (bits === null) return syntax(text);
  if (bits === undefined) {
    const first = octets[0]!;
    bits = first >= 240 ? 32 : first >= 224 ? 8 : first >= 192 ? 24 : first >= 128 ? 16 : 8;
    if (bits < octets.length * 8) bits = octets.length * 8;
  }
  const bytes = [...octets, 0, 0, 0, 0].slice(0, 4);
  if (!hostBitsZero(bytes, bits)) return bitsRightOfMask(text);
  return { kind: "cidr", family: 4, text: `${bytes.join(".")}/${bits}` };
}

/** The 16 bytes of an IPv6 address (with an IPv4 tail allowed), or undefined. */
function ipv6Bytes(address: string): number[] | undefined {
  let head = address;
  const tail: number[] = [];
  const dotted = /^(.*:)(\d{1,3}(?:\.\d{1,3}){3})$/.exec(address);
  if (dotted) {
    const octets = dotted[2]!.split(".").map(Number);
    if (octets.some((o) => o > 255)) return undefined;
    tail.push(...octets);
    head = dotted[1]!.endsWith("::") ? dotted[1]! : dotted[1]!.slice(0, -1);
  }
  const halves = head.split("::");
  if (halves.length > 2) return undefined;
  const groups = (part: string) => (part === "" ? [] : part.split(":"));
  const left = groups(halves[0]!);
  const right = halves.length === 2 ? groups(halves[1]!) : [];
  if ([...left, ...right].some((g) => !/^[0-9a-fA-F]{1,4}$/.test(g))) return undefined;
  const wanted = 8 - tail.length / 2;
  const missing = wanted - left.length - right.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const words = [...left, ...Array<string>(halves.length === 2 ? missing : 0).fill("0"), ...right].map((g) => parseInt(g, 16));
  return [...words.flatMap((w) => [w >> 8, w & 0xff]), ...tail];
}

/** RFC 5952 text: lowercase, the longest run of two or more zero groups as `::`, the IPv4 forms dotted. */
function ipv6Text(bytes: number[]): string {
  const words = Array.from({ length: 8 }, (_, i) => (bytes[2 * i]! << 8) | bytes[2 * i + 1]!);
  const mapped = words.slice(0, 5).every((w) => w === 0) && (words[5] === 0xffff || (words[5] === 0 && words[6] !== 0));
  const shown = mapped ? words.slice(0, 6) : words;
  let best = { at: -1, length: 0 };
  for (let i = 0; i < shown.length; ) {
    if (shown[i] !== 0) {
      i += 1;
      continue;
    }
    let j = i;
    while (j < shown.length && shown[j] === 0) j += 1;
    if (j - i > best.length) best = { at: i, length: j - i };
    i = j;
  }
  const hex = shown.map((w) => w.toString(16));
  let text: string;
  if (best.length >= 2) {
    const before = hex.slice(0, best.at).join(":");
    const after = hex.slice(best.at + best.length).join(":");
    text = `${before}::${after}`;
  } else text = hex.join(":");
  if (!mapped) return text;
  const v4 = bytes.slice(12).join(".");
  return text.endsWith(":") ? `${text}${v4}` : `${text}:${v4}`;
}

function ipv6(text: string, address: string, maskText: string | undefined): Cidr {
  const bytes = ipv6Bytes(address);
  if (!bytes) return syntax(text);
  const bits = prefixLength(maskText, 128);
  if (bits === null) return syntax(text);
  const length = bits ?? 128;
  if (!hostBitsZero(bytes, length)) return bitsRightOfMask(text);
  return { kind: "cidr", family: 6, text: `${ipv6Text(bytes)}/${length}` };
}

export function parseCidr(text: string): Cidr {
  const slash = text.indexOf("/");
  const address = slash < 0 ? text : text.slice(0, slash);
  const mask = slash < 0 ? undefined : text.slice(slash + 1);
  if (address.includes(":")) return ipv6(text, address, mask);
  if (/^[\d.]+$/.test(address) && !address.endsWith(".") && !address.startsWith(".")) return ipv4(text, address, mask);
  return syntax(text);
}
