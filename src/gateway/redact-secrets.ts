/**
 * Removes what looks like a credential from text that goes to clients or logs but came from
 * elsewhere — a model server's error message may echo its own API key, the Authorization header
 * it received, or a URL with a token in it. Each match becomes `[redacted]`; the rest of the text
 * is kept so the message still says what went wrong.
 *
 * What counts as a credential (one pattern each):
 * - a bearer (or basic) credential: `Bearer <token>` (8+ characters, a digit or symbol among them);
 * - a value named like a secret: `api_key=…`, `"apiKey": "…"`, `token: …`, `password=…`,
 *   `x-api-key: …`, `access_token=…`, `secret=…` (the name is kept, the value redacted);
 * - well-known key shapes: OpenAI `sk-…`, Mortar `mk_live_…`, Hugging Face `hf_…`, GitHub `ghp_…`
 *   and kin, Slack `xox?-…`, AWS `AKIA…`, JWTs (`eyJ….eyJ….…`);
 * - long opaque strings: 32+ hexadecimal characters, or 40+ base64/base64url characters with
 *   both letters and digits. Request IDs (24 hex), UUIDs and ordinary words stay.
 */
export function redactSecrets(text: string): string {
  let out = text
  for (const [pattern, replace] of RULES) out = out.replace(pattern, replace)
  return out
}

const REDACTED = '[redacted]'

const RULES: ReadonlyArray<readonly [RegExp, (match: string, ...groups: string[]) => string]> = [
  // A token has a digit or a symbol in it: `Basic authentication failed` is no credential.
  [/\b(bearer|basic)(\s+)(?=[A-Za-z]*[0-9._~+/=-])[A-Za-z0-9._~+/=-]{8,}/gi, (_, scheme: string, space: string) => `${scheme}${space}${REDACTED}`],
  [
    /\b((?:x-)?api[_-]?key|apikey|access[_-]?token|refresh[_-]?token|auth[_-]?token|token|secret|client[_-]?secret|password|passwd)(["']?\s*[:=]\s*["']?)([^\s"'&,;)\]}<>]+)/gi,
    (_, name: string, separator: string) => `${name}${separator}${REDACTED}`,
  ],
  [/\bmk_(?:live|test)_[A-Za-z0-9]+/g, () => REDACTED],
  [/\b(?:sk|pk|rk)-[A-Za-z0-9_-]{16,}/g, () => REDACTED],
  [/\b(?:hf|ghp|gho|ghu|ghs|ghr|github_pat|glpat)_[A-Za-z0-9_]{16,}/g, () => REDACTED],
  [/\bxox[abpors]-[A-Za-z0-9-]{10,}/g, () => REDACTED],
  [/\bAKIA[0-9A-Z]{16}\b/g, () => REDACTED],
  [/\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*/g, () => REDACTED],
  [/\b[0-9A-Fa-f]{32,}\b/g, () => REDACTED],
  [/[A-Za-z0-9+/_-]{40,}={0,2}/g, (match) => (/[0-9]/.test(match) && /[A-Za-z]/.test(match) ? REDACTED : match)],
]
