import { DEFAULT_MODEL_ID } from '../../../shared/api/chat-request'
import { describe, expect, it } from 'vitest'
import { setupSnippets } from './setup-snippets'

describe('setupSnippets', () => {
  const snippets = setupSnippets({ baseUrl: 'http://127.0.0.1:7313/v1', model: DEFAULT_MODEL_ID, contextWindow: 4096 })

  it('covers the tools the README names', () => {
    expect(snippets.map((s) => s.id)).toEqual(['continue', 'cline', 'zed', 'claude-code', 'codex', 'open-webui', 'openai-ts', 'openai-python', 'curl'])
  })

  it("fills in this gateway's URL and model everywhere, and never a real key", () => {
    for (const snippet of snippets) {
      // Claude Code adds /v1/messages to the address itself.
      expect(snippet.text, snippet.id).toMatch(snippet.id === 'claude-code' ? /=http:\/\/127\.0\.0\.1:7313\n/ : /http:\/\/(127\.0\.0\.1|host\.docker\.internal):7313\/v1\b/)
      expect(snippet.text, snippet.id).not.toMatch(/mk_live_[A-Za-z0-9]{40}/)
    }
    expect(snippets.filter((s) => !s.text.includes(DEFAULT_MODEL_ID)).map((s) => s.id)).toEqual(['open-webui'])
  })

  it('gives Open WebUI (in Docker) the host.docker.internal URL its comment names', () => {
    const text = snippets.find((s) => s.id === 'open-webui')!.text
    expect(text).toContain('OPENAI_API_BASE_URL=http://host.docker.internal:7313/v1')
    expect(text).not.toContain('127.0.0.1')
  })

  it('writes the key just created where a key goes, instead of the placeholder', () => {
    const key = 'mk_live_' + 'k'.repeat(40)
    const filled = setupSnippets({ baseUrl: 'http://127.0.0.1:7313/v1', model: 'm', contextWindow: 4096, keyPlaceholder: key })
    expect(filled.filter((s) => s.text.includes(key)).map((s) => s.id)).toEqual(['continue', 'cline', 'claude-code', 'codex', 'open-webui', 'curl'])
    expect(filled.some((s) => s.text.includes('mk_live_…'))).toBe(false)
  })

  it('writes Zed settings as valid JSON with the context window', () => {
    const zed = JSON.parse(snippets.find((s) => s.id === 'zed')!.text)
    expect(zed.language_models.openai_compatible.Mortar.available_models[0].max_tokens).toBe(4096)
  })

  it('says which dialect each tool needs: OpenAI-built tools the openai one, spec-following code the mortar one, any for tools of other APIs', () => {
    expect(Object.fromEntries(snippets.map((s) => [s.id, s.dialect]))).toEqual({
      continue: 'openai',
      cline: 'openai',
      zed: 'openai',
      'claude-code': 'any',
      codex: 'any',
      'open-webui': 'openai',
      'openai-ts': 'openai',
      'openai-python': 'mortar',
      curl: 'mortar',
    })
    // In the openai dialect the SDK's own default (no `stream`) is a JSON reply.
    expect(snippets.find((s) => s.id === 'openai-ts')!.text).not.toContain('stream:')
  })

  it('gives Continue a whole config.yaml: chat, tab autocomplete and embeddings through Mortar, the same key in each', () => {
    const text = snippets.find((s) => s.id === 'continue')!.text
    expect(text.split('\n').slice(0, 4)).toEqual(['name: Mortar', 'version: 0.0.1', 'schema: v1', 'models:'])
    expect(text.match(/^ {4}roles: .*$/gm)).toEqual(['    roles: [chat, edit, apply]', '    roles: [autocomplete]', '    roles: [embed]'])
    expect(text.match(/^ {4}apiBase: .*$/gm)).toEqual(Array(3).fill('    apiBase: http://127.0.0.1:7313/v1'))
    expect(text.match(/^ {4}apiKey: .*$/gm)).toEqual(Array(3).fill('    apiKey: mk_live_…'))
  })

  it('gives Codex CLI its config.toml: Mortar as a Responses provider whose key is read from MORTAR_API_KEY', () => {
    const key = 'mk_live_' + 'c'.repeat(40)
    const text = setupSnippets({ baseUrl: 'http://127.0.0.1:7313/v1', model: DEFAULT_MODEL_ID, contextWindow: 32768, keyPlaceholder: key }).find((s) => s.id === 'codex')!.text
    const settings = text.split('\n').filter((line) => line !== '' && !line.startsWith('#'))
    expect(settings).toEqual([
      `model = "${DEFAULT_MODEL_ID}"`,
      'model_provider = "mortar"',
      'model_context_window = 32768',
      '[model_providers.mortar]',
      'name = "Mortar"',
      'base_url = "http://127.0.0.1:7313/v1"',
      'wire_api = "responses"',
      'env_key = "MORTAR_API_KEY"',
    ])
    // The key goes in the environment variable the provider names, never in the file.
    expect(text).toContain(`\n#   export MORTAR_API_KEY=${key}\n`)
    expect(text).not.toContain('cannot hold them')
  })

  it("warns in Codex CLI's config when the model's context window cannot hold Codex's own prompt", () => {
    const text = snippets.find((s) => s.id === 'codex')!.text
    expect(text).toContain("# Codex's own instructions and tools are about 10,000 tokens:\n# this model's context window (4096) cannot hold them.\n")
    expect(text).toContain('model_context_window = 4096')
  })

  it('fills in a key when given one', () => {
    const key = 'mk_live_' + 'a'.repeat(40)
    const filled = setupSnippets({ baseUrl: 'http://127.0.0.1:7313/v1', model: 'm', contextWindow: 4096, keyPlaceholder: key })
    expect(filled.find((s) => s.id === 'continue')!.text).toContain(`apiKey: ${key}`)
  })
})
