import type { Dialect } from '../../../shared/api/dialect'

/**
 * Copy-ready setup for the tools people point at Mortar (the README's IDE section, filled in with
 * this gateway's URL and model). The key is a placeholder unless one was just created: keys are
 * shown once, at creation, and the snippets offer it while it is shown.
 */
export interface SetupSnippet {
  id: string
  title: string
  /** Where it goes. */
  where: string
  /**
   * The API dialect its key should have. `openai` for tools built on OpenAI's defaults (they may
   * leave `stream` out or read a `delta` on every chunk); `mortar` for code written against Mortar's own API reference;
   * `any` for tools that call only APIs no dialect changes (a dialect is chat completions' alone:
   * Anthropic's Messages and the Responses API follow their own API's defaults for every key).
   */
  dialect: Dialect | 'any'
  language: 'yaml' | 'toml' | 'json' | 'typescript' | 'python' | 'shell' | 'text'
  text: string
}

export interface SetupTarget {
  /** The OpenAI base URL, e.g. http://127.0.0.1:7313/v1 */
  baseUrl: string
  model: string
  contextWindow: number
  /** What to write where the key goes: the key just created, else a placeholder. */
  keyPlaceholder?: string
}

/**
 * About how many tokens Codex CLI's own instructions and tool definitions take before the first
 * word of the user's (measured on codex 0.169 against the scripted model): a model whose context
 * window is smaller cannot serve Codex at all.
 */
const CODEX_PROMPT_TOKENS = 10_000

