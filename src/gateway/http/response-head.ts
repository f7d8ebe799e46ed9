import type { OutgoingHttpHeader, ServerResponse } from 'node:http'

/**
 * The headers of a response on the gateway's hot path (a POST to a generation endpoint), gathered
 * in one flat list and written with the status in one `writeHead(status, [name, value, …])`.
 * Node's `setHeader` validates each header, lowercases its name and files it in an object of its
 * own, which `writeHead` then walks and validates no more; a list handed to `writeHead` is
 * validated once as the head is written, and nothing else is made. A response answers with a
 * dozen such headers. Responses of every other route (Express's) gather none: these functions
 * then call Node's own, so code shared by both ways in (the front door, errors, `sendJson`) sets
 * headers one way.
 *
 * The list is a property of the response rather than a `WeakMap` entry: V8's young collections
 * treat a `WeakMap` entry as strong, which would keep every response alive until a full collection.
 */
const GATHERED = Symbol('mortar.gatheredHeaders')

interface Gathering {
  [GATHERED]?: string[] | undefined
}

const gatheredOf = (res: ServerResponse): string[] | undefined => (res as ServerResponse & Gathering)[GATHERED]

/** From now on, the response's headers are gathered until `writeResponseHead` writes them. */
export function gatherResponseHeaders(res: ServerResponse): void {
  ;(res as ServerResponse & Gathering)[GATHERED] = []
}

/** Set a header, replacing one of the same name (in any case), as `setHeader` does. */
export function setResponseHeader(res: ServerResponse, name: string, value: string | number): void {
  const fields = gatheredOf(res)
  if (fields === undefined) {
    res.setHeader(name, value)
    return
  }
  // As `setHeader`, once the head is written.
  if (res.headersSent) throw new Error(`Cannot set the header ${name} after the response's head was written`)
  const text = String(value)
  const at = indexOfName(fields, name)
  if (at === -1) fields.push(name, text)
  else fields[at + 1] = text
}

/** A header's value as set (undefined: not set). */
export function responseHeader(res: ServerResponse, name: string): OutgoingHttpHeader | undefined {
  const fields = gatheredOf(res)
  if (fields === undefined) return res.getHeader(name)
  const at = indexOfName(fields, name)
  return at === -1 ? undefined : fields[at + 1]
}

/** Write the status and the headers set, in one call. */
export function writeResponseHead(res: ServerResponse, status: number): void {
  const fields = gatheredOf(res)
  if (fields === undefined) res.writeHead(status)
  else res.writeHead(status, fields)
}

/**
 * The headers as set, in order, their names lowercased (as `getHeaderNames()` gives them). Of a
 * response that gathers none, read by name: `getHeaders()` copies them all first, at ~4× the cost.
 */
export function responseHeaderPairs(res: ServerResponse): [string, string][] {
  const pairs: [string, string][] = []
  const fields = gatheredOf(res)
  if (fields !== undefined) {
    for (let i = 0; i < fields.length; i += 2) pairs.push([fields[i]!.toLowerCase(), fields[i + 1]!])
    return pairs
  }
  for (const name of res.getHeaderNames()) {
    const value = res.getHeader(name)
    if (value === undefined) continue
    if (Array.isArray(value)) for (const one of value) pairs.push([name, one])
    else pairs.push([name, String(value)])
  }
  return pairs
}

/** Where `name` is in the flat list (compared without case), or -1. */
function indexOfName(fields: readonly string[], name: string): number {
  for (let i = 0; i < fields.length; i += 2) {
    const field = fields[i]!
    if (field === name || (field.length === name.length && field.toLowerCase() === name.toLowerCase())) return i
  }
  return -1
}
