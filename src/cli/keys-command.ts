import { parseArgs } from 'node:util'
import { join } from 'node:path'
import { FileKeyRecords } from '../gateway/auth/file-key-records'
import { KeyStore } from '../gateway/auth/key-store'
import { keyStatus, ROLES, type KeyRecord, type Role } from '../gateway/auth/key-records'
import { UsageError, type CliIo } from './cli-io'
import { defaultHome } from './home'
import { openClusterKeys, type ClusterKeys } from './cluster-keys'
import { parseDialect } from './parse-dialect'

/** Each `mortar keys` action: its synopsis and what it does (the help text is made from these). */
export const KEYS_ACTIONS = {
  create: {
    synopsis: 'mortar keys create --name NAME [--role owner|admin|member] [--org ORG] [--expires-in DAYS|never] [--dialect mortar|openai] [--json]',
    about: [
      'Makes an API key and prints it once (only its hash is stored).',
      '  --name: what it is for (shown in Traffic); --role: default member; --org: default `default`;',
      '  --expires-in: days until it expires, default 30, or never; --json: print it as JSON;',
      "  --dialect: the API dialect its requests get, whatever the gateway's (openai: OpenAI's defaults,",
      "    for clients such as the AI SDK); left out, the key gets the gateway's.",
    ],
  },
  list: { synopsis: 'mortar keys list [--json]', about: ['Lists the keys (hints only, never the keys) with their status.'] },
  revoke: { synopsis: 'mortar keys revoke ID', about: ['Revokes a key: requests with it are refused from then on, even by a running gateway.'] },
  rotate: {
    synopsis: 'mortar keys rotate ID [--json]',
    about: ['Revokes a key and makes its replacement (same name, role, org and dialect), printed once.'],
  },
  import: {
    synopsis: 'mortar keys import --redis URL [--json]',
    about: [
      "Copies the home's keys.json into a cluster's Redis (their hashes, as stored): keys already there",
      '  (same ID) are left as they are. keys.json itself is left unchanged.',
    ],
  },
} as const satisfies Record<string, { synopsis: string; about: readonly string[] }>

const HOME_LINE = [
  "Every keys command takes --home DIR (default: $MORTAR_HOME or the user's config dir), and --redis URL",
  "for a cluster's keys in Redis (default: config.json's cluster.redis; without either, the home's keys.json).",
].join('\n')

export const KEYS_USAGE = `Usage:
${Object.values(KEYS_ACTIONS)
  .map((action) => `  ${action.synopsis}`)
  .join('\n')}
${HOME_LINE}
A new key is printed once; only its hash is stored.`

/** `mortar keys --help`, or one action's help (`mortar keys create --help`). */
export function keysHelp(action: string | undefined): string {
  const known = action !== undefined && Object.hasOwn(KEYS_ACTIONS, action) ? KEYS_ACTIONS[action as keyof typeof KEYS_ACTIONS] : undefined
  if (known === undefined) return KEYS_USAGE
  return [`Usage: ${known.synopsis}`, ...known.about, HOME_LINE].join('\n')
}

/**
 * `mortar keys …`: manage the API keys of a Mortar home — or of a cluster, in Redis, with `--redis`
 * or config.json's `cluster.redis`. Holding the files (or Redis's password) is the authority here.
 */
export async function runKeysCommand(argv: string[], io: CliIo): Promise<number> {
  const [action, ...rest] = argv
  const { values, positionals } = parseKeysArgs(rest)
  if (action === undefined || !Object.hasOwn(KEYS_ACTIONS, action)) {
    throw new UsageError(`${action === undefined ? 'which action?' : `unknown action ${action}.`} Use ${Object.keys(KEYS_ACTIONS).join(', ')}.`)
  }
  const home = values.home ?? defaultHome()
  const cluster = await openClusterKeys(home, values.redis)
  const store = cluster?.store ?? new KeyStore(join(home, 'keys.json'))
  try {
    return await runAction(action as keyof typeof KEYS_ACTIONS, { store, cluster, home, values, positionals, io })
  } finally {
    store.close()
    cluster?.close()
  }
}

function parseKeysArgs(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: {
      home: { type: 'string' },
      redis: { type: 'string' },
      name: { type: 'string' },
      role: { type: 'string' },
      org: { type: 'string' },
      'expires-in': { type: 'string' },
      dialect: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  })
}

interface KeysRun {
  store: KeyStore
  cluster: ClusterKeys | undefined
  home: string
  values: ReturnType<typeof parseKeysArgs>['values']
  positionals: string[]
  io: CliIo
}

