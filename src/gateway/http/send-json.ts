import type { ServerResponse } from 'node:http'
import type { OutgoingJson } from './json-splice'
import { recorderOf } from '../capture/exchange-recorder'
import { setResponseHeader, writeResponseHead } from './response-head'

/**
 * Answer with `body` as JSON, written by `serialize` when given: one that gives JSON.stringify's
 * text faster for what it knows, as text or as bytes partly at hand (a long text's remembered
 * JSON), which go to the socket as they are.
 */
export function sendJson(res: ServerResponse, status: number, body: unknown, serialize?: (body: unknown) => OutgoingJson): void {
  const payload = serialize === undefined ? JSON.stringify(body) : serialize(body)
  setResponseHeader(res, 'Content-Type', 'application/json; charset=utf-8')
  if (typeof payload === 'string') {
    setResponseHeader(res, 'Content-Length', Buffer.byteLength(payload))
    writeResponseHead(res, status)
    res.end(payload)
    return
  }
  // Capture keeps the text it was written from, and these bytes, rather than decode what it sees written.
  const recorder = recorderOf(res.req)
  if (recorder !== undefined) recorder.replyJson = payload
  const { chunks, length } = payload.bytes
  setResponseHeader(res, 'Content-Length', length)
  writeResponseHead(res, status)
  // Written in one tick, the pieces leave in one writev (Node corks the socket until the next tick).
  for (let i = 0; i < chunks.length - 1; i++) res.write(chunks[i])
  res.end(chunks[chunks.length - 1])
}
