import { useState } from 'react'
import { DIALECTS, type Dialect } from '../../../../shared/api/dialect'
import { KEY_ROLES, type ApiKeyObject, type CreateKeyRequest, type KeyRole } from '../../../../shared/api/keys'
import type { ApiKeysState } from '../../hooks/use-api-keys'
import { CopyButton } from '../common/CopyButton'
import { MessageText } from '../common/MessageText'
import { oneOf } from '../../logic/one-of'

const EXPIRY_CHOICES = [
  { value: '7', label: 'expires in 7 days' },
  { value: '30', label: 'expires in 30 days' },
  { value: '90', label: 'expires in 90 days' },
  { value: '365', label: 'expires in a year' },
  { value: 'never', label: 'never expires' },
] as const

/** What a key without a dialect of its own gets, in words: the gateway's. */
export const GATEWAY_DIALECT_LABEL = "gateway's dialect"

export function describeKeyDialect(dialect: Dialect | null): string {
  return dialect === null ? GATEWAY_DIALECT_LABEL : `${dialect} dialect`
}

function CreateKeyForm({ busy, onCreate }: { busy: boolean; onCreate(request: CreateKeyRequest): void }) {
  const [name, setName] = useState('')
  const [role, setRole] = useState<KeyRole>('member')
  const [expiry, setExpiry] = useState('30')
  const [dialect, setDialect] = useState<Dialect | 'gateway'>('gateway')
  return (
    <form
      className="inline"
      onSubmit={(e) => {
        e.preventDefault()
        if (name.trim() === '') return
        onCreate({ name: name.trim(), role, expires_in_days: expiry === 'never' ? null : Number(expiry), dialect: dialect === 'gateway' ? null : dialect })
        setName('')
      }}
    >
      <input value={name} placeholder="Name, e.g. continue-laptop" size={28} maxLength={100} onChange={(e) => setName(e.target.value)} aria-label="Key name" data-testid="key-name" />
      <select value={role} onChange={(e) => setRole(oneOf(KEY_ROLES, e.target.value) ?? role)} aria-label="Role" data-testid="key-role">
        {[...KEY_ROLES].reverse().map((r) => (
          <option key={r} value={r}>
            {r}
          </option>
        ))}
      </select>
      <select value={expiry} onChange={(e) => setExpiry(e.target.value)} aria-label="Expires" data-testid="key-expiry">
        {EXPIRY_CHOICES.map((choice) => (
          <option key={choice.value} value={choice.value}>
            {choice.label}
          </option>
        ))}
      </select>
      <select
        value={dialect}
        onChange={(e) => setDialect(oneOf(DIALECTS, e.target.value) ?? 'gateway')}
        aria-label="Dialect"
        title="openai: OpenAI's defaults (`stream` left out means JSON…), for the AI SDK, LlamaIndex, Mastra…; mortar: Mortar's own (stream unless told otherwise)"
        data-testid="key-dialect"
      >
        <option value="gateway">{GATEWAY_DIALECT_LABEL}</option>
        {DIALECTS.map((d) => (
          <option key={d} value={d}>
            {describeKeyDialect(d)}
          </option>
        ))}
      </select>
      <button type="submit" className="button button--primary" disabled={busy || name.trim() === ''} data-testid="key-create">
        Create key
      </button>
    </form>
  )
}

type Confirming = { id: string; action: 'revoke' | 'rotate' } | null

function KeyActions({ apiKey, state, confirming, onConfirming }: { apiKey: ApiKeyObject; state: ApiKeysState; confirming: Confirming; onConfirming(next: Confirming): void }) {
  if (apiKey.status !== 'active') return null
  // Both revoke the key at once, for every tool that uses it: one more click to be sure.
  if (confirming?.id === apiKey.id) {
    const act = confirming.action === 'revoke' ? () => state.revoke(apiKey.id) : () => state.rotate(apiKey.id)
    return (
      <span className="inline" data-testid="key-confirm">
        <span>{confirming.action === 'revoke' ? 'Revoke it? Tools using it stop working.' : 'Rotate it? The old key stops working.'}</span>
        <button
          type="button"
          className="button button--small button--danger"
          disabled={state.busy}
          onClick={() => {
            onConfirming(null)
            void act()
          }}
          data-testid="key-confirm-yes"
        >
          {confirming.action === 'revoke' ? 'Revoke' : 'Rotate'}
        </button>
        <button type="button" className="button button--small" onClick={() => onConfirming(null)}>
          Cancel
        </button>
      </span>
    )
  }
  return (
    <span className="inline">
      <button type="button" className="button button--small" onClick={() => onConfirming({ id: apiKey.id, action: 'rotate' })} disabled={state.busy} data-testid="key-rotate">
        Rotate
      </button>
      <button type="button" className="button button--small button--danger" onClick={() => onConfirming({ id: apiKey.id, action: 'revoke' })} disabled={state.busy} data-testid="key-revoke">
        Revoke
      </button>
    </span>
  )
}