async function runAction(action: keyof typeof KEYS_ACTIONS, { store, cluster, home, values, positionals, io }: KeysRun): Promise<number> {
  const print = (record: KeyRecord, key?: string) => {
    if (values.json) io.out(JSON.stringify(key === undefined ? record : { key, ...record }))
    else io.out(describe(record, key))
  }
  switch (action) {
    case 'create': {
      if (values.name === undefined) throw new UsageError('--name NAME is required.')
      const created = await store.change(
        store.creation({
          name: values.name,
          role: parseRole(values.role ?? 'member'),
          ...(values.org !== undefined ? { org: values.org } : {}),
          expiresInDays: parseExpiresIn(values['expires-in']),
          ...(values.dialect !== undefined ? { dialect: parseDialect(values.dialect) } : {}),
        }),
      )
      print(created.record, created.key)
      return 0
    }
    case 'list': {
      const records = store.list()
      if (values.json) {
        io.out(JSON.stringify(records.map((r) => ({ ...r, status: keyStatus(r, new Date()) }))))
        return 0
      }
      if (records.length === 0) {
        io.out(`No keys yet${cluster === undefined ? '' : ' in Redis'}. Create one with: mortar keys create --name NAME`)
        return 0
      }
      io.out(['ID', 'NAME', 'ORG', 'ROLE', 'DIALECT', 'KEY', 'STATUS', 'EXPIRES'].join('\t'))
      for (const r of records) {
        io.out([r.id, r.name, r.org, r.role, describeDialect(r), r.hint, keyStatus(r, new Date()), r.expiresAt ?? 'never'].join('\t'))
      }
      return 0
    }
    case 'revoke': {
      const revoked = await store.change(store.revocation(onlyId(positionals)))
      const reach = cluster === undefined ? 'a running gateway ends its telemetry streams within a second or two' : 'every instance of the cluster refuses it within a second'
      io.out(values.json ? JSON.stringify(revoked) : `Revoked ${revoked.id} (${revoked.name}). Requests with it are refused from now on; ${reach}.`)
      return 0
    }
    case 'rotate': {
      const rotated = await store.change(store.rotation(onlyId(positionals)))
      print(rotated.record, rotated.key)
      if (!values.json) io.out(`The old key ${rotated.revoked.id} is revoked.`)
      return 0
    }
    case 'import': {
      if (cluster === undefined) throw new UsageError("import copies keys.json into a cluster's Redis: give --redis URL (or set config.json's cluster.redis).")
      const file = new FileKeyRecords(join(home, 'keys.json'))
      let fromFile: KeyRecord[]
      try {
        fromFile = file.read({ strict: true }).records
      } finally {
        file.close()
      }
      const imported = await store.change(importing(fromFile))
      if (values.json) io.out(JSON.stringify(imported))
      else io.out(`Imported ${imported.imported.length} of ${fromFile.length} keys from ${join(home, 'keys.json')} into Redis${imported.present.length > 0 ? ` (${imported.present.length} already there, left as they are)` : ''}.`)
      return 0
    }
  }
}

/** Records not yet in the store (by ID) are added as they are; a record whose key hash is already there under another ID is left out too. */
function importing(fromFile: readonly KeyRecord[]) {
  return (records: readonly KeyRecord[]) => {
    const ids = new Set(records.map((r) => r.id))
    const hashes = new Set(records.map((r) => r.hash))
    const added = fromFile.filter((r) => !ids.has(r.id) && !hashes.has(r.hash))
    const result = { imported: added.map((r) => r.id), present: fromFile.filter((r) => !added.includes(r)).map((r) => r.id) }
    return { records: added.length === 0 ? records : [...records, ...added], result }
  }
}

function describe(record: KeyRecord, key?: string): string {
  const lines = [
    `ID:      ${record.id}`,
    `Name:    ${record.name}`,
    `Org:     ${record.org}`,
    `Role:    ${record.role}`,
    `Dialect: ${describeDialect(record)}`,
    `Expires: ${record.expiresAt ?? 'never'}`,
  ]
  if (key !== undefined) lines.unshift(`Key:     ${key}`, '         (shown once: copy it now; Mortar keeps only its hash)')
  else lines.push(`Key:     ${record.hint}`)
  return lines.join('\n')
}

/** A key without its own dialect gets the gateway's: say so rather than print nothing. */
function describeDialect(record: KeyRecord): string {
  return record.dialect ?? 'gateway'
}

function parseRole(value: string): Role {
  if ((ROLES as readonly string[]).includes(value)) return value as Role
  throw new UsageError(`--role takes one of ${ROLES.join(', ')}; got ${JSON.stringify(value)}.`)
}

function parseExpiresIn(value: string | undefined): number | null | undefined {
  if (value === undefined) return undefined
  if (value === 'never') return null
  const days = Number(value)
  if (!/^\d+$/.test(value) || days < 1) throw new UsageError('--expires-in takes a whole number of days, or `never`.')
  return days
}

function onlyId(positionals: string[]): string {
  if (positionals.length !== 1 || positionals[0] === undefined) throw new UsageError(`needs one key ID (the ID column of mortar keys list); got ${positionals.length === 0 ? 'none' : positionals.join(' ')}.`)
  return positionals[0]
}
