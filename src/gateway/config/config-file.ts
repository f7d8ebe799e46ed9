import { z } from 'zod'
import { DEFAULT_MODEL_ID } from '../../shared/api/chat-request'
import { captureModeSchema } from '../../shared/api/traffic'
import { dialectSchema } from '../../shared/api/dialect'
import { optimizerModeSchema, organizationOptimizeSchema } from '../../shared/api/optimizer'
import { TOKENIZER_NAMES } from '../tokens/tokenizer-registry'
import { parseJsonFile } from '../files/parse-json-file'
import { DEFAULT_KEY_CACHE_SECONDS } from '../cluster/cluster-options'

/**
 * `<home>/config.json`: the model catalog and each model's deployment. Documented in
 * docs/configuration.md. Unknown keys are errors, so a typo is reported instead of ignored.
 */
const replicaSchema = z.strictObject({
  /** The server's OpenAI base URL, e.g. http://127.0.0.1:8000/v1 (Mortar appends /chat/completions). */
  url: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }),
  /** How X-Mortar-Upstream names it; defaults to the URL's host:port. */
  name: z.string().min(1).max(100).optional(),
  /** Sent as `Authorization: Bearer …` to the server. Prefer apiKeyEnv, which keeps it out of the file. */
  apiKey: z.string().min(1).optional(),
  /** The name of an environment variable holding the server's API key. */
  apiKeyEnv: z.string().min(1).optional(),
  /** The model name the server knows (Ollama: `qwen2.5:7b`), when it differs from the catalog id. */
  model: z.string().min(1).optional(),
  /** Seconds to wait for the server's response headers before 504; overrides the deployment's. */
  timeoutSeconds: z.number().positive().max(86_400).optional(),
  /** Seconds the server may send nothing mid-reply before it fails; overrides the deployment's. */
  idleTimeoutSeconds: z.number().positive().max(86_400).optional(),
})

/** An organization's settings in `config.json`: its optimizer default, which a request's header can override. */
export const organizationSettingsSchema = z.strictObject({ optimize: organizationOptimizeSchema.optional() })
export type OrganizationSettings = z.output<typeof organizationSettingsSchema>

/** Once a model server's headers are in, how long it may be silent between chunks. */
export const DEFAULT_IDLE_TIMEOUT_SECONDS = 120


const scriptedDeploymentSchema = z.strictObject({
  kind: z.literal('scripted'),
  /** The prompt optimizer's mode for this deployment; defaults to `mortar serve --optimizer` (shadow). */
  optimizer: optimizerModeSchema.optional(),
  name: z.string().min(1).max(100).default('scripted'),
  /** Tokens per second; 0 is as fast as possible. Defaults to `mortar serve --scripted-tps`. */
  tokensPerSecond: z.number().min(0).optional(),
})

const upstreamDeploymentSchema = z.strictObject({
  kind: z.literal('upstream'),
  optimizer: optimizerModeSchema.optional(),
  name: z.string().min(1).max(100).default('upstream'),
  replicas: z.array(replicaSchema).min(1, { error: 'needs at least one replica' }),
  timeoutSeconds: z.number().positive().max(86_400).default(120),
  /** Seconds a server may send nothing between chunks of a reply before it fails with upstream_error. */
  idleTimeoutSeconds: z.number().positive().max(86_400).default(DEFAULT_IDLE_TIMEOUT_SECONDS),
  /** How long a replica that refused a connection is skipped. */
  downSeconds: z.number().min(0).max(3_600).default(30),
})