function Revealed({ created, onDone }: { created: NonNullable<ApiKeysState['revealed']>; onDone(): void }) {
  return (
    <div className="revealed" role="alert" data-testid="key-revealed">
      <p>
        <strong>{created.name}</strong> ({created.role}, {created.expires_at === null ? 'never expires' : `expires ${created.expires_at.slice(0, 10)}`}, {describeKeyDialect(created.dialect)}): copy this key now.
        It is shown only once; Mortar keeps only its hash.
      </p>
      <code data-testid="key-revealed-value">{created.key}</code>
      <CopyButton text={created.key} testId="key-copy" />
      <button type="button" className="button button--small" onClick={onDone} data-testid="key-revealed-done">
        Done
      </button>
    </div>
  )
}

/**
 * The organization's API keys, through the gateway's `/v1/keys` (owner and admin keys only):
 * the same in the desktop app and in a browser.
 */
export function ApiKeysPanel({ state }: { state: ApiKeysState }) {
  const [confirming, setConfirming] = useState<Confirming>(null)
  return (
    <section className="settings__section" data-testid="settings-keys" data-access={state.access.kind}>
      <h3>API keys</h3>
      {state.access.kind === 'forbidden' ? (
        <div data-testid="keys-forbidden">
          <p>
            <strong>This key cannot manage API keys.</strong> <MessageText text={state.access.message} />
          </p>
          <p className="muted">
            Open Mortar with an owner or admin key (the UI link <code>mortar serve</code> prints has one), or use{' '}
            <code>mortar keys create</code> on the gateway&apos;s machine.
          </p>
        </div>
      ) : (
        <>
          <p className="muted">
            Give each tool its own key, so Traffic shows which one sent a request, and a leaked key can be revoked alone. Keys
            belong to this key&apos;s organization; an owner manages every key, an admin only member keys and itself.
          </p>
          <CreateKeyForm busy={state.busy || state.access.kind !== 'allowed'} onCreate={(request) => void state.create(request)} />
        </>
      )}
      {state.revealed !== null ? <Revealed created={state.revealed} onDone={state.dismissRevealed} /> : null}
      {state.error !== null ? (
        <p className="field__problem" role="alert" data-testid="keys-error">
          <MessageText text={state.error} />
        </p>
      ) : null}
      {state.access.kind === 'allowed' ? (
        <div className="keys-scroll">
          <table className="keys" data-testid="keys-table">
            <thead>
              <tr>
                <th>Name</th>
                <th>Key</th>
                <th>Role</th>
                <th>Dialect</th>
                <th>Org</th>
                <th>Created</th>
                <th>Expires</th>
                <th>Status</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {state.keys.length === 0 ? (
                <tr>
                  <td colSpan={9} className="muted">
                    No keys yet.
                  </td>
                </tr>
              ) : null}
              {state.keys.map((key) => (
                <tr key={key.id} data-testid="key-row" data-status={key.status} data-id={key.id}>
                  <td className="keys__wraps">{key.name}</td>
                  <td>
                    <code>{key.hint}</code>
                  </td>
                  <td>{key.role}</td>
                  <td className="keys__wraps" data-testid="key-row-dialect">
                    {describeKeyDialect(key.dialect)}
                  </td>
                  <td>{key.org}</td>
                  <td>{key.created_at.slice(0, 10)}</td>
                  <td>{key.expires_at?.slice(0, 10) ?? 'never'}</td>
                  <td data-testid="key-status">{key.status}</td>
                  <td>
                    <KeyActions apiKey={key} state={state} confirming={confirming} onConfirming={setConfirming} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  )
}
