import { topLevelMembers } from '../../http/json-members'

/**
 * Echoed members shorter than this in all are parsed with the rest: cutting them out costs a copy
 * of the reply's other text, more than parsing a short value.
 */
const SHORTEST_CUT_CHARS = 16_384

/**
 * `JSON.parse` of a model server's whole reply, except that the top-level members named in
 * `unread` — what the reply repeats of its request and the gateway never reads, a Responses
 * object's `instructions` and `tools` — are parsed as null when they are long. An agent's system
 * prompt comes back whole in each such reply; parsing it makes a string as long, which past 128 KB
 * V8 allocates apart, at a cost of its own. The members are found by one scan that leaps over
 * strings (`topLevelMembers`), and the rest of the text is parsed. A reply that is not JSON where it
 * is read throws as `JSON.parse` does: when the scan finds no members, or what is left does not
 * parse, the whole text is parsed, and gives `JSON.parse`'s own error. What is inside a member left
 * unparsed is not looked at, as a stream's unread events are not: the reply is judged by what the
 * gateway reads of it.
 */
export function parseWholeReply(text: string, unread: ReadonlySet<string> | undefined): unknown {
  if (unread === undefined || text.length < SHORTEST_CUT_CHARS) return JSON.parse(text)
  const members = topLevelMembers(text)
  if (members === undefined) return JSON.parse(text)
  const spans = [...unread].flatMap((name) => members.get(name) ?? []).sort((a, b) => a.start - b.start)
  if (spans.reduce((chars, { start, end }) => chars + end - start, 0) < SHORTEST_CUT_CHARS) return JSON.parse(text)
  let rest = ''
  let from = 0
  for (const { start, end } of spans) {
    rest += text.slice(from, start) + 'null'
    from = end
  }
  rest += text.slice(from)
  try {
    return JSON.parse(rest)
  } catch {
    return JSON.parse(text)
  }
}
