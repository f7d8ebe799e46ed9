import { DEFAULT_MODEL_ID } from '../../../../shared/api/chat-request'
import { describe, expect, it } from 'vitest'
import type { RecordedRequest } from './exchange'
import { pythonLiteral, toFetch, toOpenAiSdkPython, toOpenAiSdkTypeScript } from './export-code'

// What each code export says. That each one runs (type-checks, compiles, answers) is proven
// against a real gateway in src/integration/exports-run.test.ts.
const request: RecordedRequest = {
  url: 'http://127.0.0.1:7313/v1/chat/completions',
  headers: { 'X-Mortar-Session': 'my-agent', 'X-Mortar-Optimize': 'on' },
  body: { model: DEFAULT_MODEL_ID, messages: [{ role: 'user', content: "It's a test" }], stream: true },
}
const gatewayDefault: RecordedRequest = { ...request, body: { messages: [{ role: 'user', content: 'hi' }] }, headers: {} }

describe('toOpenAiSdkTypeScript', () => {
  it('streams with the same body and headers, and the key from the environment', () => {
    const code = toOpenAiSdkTypeScript(request)
    expect(code).toContain(`baseURL: "http://127.0.0.1:7313/v1"`)
    expect(code).toContain('apiKey: process.env.MORTAR_API_KEY')
    expect(code).toContain('"X-Mortar-Session": "my-agent"')
    expect(code).toContain('for await (const chunk of stream)')
    expect(code).toContain(`"content": "It's a test"`)
  })

  it('says stream: true explicitly and names the gateway default model, both of which the SDK needs', () => {
    const code = toOpenAiSdkTypeScript(gatewayDefault)
    expect(code).toContain('"stream": true')
    expect(code).toContain('"model": "Qwen/Qwen2.5-7B-Instruct"')
    expect(code).toContain('// The playground left the model to the gateway')
    expect(code).not.toContain('headers:')
  })

  it('prints the completion of a non-streamed request', () => {
    const code = toOpenAiSdkTypeScript({ ...request, body: { ...request.body, stream: false } })
    expect(code).toContain('const completion = await client.chat.completions.create(')
    expect(code).not.toContain('The playground left the model')
  })
})

describe('toOpenAiSdkPython', () => {
  it('passes the fields as keyword arguments, the headers as extra_headers, and Python literals', () => {
    const code = toOpenAiSdkPython({ ...request, body: { ...request.body, parallel_tool_calls: false, seed: 7, stop: null } })
    expect(code).toContain('client = OpenAI(base_url="http://127.0.0.1:7313/v1", api_key=os.environ["MORTAR_API_KEY"])')
    expect(code).toContain('    model="Qwen/Qwen2.5-7B-Instruct",')
    expect(code).toContain('    stream=True,')
    expect(code).toContain('    parallel_tool_calls=False,')
    expect(code).toContain('    stop=None,')
    expect(code).toContain('"X-Mortar-Session": "my-agent"')
    expect(code).toContain('for chunk in stream:')
  })

  it('sends a field the SDK has no argument for in extra_body, and defaults the model', () => {
    const code = toOpenAiSdkPython({ ...gatewayDefault, body: { ...gatewayDefault.body, stream: false, mortar_only: { a: [] } } })
    expect(code).toContain('    extra_body={\n        "mortar_only": {\n            "a": [],\n        },\n    },')
    expect(code).toContain('    model="Qwen/Qwen2.5-7B-Instruct",')
    expect(code).toContain('print(completion.model_dump_json(indent=2))')
  })

  it('writes JSON values as Python literals', () => {
    expect(pythonLiteral({ a: [true, false, null, 1.5, 'q"\n\u00e9'] })).toBe('{\n    "a": [\n        True,\n        False,\n        None,\n        1.5,\n        "q\\"\\n\u00e9",\n    ],\n}')
  })
})

describe('toFetch', () => {
  it('sends the body exactly as it was sent (no model added) with the headers and the key from the environment', () => {
    const code = toFetch(gatewayDefault)
    expect(code).toContain(`await fetch("http://127.0.0.1:7313/v1/chat/completions", {`)
    expect(code).toContain('Authorization: `Bearer ${process.env.MORTAR_API_KEY}`')
    expect(code).not.toContain('"model"')
    expect(code).toContain("for await (const bytes of response.body)")
    expect(toFetch(request)).toContain('"X-Mortar-Session": "my-agent",')
    expect(toFetch({ ...request, body: { ...request.body, stream: false } })).toContain('await response.json()')
  })
})
