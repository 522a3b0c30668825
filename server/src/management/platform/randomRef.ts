// Platform store: identifiers shaped as the hosted service shapes them (project refs and
// organization slugs: 20 lowercase letters).
import { randomInt } from "node:crypto";

export function randomRef(): string {
  let ref = "";
  for (let i = 0; i < 20; i++) ref += String.fromCharCode(97 + randomInt(26));
  return ref;
}
