import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { gatherResponseHeaders, responseHeader, responseHeaderPairs, setResponseHeader, writeResponseHead } from './response-head'

/** A server on port 0 whose one handler is `answer`; closed after each test. */
let close: (() => Promise<void>) | undefined
async function serve(answer: (res: ServerResponse) => void): Promise<string> {
  const server = createServer((req, res) => {
    req.resume()
    answer(res)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  close = () => new Promise((resolve) => server.close(() => resolve()))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`
}

afterEach(async () => {
  await close?.()
  close = undefined
})

/** What each way of setting headers gives: gathered, or Node's own. */
function answerWith(gather: boolean, seen: { pairs?: [string, string][]; type?: unknown; lengthFound?: unknown; lateSet?: unknown }) {
  return (res: ServerResponse) => {
    if (gather) gatherResponseHeaders(res)
    setResponseHeader(res, 'X-Request-Id', 'req_1')
    setResponseHeader(res, 'Content-Type', 'text/plain')
    // A later value of the same name, in another case, replaces the first in its place.
    setResponseHeader(res, 'content-type', 'application/json')
    setResponseHeader(res, 'Content-Length', 2)
    seen.type = responseHeader(res, 'CONTENT-TYPE')
    seen.lengthFound = responseHeader(res, 'content-length')
    writeResponseHead(res, 201)
    seen.pairs = responseHeaderPairs(res)
    try {
      setResponseHeader(res, 'X-Late', 'no')
    } catch (error) {
      seen.lateSet = error
    }
    res.end('{}')
  }
}

describe('response head', () => {
  it.each([true, false])('writes every header set, once, with the status (gathered: %s), and reads them back as set', async (gather) => {
    const seen: Parameters<typeof answerWith>[1] = {}
    const url = await serve(answerWith(gather, seen))
    const response = await fetch(url)
    expect(response.status).toBe(201)
    expect(response.headers.get('x-request-id')).toBe('req_1')
    expect(response.headers.get('content-type')).toBe('application/json')
    expect(response.headers.get('x-late')).toBeNull()
    expect(await response.text()).toBe('{}')
    expect(seen.type).toBe('application/json')
    expect(String(seen.lengthFound)).toBe('2')
    expect(seen.pairs).toEqual([
      ['x-request-id', 'req_1'],
      ['content-type', 'application/json'],
      ['content-length', '2'],
    ])
    // As Node refuses a header once the head is written, so does the gathered list.
    expect(seen.lateSet).toBeInstanceOf(Error)
  })
})
