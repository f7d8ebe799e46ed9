import { DEFAULT_MODEL_ID } from './api/chat-request'
import { describe, expect, it } from 'vitest'
import { setupSnippets } from './setup-snippets'

describe('setupSnippets', () => {
  const snippets = setupSnippets({ baseUrl: 'http://127.0.0.1:7313/v1', model: DEFAULT_MODEL_ID, contextWindow: 4096 })

  it('covers the tools the README names', () => {
    expect(snippets.map((s) => s.id)).toEqual(['continue', 'cline', 'zed', 'open-webui', 'openai-ts', 'openai-python', 'curl'])
  })

  it("fills in this gateway's URL and model everywhere, and never a real key", () => {
    for (const snippet of snippets) {
      expect(snippet.text, snippet.id).toContain('http://127.0.0.1:7313/v1')
      expect(snippet.text, snippet.id).not.toMatch(/mk_live_[A-Za-z0-9]{40}/)
    }
    expect(snippets.filter((s) => !s.text.includes(DEFAULT_MODEL_ID)).map((s) => s.id)).toEqual(['open-webui'])
  })

  it('writes Zed settings as valid JSON with the context window', () => {
    const zed = JSON.parse(snippets.find((s) => s.id === 'zed')!.text)
    expect(zed.language_models.openai_compatible.Mortar.available_models[0].max_tokens).toBe(4096)
  })

  it('says which dialect each tool needs: OpenAI-built tools the openai one, spec-following code the mortar one', () => {
    expect(Object.fromEntries(snippets.map((s) => [s.id, s.dialect]))).toEqual({
      continue: 'openai',
      cline: 'openai',
      zed: 'openai',
      'open-webui': 'openai',
      'openai-ts': 'openai',
      'openai-python': 'mortar',
      curl: 'mortar',
    })
    // In the openai dialect the SDK's own default (no `stream`) is a JSON reply.
    expect(snippets.find((s) => s.id === 'openai-ts')!.text).not.toContain('stream:')
  })

  it('fills in a key when given one', () => {
    const key = 'mk_live_' + 'a'.repeat(40)
    const filled = setupSnippets({ baseUrl: 'http://127.0.0.1:7313/v1', model: 'm', contextWindow: 4096, keyPlaceholder: key })
    expect(filled.find((s) => s.id === 'continue')!.text).toContain(`apiKey: ${key}`)
  })
})
