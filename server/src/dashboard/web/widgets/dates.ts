// Widget support (pure): times as the API gives them (ISO text, or milliseconds) → local text.

export function localTime(value: string | number | null | undefined): string {
  if (value === null || value === undefined || value === "") return "—";
  const at = new Date(value);
  return Number.isNaN(at.getTime()) ? String(value) : at.toLocaleString();
}
