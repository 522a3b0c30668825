// Outbound stage: an IP address the server is about to connect to → refused or not. Only
// ordinary global unicast addresses pass (an allow-list over the IANA special-purpose ranges, as
// ipaddr.js classifies them): loopback, private, link-local (cloud metadata at 169.254.169.254),
// CGNAT (100.64/10, Alibaba's metadata), unique-local (AWS's fd00:ec2::254), reserved,
// multicast, unspecified and the IPv6 forms that embed an IPv4 address are all refused.
import ipaddr from "ipaddr.js";

export type AddressVerdict = { kind: "public" } | { kind: "refused"; range: string };

/** Whether loopback addresses pass too (local development and tests only). */
export interface AddressRule {
  allowLoopback: boolean;
}

/** `::a.b.c.d` (deprecated): ipaddr.js calls these unicast, yet they name an IPv4 host; `::`
 * and `::1` have ranges of their own. */
function ipv4Compatible(address: ipaddr.IPv6): boolean {
  const parts = address.parts;
  return parts.slice(0, 6).every((p) => p === 0) && (parts[6] !== 0 || parts[7]! > 1);
}

export function classifyAddress(text: string, rule: AddressRule): AddressVerdict {
  if (!ipaddr.isValid(text)) return { kind: "refused", range: "not an IP address" };
  let address = ipaddr.parse(text);
  if (address instanceof ipaddr.IPv6) {
    // A mapped address reaches its IPv4 host, so that host is judged.
    if (address.isIPv4MappedAddress()) address = address.toIPv4Address();
    else if (ipv4Compatible(address)) return { kind: "refused", range: "IPv4-compatible" };
  }
  const range = address.range();
  if (range === "unicast") return { kind: "public" };
  if (range === "loopback" && rule.allowLoopback) return { kind: "public" };
  return { kind: "refused", range };
}
