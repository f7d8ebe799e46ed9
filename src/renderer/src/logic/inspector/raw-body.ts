/**
 * The most of a raw body the inspector puts on the page at once. Capture keeps up to 2 MiB of a
 * body, and an embeddings reply is that many digits on one line: laying it out would hold the page
 * for seconds, so the rest is shown only when asked for.
 */
export const RAW_BODY_SHOWN_CHARS = 64 * 1024

/** The part of a body to show, and how many characters are left out. */
export function rawBodyShown(text: string, all: boolean): { shown: string; hidden: number } {
  if (all || text.length <= RAW_BODY_SHOWN_CHARS) return { shown: text, hidden: 0 }
  return { shown: text.slice(0, RAW_BODY_SHOWN_CHARS), hidden: text.length - RAW_BODY_SHOWN_CHARS }
}