const modelSchema = z.strictObject({
  id: z.string().min(1).max(256),
  /**
   * Tokens the prompt, the reply and the template overhead must fit in. Absent: 4,096 for the
   * scripted model; for a model server, what it says when asked (or unknown: it decides).
   */
  contextWindow: z.number().int().min(256).max(10_000_000).optional(),
  /**
   * The max_tokens sent when the client sends none: absent means `mortar serve
   * --default-max-tokens`, else 1,024; null sends none (the model server's own limit applies).
   */
  defaultMaxTokens: z.number().int().positive().nullable().optional(),
  tokenizer: z.enum(TOKENIZER_NAMES).default('o200k_base'),
  ownedBy: z.string().min(1).default('mortar'),
  /** Unix seconds, for `created` in /v1/models. */
  created: z.number().int().min(0).default(1726704000),
  /** USD per million tokens, for the cost in telemetry events. */
  price: z
    .strictObject({
      inputPerMillion: z.number().min(0),
      outputPerMillion: z.number().min(0),
      cachedInputPerMillion: z.number().min(0).optional(),
    })
    .optional(),
  /** null: in the catalog, not deployed (503 model_not_available). */
  deployment: z.discriminatedUnion('kind', [scriptedDeploymentSchema, upstreamDeploymentSchema]).nullable(),
})

export const configFileSchema = z
  .strictObject({
    version: z.literal(1).default(1),
    /** The gateway's dialect for keys that don't choose one; wins over `mortar serve --dialect`. */
    dialect: dialectSchema.optional(),
    /** Left out: the default model, served by the scripted model (so a file may set only `dialect`). */
    models: z
      .array(modelSchema)
      .min(1, { error: 'needs at least one model' })
      // No contextWindow: scripted, it is the Mortar API's documented 4,096; under `--upstream`, the server is asked.
      .prefault([{ id: DEFAULT_MODEL_ID, tokenizer: 'qwen2.5', deployment: { kind: 'scripted' } }]),
    /** Per-organization settings: the optimizer default a request's header can override. */
    organizations: z.record(z.string(), organizationSettingsSchema).default({}),
    /** Traffic capture (docs/traffic.md); read at start-up, flags override it. */
    capture: z
      .strictObject({
        mode: captureModeSchema.optional(),
        /** The store's byte budget, in MiB. */
        maxMegabytes: z.number().positive().max(1_000_000).optional(),
        maxExchanges: z.number().int().min(1).max(10_000_000).optional(),
        /** One exchange above this many KiB is truncated. */
        maxExchangeKilobytes: z.number().int().min(16).max(1_000_000).optional(),
        /** Disk only: exchanges older than this are deleted. */
        retentionDays: z.number().positive().max(36_500).optional(),
      })
      .default({}),
    /** Several gateways sharing one Redis (docs/cluster.md); read at start-up, flags override it. */
    cluster: z
      .strictObject({
        /** `redis://HOST:PORT[/DB]`. */
        redis: z.string().optional(),
        /** This instance's name; default: host name and port. */
        instance: z.string().optional(),
        /** While Redis is unreachable, how long the last copy of the keys still accepts requests (docs/cluster.md). */
        keyCacheSeconds: z.int().min(1).max(86_400).default(DEFAULT_KEY_CACHE_SECONDS),
      })
      .default({ keyCacheSeconds: DEFAULT_KEY_CACHE_SECONDS }),
  })
  .superRefine((config, ctx) => {
    const seen = new Set<string>()
    config.models.forEach((model, index) => {
      if (seen.has(model.id)) ctx.addIssue({ code: 'custom', path: ['models', index, 'id'], message: `duplicates the model id '${model.id}'` })
      seen.add(model.id)
    })
  })

export type MortarConfig = z.output<typeof configFileSchema>
export type ModelConfig = MortarConfig['models'][number]
export type UpstreamDeploymentConfig = z.output<typeof upstreamDeploymentSchema>

/** With no config.json: the default model, served by the scripted model. */
export function defaultConfig(): MortarConfig {
  return configFileSchema.parse({})
}

export class ConfigError extends Error {
  override name = 'ConfigError'
}

/** Parse config.json's text; errors name the file, the field and the problem. */
export function parseConfigFile(path: string, text: string | undefined): MortarConfig {
  if (text === undefined) return defaultConfig()
  return parseJsonFile(path, text, configFileSchema, 'config file', (message) => new ConfigError(message))
}
