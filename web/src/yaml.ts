// JSON values printed as YAML (block style, as gcloud's `describe` prints a job).

function scalar(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  const text = String(value);
  const plain = /^[A-Za-z0-9_./@+-][A-Za-z0-9_ ./@+:=-]*$/.test(text) && !/[: ]$/.test(text);
  const reserved = /^(true|false|null|yes|no|on|off|~|[-+]?[0-9.]+(e[-+]?[0-9]+)?)$/i.test(text);
  return plain && !reserved && !text.includes(": ") ? text : JSON.stringify(text);
}

export function toYaml(value: unknown, indent = ""): string {
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    return value
      .map((item) => {
        const inner = toYaml(item, indent + "  ");
        return `${indent}- ${isBlock(item) ? inner.trimStart() : inner}`;
      })
      .join("\n");
  }
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0) return "{}";
    return entries
      .map(([key, item]) =>
        isBlock(item)
          ? `${indent}${scalar(key)}:\n${toYaml(item, indent + "  ")}`
          : `${indent}${scalar(key)}: ${toYaml(item, indent + "  ")}`,
      )
      .join("\n");
  }
  return scalar(value);
}

function isBlock(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0;
  return value !== null && typeof value === "object" && Object.keys(value).length > 0;
}
