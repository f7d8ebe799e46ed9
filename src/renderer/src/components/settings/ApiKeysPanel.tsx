import { useState } from 'react'
import type { ApiKeySummary, CreateApiKeyRequest } from '../../../../shared/ipc'
import type { ApiKeysState } from '../../hooks/use-api-keys'
import { CopyButton } from '../common/CopyButton'

function status(key: ApiKeySummary): string {
  if (key.revokedAt !== null) return 'revoked'
  if (key.expiresAt !== null && Date.parse(key.expiresAt) <= Date.now()) return 'expired'
  return 'active'
}

function CreateKeyForm({ busy, onCreate }: { busy: boolean; onCreate(request: CreateApiKeyRequest): void }) {
  const [name, setName] = useState('')
  const [role, setRole] = useState<CreateApiKeyRequest['role']>('member')
  const [expiry, setExpiry] = useState('30')
  const expiresInDays = expiry === 'never' ? null : Number(expiry)
  return (
    <form
      className="inline"
      onSubmit={(e) => {
        e.preventDefault()
        if (name.trim() !== '') onCreate({ name: name.trim(), role, expiresInDays })
        setName('')
      }}
    >
      <input value={name} placeholder="Name, e.g. continue-laptop" onChange={(e) => setName(e.target.value)} aria-label="Key name" data-testid="key-name" />
      <select value={role} onChange={(e) => setRole(e.target.value as CreateApiKeyRequest['role'])} aria-label="Role" data-testid="key-role">
        <option value="member">member</option>
        <option value="admin">admin</option>
        <option value="owner">owner</option>
      </select>
      <select value={expiry} onChange={(e) => setExpiry(e.target.value)} aria-label="Expires" data-testid="key-expiry">
        <option value="7">expires in 7 days</option>
        <option value="30">expires in 30 days</option>
        <option value="90">expires in 90 days</option>
        <option value="365">expires in a year</option>
        <option value="never">never expires</option>
      </select>
      <button type="submit" className="button button--primary" disabled={busy || name.trim() === ''} data-testid="key-create">
        Create key
      </button>
    </form>
  )
}

/** keys.json of the gateway's home, through main (desktop only). */
export function ApiKeysPanel({ state }: { state: ApiKeysState }) {
  return (
    <section className="settings__section" data-testid="settings-keys">
      <h3>API keys</h3>
      <CreateKeyForm busy={state.busy} onCreate={(request) => void state.create(request)} />
      {state.revealed !== null ? (
        <div className="revealed" role="alert" data-testid="key-revealed">
          <p>
            <strong>{state.revealed.record.name}</strong>: copy this key now. It is shown only once; Mortar keeps only its hash.
          </p>
          <code data-testid="key-revealed-value">{state.revealed.key}</code>
          <CopyButton text={state.revealed.key} testId="key-copy" />
          <button type="button" className="button button--small" onClick={state.dismissRevealed}>
            Done
          </button>
        </div>
      ) : null}
      {state.error !== null ? (
        <p className="field__problem" role="alert">
          {state.error}
        </p>
      ) : null}
      <table className="keys" data-testid="keys-table">
        <thead>
          <tr>
            <th>Name</th>
            <th>Key</th>
            <th>Role</th>
            <th>Org</th>
            <th>Created</th>
            <th>Expires</th>
            <th>Status</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {state.keys.map((key) => {
            const s = status(key)
            return (
              <tr key={key.id} data-testid="key-row" data-status={s}>
                <td>{key.name}</td>
                <td>
                  <code>{key.hint}</code>
                </td>
                <td>{key.role}</td>
                <td>{key.org}</td>
                <td>{key.createdAt.slice(0, 10)}</td>
                <td>{key.expiresAt?.slice(0, 10) ?? 'never'}</td>
                <td>{s}</td>
                <td>
                  {s === 'active' ? (
                    <>
                      <button type="button" className="button button--small" onClick={() => void state.rotate(key.id)} disabled={state.busy}>
                        Rotate
                      </button>
                      <button type="button" className="button button--small button--danger" onClick={() => void state.revoke(key.id)} disabled={state.busy} data-testid="key-revoke">
                        Revoke
                      </button>
                    </>
                  ) : null}
                </td>
              </tr>
            )
          })}
        </tbody>
      </table>
    </section>
  )
}
