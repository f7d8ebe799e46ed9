import type { IncomingMessage } from 'node:http'

const received = new WeakMap<IncomingMessage, string>()

/**
 * Clients configured with a bare host (`http://127.0.0.1:7313`, llama.cpp's convention, which
 * Continue's llama.cpp provider follows) call `/chat/completions`, `/models`… without `/v1`. A
 * request whose path starts with one of the API's route roots (any case, as Express matches) is
 * answered as its `/v1` spelling: rewritten before anything reads it, so the front door
 * authenticates it, capture records it and the routes answer it exactly as under `/v1`. Nothing
 * else moves: `/health`, the UI and unknown paths stay where they are. The target as the client
 * sent it stays known, for Traffic (`receivedUrlOf`).
 */
export function v1Aliases(roots: readonly string[]): (req: IncomingMessage) => void {
  const names = new Set(roots.map((root) => root.toLowerCase()))
  return (req) => {
    const { url } = req
    // The common case, a /v1 path, costs one comparison.
    if (url === undefined || url.startsWith('/v1/') || url.charCodeAt(0) !== 0x2f) return
    if (!names.has(url.slice(1, firstSegmentEnd(url)).toLowerCase())) return
    received.set(req, url)
    req.url = '/v1' + url
  }
}

/** Where the path's first segment ends: at the next `/`, the query, or the end. */
function firstSegmentEnd(url: string): number {
  for (let i = 1; i < url.length; i++) {
    const char = url.charCodeAt(i)
    if (char === 0x2f || char === 0x3f) return i
  }
  return url.length
}

/** The request target as the client sent it, before a bare path was given its `/v1`. */
export function receivedUrlOf(req: IncomingMessage): string {
  return received.get(req) ?? req.url ?? ''
}