export function setupSnippets(target: SetupTarget): SetupSnippet[] {
  const { baseUrl, model, contextWindow } = target
  const key = target.keyPlaceholder ?? 'mk_live_…'
  // Docker containers reach the host's loopback as host.docker.internal, not as 127.0.0.1.
  const dockerBaseUrl = baseUrl.replace(/^(https?:\/\/)(?:127\.0\.0\.1|localhost|\[::1\])(?=[:/]|$)/, '$1host.docker.internal')
  const shortName = model.split('/').at(-1) ?? model
  // The gateway's own address, for clients that add the API's path themselves (Anthropic's add /v1/messages).
  const gatewayUrl = baseUrl.replace(/\/v1\/?$/, '')
  // One entry of Continue's `models:` per role it serves through Mortar, all the same model and key.
  const continueModel = (purpose: string, roles: string) => [
    `  - name: ${shortName}${purpose} (Mortar)`,
    '    provider: openai',
    `    model: ${model}`,
    `    apiBase: ${baseUrl}`,
    `    apiKey: ${key}`,
    `    roles: ${roles}`,
  ]
  return [
    {
      id: 'continue',
      title: 'Continue',
      dialect: 'openai',
      where: '~/.continue/config.yaml',
      language: 'yaml',
      // A whole config.yaml (Continue wants its name, version and schema): chat through Mortar,
      // tab autocomplete through its POST /v1/completions and codebase indexing's embeddings
      // through its POST /v1/embeddings.
      text: [
        'name: Mortar',
        'version: 0.0.1',
        'schema: v1',
        'models:',
        ...continueModel('', '[chat, edit, apply]'),
        '  # Tab autocomplete: a FIM prompt, streamed, to /v1/completions (a model server must',
        '  # offer /v1/completions itself; a prompt is never wrapped in a chat template).',
        ...continueModel(' autocomplete', '[autocomplete]'),
        '  # Codebase indexing: the model must embed (the scripted model does; a model server',
        '  # needs /v1/embeddings for it, or name an embedding model of your config.json here).',
        ...continueModel(' embeddings', '[embed]'),
        '',
      ].join('\n'),
    },
    {
      id: 'cline',
      title: 'Cline',
      dialect: 'openai',
      where: 'Cline settings → API Provider',
      language: 'text',
      text: [
        'API Provider: OpenAI Compatible',
        `Base URL: ${baseUrl}`,
        `API Key: ${key}`,
        `Model ID: ${model}`,
        `Context window: ${contextWindow}`,
        '',
      ].join('\n'),
    },
    {
      id: 'zed',
      title: 'Zed',
      dialect: 'openai',
      where: 'settings.json (Zed then asks for the API key in its agent settings)',
      language: 'json',
      text:
        JSON.stringify(
          {
            language_models: {
              openai_compatible: {
                Mortar: {
                  api_url: baseUrl,
                  available_models: [{ name: model, display_name: `${shortName} (Mortar)`, max_tokens: contextWindow }],
                },
              },
            },
          },
          null,
          2,
        ) + '\n',
    },
    {
      id: 'claude-code',
      title: 'Claude Code',
      // It speaks Anthropic's Messages API, whose replies no dialect changes.
      dialect: 'any',
      where: 'a terminal (or the "env" block of ~/.claude/settings.json)',
      language: 'shell',
      text: [
        '# Claude Code posts to <base URL>/v1/messages: the base URL has no /v1.',
        `export ANTHROPIC_BASE_URL=${gatewayUrl}`,
        `export ANTHROPIC_AUTH_TOKEN=${key}`,
        `export ANTHROPIC_MODEL=${model}`,
        `export ANTHROPIC_DEFAULT_HAIKU_MODEL=${model}`,
        'claude',
        '',
      ].join('\n'),
    },
    {
      id: 'codex',
      title: 'Codex CLI',
      // It speaks only the Responses API, whose replies no dialect changes.
      dialect: 'any',
      where: '~/.codex/config.toml (Codex reads the key from MORTAR_API_KEY)',
      language: 'toml',
      text: [
        '# Codex reads the key from MORTAR_API_KEY: in a terminal,',
        `#   export MORTAR_API_KEY=${key}`,
        '# then run codex (or codex exec "…").',
        ...(contextWindow < CODEX_PROMPT_TOKENS
          ? [
              `# Codex's own instructions and tools are about ${CODEX_PROMPT_TOKENS.toLocaleString('en-US')} tokens:`,
              `# this model's context window (${contextWindow}) cannot hold them.`,
            ]
          : []),
        `model = ${JSON.stringify(model)}`,
        'model_provider = "mortar"',
        // Codex knows no window for a model it has no metadata of: this one's is a fact of the catalog.
        `model_context_window = ${contextWindow}`,
        '',
        '[model_providers.mortar]',
        'name = "Mortar"',
        `base_url = ${JSON.stringify(baseUrl)}`,
        'wire_api = "responses"',
        'env_key = "MORTAR_API_KEY"',
        '',
      ].join('\n'),
    },
    {
      id: 'open-webui',
      title: 'Open WebUI',
      dialect: 'openai',
      where: 'Admin Settings → Connections → OpenAI API, or the environment',
      language: 'shell',
      text: [
        '# Open WebUI in Docker reaches the host as host.docker.internal: start Mortar with',
        '# --allow-host host.docker.internal (and --host 0.0.0.0) for that.',
        `OPENAI_API_BASE_URL=${dockerBaseUrl}`,
        `OPENAI_API_KEY=${key}`,
        '',
      ].join('\n'),
    },
    {
      id: 'openai-ts',
      title: 'OpenAI SDK (TypeScript)',
      where: 'npm install openai',
      dialect: 'openai',
      language: 'typescript',
      text: [
        "import OpenAI from 'openai'",
        '',
        '// A key in the openai dialect: `stream` left out means JSON, and parse() and stream() helpers work.',
        `const client = new OpenAI({ baseURL: ${JSON.stringify(baseUrl)}, apiKey: process.env.MORTAR_API_KEY })`,
        'const completion = await client.chat.completions.create({',
        `  model: ${JSON.stringify(model)},`,
        "  messages: [{ role: 'user', content: 'Hello' }],",
        '})',
        'console.log(completion.choices[0]?.message.content)',
        '',
      ].join('\n'),
    },
    {
      id: 'openai-python',
      title: 'OpenAI SDK (Python)',
      dialect: 'mortar',
      where: 'pip install openai',
      language: 'python',
      text: [
        'import os',
        'from openai import OpenAI',
        '',
        `client = OpenAI(base_url=${JSON.stringify(baseUrl)}, api_key=os.environ["MORTAR_API_KEY"])`,
        'stream = client.chat.completions.create(',
        `    model=${JSON.stringify(model)},`,
        '    messages=[{"role": "user", "content": "Hello"}],',
        '    stream=True, stream_options={"include_usage": True},',
        ')',
        'for chunk in stream:',
        '    if chunk.choices and chunk.choices[0].delta.content:',
        '        print(chunk.choices[0].delta.content, end="", flush=True)',
        '',
      ].join('\n'),
    },
    {
      id: 'curl',
      title: 'curl',
      dialect: 'mortar',
      where: 'a terminal',
      language: 'shell',
      text: [
        `export MORTAR_API_KEY=${key}`,
        `curl -N ${baseUrl}/chat/completions \\`,
        '  -H "Authorization: Bearer $MORTAR_API_KEY" \\',
        `  -d '{"model": ${JSON.stringify(model)}, "messages": [{"role": "user", "content": "Hello, Mortar"}]}'`,
        '',
      ].join('\n'),
    },
  ]
}
