import { parseArgs } from 'node:util'
import { join } from 'node:path'
import { KeyStore } from '../gateway/auth/key-store'
import { keyStatus, ROLES, type KeyRecord, type Role } from '../gateway/auth/key-records'
import { UsageError, type CliIo } from './cli-io'
import { defaultHome } from './home'

export const KEYS_USAGE = `Usage:
  mortar keys create --name NAME [--role owner|admin|member] [--org ORG] [--expires-in DAYS|never] [--json]
  mortar keys list [--json]
  mortar keys revoke ID
  mortar keys rotate ID [--json]
Every keys command takes --home DIR (default: $MORTAR_HOME or the user's config dir).
A new key is printed once; only its hash is stored.`

/** `mortar keys …`: manage the API keys of a Mortar home. Holding the files is the authority here. */
export function runKeysCommand(argv: string[], io: CliIo): number {
  const [action, ...rest] = argv
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    strict: true,
    options: {
      home: { type: 'string' },
      name: { type: 'string' },
      role: { type: 'string' },
      org: { type: 'string' },
      'expires-in': { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  })
  const store = new KeyStore(join(values.home ?? defaultHome(), 'keys.json'))
  const print = (record: KeyRecord, key?: string) => {
    if (values.json) io.out(JSON.stringify(key === undefined ? record : { key, ...record }))
    else io.out(describe(record, key))
  }

  switch (action) {
    case 'create': {
      if (values.name === undefined) throw new UsageError('keys create needs --name NAME.')
      const created = store.create({
        name: values.name,
        role: parseRole(values.role ?? 'member'),
        ...(values.org !== undefined ? { org: values.org } : {}),
        expiresInDays: parseExpiresIn(values['expires-in']),
      })
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
        io.out('No keys yet. Create one with: mortar keys create --name NAME')
        return 0
      }
      io.out(['ID', 'NAME', 'ORG', 'ROLE', 'KEY', 'STATUS', 'EXPIRES'].join('\t'))
      for (const r of records) {
        io.out([r.id, r.name, r.org, r.role, r.hint, keyStatus(r, new Date()), r.expiresAt ?? 'never'].join('\t'))
      }
      return 0
    }
    case 'revoke': {
      const revoked = store.revoke(onlyId(positionals, 'revoke'))
      io.out(values.json ? JSON.stringify(revoked) : `Revoked ${revoked.id} (${revoked.name}). Requests with it are refused from now on; a running gateway ends its telemetry streams within a second or two.`)
      return 0
    }
    case 'rotate': {
      const rotated = store.rotate(onlyId(positionals, 'rotate'))
      print(rotated.record, rotated.key)
      if (!values.json) io.out(`The old key ${rotated.revoked.id} is revoked.`)
      return 0
    }
    default:
      throw new UsageError(action === undefined ? 'keys needs an action.' : `Unknown keys action: ${action}.`)
  }
}

function describe(record: KeyRecord, key?: string): string {
  const lines = [
    `ID:      ${record.id}`,
    `Name:    ${record.name}`,
    `Org:     ${record.org}`,
    `Role:    ${record.role}`,
    `Expires: ${record.expiresAt ?? 'never'}`,
  ]
  if (key !== undefined) lines.unshift(`Key:     ${key}`, '         (shown once: copy it now; Mortar keeps only its hash)')
  else lines.push(`Key:     ${record.hint}`)
  return lines.join('\n')
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

function onlyId(positionals: string[], action: string): string {
  if (positionals.length !== 1 || positionals[0] === undefined) throw new UsageError(`keys ${action} takes one key ID.`)
  return positionals[0]
}
