import { topLevelMembers } from '../../http/json-members'
import { BACKSLASH, CLOSE_BRACE, CLOSE_BRACKET, COLON, CR, LF, OPEN_BRACE, OPEN_BRACKET, QUOTE, SPACE, TAB } from '../../http/json-char-codes'

/**
 * Echoed members shorter than this in all are parsed with the rest: cutting them out costs a copy
 * of the reply's other text, more than parsing a short value.
 */
const SHORTEST_CUT_CHARS = 16_384

/** A model server's whole reply: its bytes, and its text (made of pieces when long: decode-in-pieces.ts). */
export interface ReplyBody {
  readonly bytes: Buffer
  readonly text: string
}

/**
 * `JSON.parse` of a model server's whole reply, except that the top-level members named in
 * `unread` — what the reply repeats of its request and the gateway never reads, a Responses
 * object's `instructions` and `tools` — are parsed as null when they are long. An agent's system
 * prompt comes back whole in each such reply; parsing it makes a string as long, which past 128 KB
 * V8 allocates apart, at a cost of its own — and so does making the reply's text one string.
 *
 * The members are first looked for in the bytes (`withoutLongMembers`), so that neither the reply
 * nor the members become long strings; failing that, in the text, by one scan that leaps over
 * strings (`topLevelMembers`), and the rest of the text is parsed. A reply that is not JSON where
 * it is read throws as `JSON.parse` does: when no members are found, or what is left does not
 * parse, the whole text is parsed, and gives `JSON.parse`'s own error. What is inside a member left
 * unparsed is not looked at, as a stream's unread events are not: the reply is judged by what the
 * gateway reads of it.
 */
export function parseWholeReply(reply: ReplyBody, unread: ReadonlySet<string> | undefined): unknown {
  if (unread === undefined || reply.bytes.length < SHORTEST_CUT_CHARS) return JSON.parse(reply.text)
  return withoutLongMembers(reply.bytes, unread) ?? parseText(reply.text, unread)
}

function parseText(text: string, unread: ReadonlySet<string>): unknown {
  const members = topLevelMembers(text)
  if (members === undefined) return JSON.parse(text)
  const spans = [...unread].flatMap((name) => members.get(name) ?? []).sort((a, b) => a.start - b.start)
  if (spans.reduce((chars, { start, end }) => chars + end - start, 0) < SHORTEST_CUT_CHARS) return JSON.parse(text)
  const rest = withNulls(spans, text.length, (from, to) => text.slice(from, to))
  try {
    return JSON.parse(rest)
  } catch {
    return JSON.parse(text)
  }
}

/**
 * The reply parsed from its bytes with the `unread` members as null, when each is found at most
 * once in the bytes, as a name followed by a colon outside any string, and they are long in all;
 * undefined otherwise (the caller parses the text). The rest — small — is decoded and parsed, and
 * must be an object whose members of the names cut are null: the nulls it was given, so each was
 * a member of the reply itself, not of an object inside it (a name found once and cut inside an
 * object leaves the reply without it, or with its own value). Structural bytes are ASCII and never
 * part of a multi-byte UTF-8 sequence, so a search of the bytes finds what a search of the text
 * would, and every cut falls between characters.
 */
export function withoutLongMembers(bytes: Buffer, unread: ReadonlySet<string>): unknown {
  const spans: Array<{ start: number; end: number; name: string }> = []
  for (const name of unread) {
    const key = Buffer.from(JSON.stringify(name))
    const at = unquotedIndex(bytes, key, 0)
    if (at === -1) continue
    if (unquotedIndex(bytes, key, at + key.length) !== -1) return undefined
    let start = skipSpace(bytes, at + key.length)
    if (bytes[start] !== COLON) return undefined
    start = skipSpace(bytes, start + 1)
    // A value that is not a string, array or object (null, say) is parsed with the rest.
    const end = valueEnd(bytes, start)
    if (end !== -1) spans.push({ start, end, name })
  }
  if (spans.reduce((size, { start, end }) => size + end - start, 0) < SHORTEST_CUT_CHARS) return undefined
  spans.sort((a, b) => a.start - b.start)
  if (spans.some((span, i) => i > 0 && span.start < spans[i - 1]!.end)) return undefined
  let parsed: unknown
  try {
    parsed = JSON.parse(withNulls(spans, bytes.length, (from, to) => bytes.toString('utf8', from, to)))
  } catch {
    return undefined
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined
  const members = parsed as Record<string, unknown>
  for (const { name } of spans) if (!Object.hasOwn(members, name) || members[name] !== null) return undefined
  return parsed
}

/** The reply without its `spans` (sorted, apart), each replaced by `null`; `piece` gives its text between two offsets. */
function withNulls(spans: ReadonlyArray<{ start: number; end: number }>, length: number, piece: (from: number, to: number) => string): string {
  let rest = ''
  let from = 0
  for (const { start, end } of spans) {
    rest += piece(from, start) + 'null'
    from = end
  }
  return rest + piece(from, length)
}

/** Where `key` (a quoted name) next occurs from `from` with its opening quote outside a string's escape; -1 when nowhere. */
function unquotedIndex(bytes: Buffer, key: Buffer, from: number): number {
  for (let at = bytes.indexOf(key, from); at !== -1; at = bytes.indexOf(key, at + 1)) {
    if (!escaped(bytes, at)) return at
  }
  return -1
}

/** Whether the byte at `at` follows an odd run of backslashes (is escaped). */
function escaped(bytes: Buffer, at: number): boolean {
  let backslashes = 0
  while (at - backslashes - 1 >= 0 && bytes[at - backslashes - 1] === BACKSLASH) backslashes++
  return backslashes % 2 === 1
}

function skipSpace(bytes: Buffer, at: number): number {
  while (at < bytes.length && (bytes[at] === SPACE || bytes[at] === LF || bytes[at] === CR || bytes[at] === TAB)) at++
  return at
}

/** The end of the string at `open` (after its closing quote); -1 when it has none. */
function stringEnd(bytes: Buffer, open: number): number {
  for (let at = bytes.indexOf(QUOTE, open + 1); at !== -1; at = bytes.indexOf(QUOTE, at + 1)) {
    if (!escaped(bytes, at)) return at + 1
  }
  return -1
}

/**
 * The end of the value at `at` — a string, or an array or object, whose strings are leapt over —
 * or -1 for any other value (too short to be worth cutting) or one without an end.
 */
function valueEnd(bytes: Buffer, at: number): number {
  if (bytes[at] === QUOTE) return stringEnd(bytes, at)
  if (bytes[at] !== OPEN_BRACKET && bytes[at] !== OPEN_BRACE) return -1
  let depth = 0
  for (let i = at; i < bytes.length; i++) {
    const byte = bytes[i]
    if (byte === QUOTE) {
      const end = stringEnd(bytes, i)
      if (end === -1) return -1
      i = end - 1
    } else if (byte === OPEN_BRACKET || byte === OPEN_BRACE) depth++
    else if (byte === CLOSE_BRACKET || byte === CLOSE_BRACE) {
      depth--
      if (depth === 0) return i + 1
    }
  }
  return -1
}
