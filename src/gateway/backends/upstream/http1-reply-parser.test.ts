import { describe, expect, it } from 'vitest'
import { headersOf, Http1ReplyParser, type ReplyHead } from './http1-reply-parser'

interface Parsed {
  head?: ReplyHead
  body: string
  end?: { reusable: boolean }
  error?: string
}

/** Feed `wire` to a parser in the given pieces, then (optionally) a close. */
function parse(pieces: readonly string[], { close = false } = {}): Parsed {
  const parsed: Parsed = { body: '' }
  const parser = new Http1ReplyParser(
    {
      head: (head) => (parsed.head = head),
      body: (bytes) => (parsed.body += bytes.toString('latin1')),
      end: (reusable) => (parsed.end = { reusable }),
      error: (message) => (parsed.error = message),
    },
    true,
  )
  for (const piece of pieces) parser.push(Buffer.from(piece, 'latin1'))
  if (close) parser.closed()
  return parsed
}

/** Every way of cutting `wire` in two, and byte by byte: a reply may arrive in any pieces. */
function everySplit(wire: string): string[][] {
  const splits = [[wire], wire.split('')]
  for (let at = 1; at < wire.length; at++) splits.push([wire.slice(0, at), wire.slice(at)])
  return splits
}

/** One chunk of a chunked body: its size in hex, optional extensions, its data. */
const chunk = (data: string, extensions = '') => `${Buffer.byteLength(data, 'latin1').toString(16)}${extensions}\r\n${data}\r\n`
const CHUNKED =
  'HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n' +
  chunk('data: {"choices":[1]}\n\n') +
  chunk('data: ', ';ext=1') +
  chunk('[DONE]\n\n' + 'abcdef'.repeat(3)) +
  '0\r\nX-Trailer: yes\r\n\r\n'

