import { DEFAULT_MODEL_ID } from '../../../../shared/api/chat-request'
import { describe, expect, it } from 'vitest'
import type { RecordedRequest } from './exchange'
import { baseUrlOf, shellQuote, toCurl, toJsonl } from './exports'
import { StreamFrameRecorder } from './stream-frames'

const request: RecordedRequest = {
  url: 'http://127.0.0.1:7313/v1/chat/completions',
  headers: { 'X-Mortar-Session': 'my-agent', 'X-Mortar-Optimize': 'on' },
  body: { model: DEFAULT_MODEL_ID, messages: [{ role: 'user', content: "It's a test" }], stream: true },
}

describe('toCurl', () => {
  it('repeats the request with the key from the environment', () => {
    const curl = toCurl(request)
    expect(curl).toContain("curl -N 'http://127.0.0.1:7313/v1/chat/completions'")
    expect(curl).toContain('-H "Authorization: Bearer $MORTAR_API_KEY"')
    expect(curl).toContain("-H 'X-Mortar-Session: my-agent'")
    expect(curl).not.toContain('mk_live_')
  })

  it('quotes the body so a shell passes it through byte for byte', () => {
    const quoted = shellQuote(JSON.stringify(request.body))
    // How a POSIX shell reads it: outer quotes removed, each '\'' is one quote.
    expect(quoted.startsWith("'") && quoted.endsWith("'")).toBe(true)
    const unquoted = quoted.slice(1, -1).split(`'\\''`).join("'")
    expect(JSON.parse(unquoted)).toEqual(request.body)
    expect(quoted).toContain(`It'\\''s a test`)
    expect(toCurl(request)).toContain(`--data-raw ${quoted}`)
  })

  it("repeats a captured request's method and its body as received", () => {
    const get = toCurl({ ...request, headers: {}, method: 'GET', bodyText: '' })
    expect(get).toBe(`curl -N 'http://127.0.0.1:7313/v1/chat/completions' \\\n  -H "Authorization: Bearer $MORTAR_API_KEY"`)
    const refused = toCurl({ ...request, headers: {}, method: 'POST', bodyText: '{not json' })
    expect(refused).toContain(`--data-raw '{not json'`)
    expect(refused).not.toContain('-X ')
    expect(toCurl({ ...request, method: 'DELETE', bodyText: '' })).toContain("curl -N -X DELETE 'http://")
  })
})

describe('toJsonl', () => {
  it('writes one line per frame with its timings and exact text', () => {
    const recorder = new StreamFrameRecorder()
    const frames = [...recorder.push('data: {"choices":[]}\n\n: ping\n\n', 12.5), ...recorder.push('data: [DONE]\n\n', 20)]
    const lines = toJsonl(frames).trimEnd().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>)
    expect(lines).toEqual([
      { seq: 0, at_ms: 12.5, dt_ms: 12.5, kind: 'chunk', raw: 'data: {"choices":[]}\n\n' },
      { seq: 1, at_ms: 12.5, dt_ms: 0, kind: 'ping', raw: ': ping\n\n' },
      { seq: 2, at_ms: 20, dt_ms: 7.5, kind: 'done', raw: 'data: [DONE]\n\n' },
    ])
  })
})

describe('baseUrlOf', () => {
  it('derives the base URL', () => {
    expect(baseUrlOf('http://h:1/v1/chat/completions')).toBe('http://h:1/v1')
  })
})