describe('Http1ReplyParser', () => {
  it('reads a Content-Length reply, however its bytes are split, and keeps the connection', () => {
    const wire = 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{"ok":true}'
    for (const pieces of everySplit(wire)) {
      const parsed = parse(pieces)
      expect(parsed.error).toBeUndefined()
      expect(parsed.head?.statusCode).toBe(200)
      expect(parsed.head?.fields.contentType).toBe('application/json')
      expect(parsed.head?.rawHeaders).toEqual(['Content-Type', 'application/json', 'Content-Length', '11'])
      expect(parsed.body).toBe('{"ok":true}')
      expect(parsed.end).toEqual({ reusable: true })
    }
  })

  it('decodes a chunked reply (extensions, trailers) split anywhere', () => {
    for (const pieces of everySplit(CHUNKED)) {
      const parsed = parse(pieces)
      expect(parsed.error).toBeUndefined()
      expect(parsed.body).toBe('data: {"choices":[1]}\n\ndata: [DONE]\n\n' + 'abcdef'.repeat(3))
      expect(parsed.end).toEqual({ reusable: true })
    }
  })

  it('reads every form of chunk-size line, whole or split, and refuses what is not hexadecimal', () => {
    const data = 'data: {"choices":[{"delta":{"content":"x"}}]}'.slice(0, 26)
    const wire = (sizeLine: string) => `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n${sizeLine}${data}\r\n0\r\n\r\n`
    // 26 bytes: 0x1a, written as servers and proxies may write it.
    for (const sizeLine of ['1a\r\n', '1A\r\n', '01a\r\n', '00000000001A\r\n', '1a\n', '1a;name=value\r\n', '1A;x\n', '1a \r\n', ' 1a\r\n', '1a\t;x\r\n', '1a\r\r\n']) {
      for (const pieces of everySplit(wire(sizeLine))) {
        const parsed = parse(pieces)
        expect(parsed.error, JSON.stringify(sizeLine)).toBeUndefined()
        expect(parsed.body).toBe(data)
        expect(parsed.end).toEqual({ reusable: true })
      }
    }
    for (const sizeLine of ['\r\n', ';x\r\n', '1g\r\n', '1a1a1a1a1a1a1a\r\n', '-1a\r\n', '0x1a\r\n', '1 a\r\n', '1a\rx\r\n']) {
      for (const pieces of everySplit(wire(sizeLine))) expect(parse(pieces).error, JSON.stringify(sizeLine)).toMatch(/hexadecimal/)
    }
  })

  it('skips interim replies (100 Continue, 103 Early Hints) before the real one', () => {
    const wire = 'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nhi'
    for (const pieces of everySplit(wire)) {
      const parsed = parse(pieces)
      expect(parsed.head?.statusCode).toBe(201)
      expect(parsed.body).toBe('hi')
      expect(parsed.end).toEqual({ reusable: true })
    }
  })

  it('reads a body that ends with the connection, which is then not reused', () => {
    const wire = 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n{"a":'
    const open = parse([wire, '1}'])
    expect(open.end).toBeUndefined()
    expect(parse([wire, '1}'], { close: true })).toMatchObject({ body: '{"a":1}', end: { reusable: false } })
  })

  it('does not reuse a connection the server is closing, or an HTTP/1.0 one that did not ask to be kept', () => {
    expect(parse(['HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n']).end).toEqual({ reusable: false })
    expect(parse(['HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n']).end).toEqual({ reusable: false })
    expect(parse(['HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 0\r\n\r\n']).end).toEqual({ reusable: true })
    // Bytes after the reply's end: out of step.
    expect(parse(['HTTP/1.1 204 No Content\r\n\r\nHTTP/1.1']).end).toEqual({ reusable: false })
  })

  it('says a reply was cut short: mid-head, mid-length, mid-chunk, or before any byte', () => {
    expect(parse([], { close: true }).error).toBe('the connection closed before any reply')
    expect(parse(['HTTP/1.1 200 OK\r\nContent-Le'], { close: true }).error).toMatch(/before the reply ended/)
    expect(parse(['HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc'], { close: true })).toMatchObject({ body: 'abc', error: expect.stringMatching(/before the reply ended/) })
    expect(parse([CHUNKED.slice(0, CHUNKED.indexOf('0\r\n'))], { close: true }).error).toMatch(/before the reply ended/)
  })

  it('takes a head whose lines end with a bare LF, and skips empty lines before the status line', () => {
    for (const pieces of everySplit('\r\nHTTP/1.1 200 OK\nContent-Length: 2\n\nok')) {
      expect(parse(pieces)).toMatchObject({ head: { statusCode: 200, rawHeaders: ['Content-Length', '2'] }, body: 'ok', end: { reusable: true } })
    }
    expect(parse(['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\nok\n0\n\n'])).toMatchObject({ body: 'ok', end: { reusable: true } })
  })

  it('turns away what is not HTTP/1.x framing', () => {
    expect(parse(['SSH-2.0-OpenSSH\r\n\r\n']).error).toMatch(/status line/)
    expect(parse(['HTTP/1.1 200 OK\r\nbad header\r\n\r\n']).error).toMatch(/malformed header/)
    expect(parse(['HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n']).error).toMatch(/Content-Length/)
    expect(parse(['HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n']).error).toMatch(/two different/)
    expect(parse(['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n']).error).toMatch(/hexadecimal/)
    expect(parse(['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabX']).error).toMatch(/CRLF/)
    expect(parse(['HTTP/1.1 101 Switching Protocols\r\n\r\n']).error).toMatch(/switched/)
    expect(parse(['HTTP/1.1 200 OK\r\n' + 'X-Pad: ' + 'a'.repeat(70 * 1024)]).error).toMatch(/too large/)
  })

  it('joins repeated fields as Node does, keeps the first of a single-valued one, lists set-cookie', () => {
    const { head } = parse(['HTTP/1.1 200 OK\r\nVary: a\r\nvary: b\r\nContent-Type: x\r\nContent-Type: y\r\nSet-Cookie: c=1\r\nSet-Cookie: d=2\r\nContent-Length: 0\r\n\r\n'])
    expect(headersOf(head?.rawHeaders ?? [])).toMatchObject({ vary: 'a, b', 'content-type': 'x', 'set-cookie': ['c=1', 'd=2'] })
    expect(head?.fields).toEqual({ contentLength: '0', contentType: 'x', transferEncoding: undefined, connection: undefined, keepAlive: undefined })
  })

  it('reads the status line as HTTP/1.0 or 1.1, three digits and an optional reason, and nothing else', () => {
    for (const [line, status] of [['HTTP/1.1 200 OK', 200], ['HTTP/1.1 404', 404], ['HTTP/1.0 503 Service Unavailable', 503], ['HTTP/1.1 200 ', 200], ['HTTP/1.1 299 Ok \u00e9t\u00e9', 299]] as const) {
      expect(parse([`${line}\r\nContent-Length: 0\r\n\r\n`]).head?.statusCode, line).toBe(status)
    }
    for (const line of ['HTTP/1.2 200 OK', 'HTTP/2 200', 'HTTP/1.1 20 OK', 'HTTP/1.1 2000 OK', 'HTTP/1.1  200 OK', 'HTTP/1.1 2x0 OK', 'http/1.1 200 OK', 'HTTP/1.1 200OK', 'HTTP/1.1 200 O\rK']) {
      expect(parse([`${line}\r\nContent-Length: 0\r\n\r\n`]).error, line).toMatch(/status line/)
    }
    expect(parse(['HTTP/1.1 200 OK\r\n: empty\r\n\r\n']).error).toMatch(/malformed header/)
    expect(parse(['HTTP/1.1 200 OK\r\nBad Name: x\r\n\r\n']).error).toMatch(/malformed header/)
    expect(parse(['HTTP/1.1 200 OK\r\nN\u00e4me: x\r\n\r\n']).error).toMatch(/malformed header/)
    expect(parse(['HTTP/1.1 200 OK\r\nContent-Length: 1234567890123456\r\n\r\n']).error).toMatch(/Content-Length/)
  })

  it('frames a reply by its repeated fields as Node joins them, whatever their names\' case', () => {
    // Transfer-Encoding sent twice: the last coding is chunked.
    expect(parse(['HTTP/1.1 200 OK\r\ntransfer-encoding: gzip\r\nTRANSFER-ENCODING: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n'])).toMatchObject({ body: 'ok', end: { reusable: true } })
    // A second Connection line that closes it.
    expect(parse(['HTTP/1.1 200 OK\r\nConnection: keep-alive\r\nconnection: Close\r\nContent-Length: 0\r\n\r\n']).end).toEqual({ reusable: false })
    // The same Content-Length twice is one length.
    expect(parse(['HTTP/1.1 200 OK\r\nContent-Length: 2\r\ncontent-length: 2\r\n\r\nok'])).toMatchObject({ body: 'ok', end: { reusable: true } })
    const { head } = parse(['HTTP/1.1 200 OK\r\nKeep-Alive: timeout=5\r\nkeep-alive: max=100\r\nCONTENT-TYPE: text/event-stream\r\nContent-Length: 0\r\n\r\n'])
    expect(head?.fields).toEqual({ contentLength: '0', contentType: 'text/event-stream', transferEncoding: undefined, connection: undefined, keepAlive: 'timeout=5, max=100' })
    expect(headersOf(head?.rawHeaders ?? [])).toEqual({ 'keep-alive': 'timeout=5, max=100', 'content-type': 'text/event-stream', 'content-length': '0' })
    // Every name is a field's, whatever Object's own properties are called.
    expect(headersOf(['Constructor', 'x', '__proto__', 'y', 'toString', 'z'])).toEqual({ constructor: 'x', ['__proto__']: 'y', tostring: 'z' })
  })

  it('prefers chunked framing over a Content-Length sent with it, and then closes the connection', () => {
    const parsed = parse(['HTTP/1.1 200 OK\r\nContent-Length: 100\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n'])
    expect(parsed).toMatchObject({ body: 'ok', end: { reusable: false } })
  })
})
