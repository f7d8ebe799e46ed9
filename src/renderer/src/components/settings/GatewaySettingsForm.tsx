import { useState } from 'react'
import { OPTIMIZER_MODES } from '../../../../shared/api/optimizer'
import { BIND_ADDRESSES, gatewaySettingsSchema, type GatewaySettings } from '../../../../shared/desktop-settings'
import type { ModelServerCheck } from '../../../../shared/ipc'
import { Field } from '../common/Field'
import { ModelServersEditor } from './ModelServersEditor'
import { oneOf } from '../../logic/one-of'

interface GatewaySettingsFormProps {
  saved: GatewaySettings
  runningUrl: string
  needsRestart: boolean
  onSave(gateway: GatewaySettings): Promise<boolean>
  onRestart(): void
  testModelServer(url: string): Promise<ModelServerCheck>
}

export function GatewaySettingsForm({ saved, runningUrl, needsRestart, onSave, onRestart, testModelServer }: GatewaySettingsFormProps) {
  const [draft, setDraft] = useState<GatewaySettings>(saved)
  const [port, setPort] = useState(String(saved.port))
  const candidate = { ...draft, port: Number(port) }
  const check = gatewaySettingsSchema.safeParse(candidate)
  const problems = check.success ? [] : check.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`)
  const dirty = JSON.stringify(candidate) !== JSON.stringify(saved)
  return (
    <section className="settings__section" data-testid="settings-gateway">
      <h3>Gateway</h3>
      <p className="muted">
        Running at <code data-testid="settings-running-url">{runningUrl}</code>. Changes here apply when Mortar restarts.
      </p>
      <div className="options__grid">
        <Field label="Bind address" hint="Loopback only; use `mortar serve --host` to serve a network.">
          <select value={draft.host} onChange={(e) => setDraft({ ...draft, host: oneOf(BIND_ADDRESSES, e.target.value) ?? draft.host })} data-testid="settings-host">
            {BIND_ADDRESSES.map((host) => (
              <option key={host} value={host}>
                {host}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Port" hint="0 picks a free port at each start.">
          <input inputMode="numeric" value={port} onChange={(e) => setPort(e.target.value)} data-testid="settings-port" />
        </Field>
        <Field label="Optimizer" hint="shadow measures only; on applies the lossless passes; off lets no header turn it on.">
          <select
            value={draft.optimizerMode}
            onChange={(e) => setDraft({ ...draft, optimizerMode: oneOf(OPTIMIZER_MODES, e.target.value) ?? draft.optimizerMode })}
            data-testid="settings-optimizer"
          >
            {OPTIMIZER_MODES.map((mode) => (
              <option key={mode} value={mode}>
                {mode}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Scripted model pace (tokens/s)" hint="0: as fast as possible. Used when no model server is set.">
          <input
            inputMode="numeric"
            value={String(draft.scriptedTokensPerSecond)}
            onChange={(e) => setDraft({ ...draft, scriptedTokensPerSecond: Number(e.target.value) || 0 })}
            data-testid="settings-scripted-tps"
          />
        </Field>
      </div>
      <h4>Model servers</h4>
      <ModelServersEditor servers={draft.modelServers} onChange={(modelServers) => setDraft({ ...draft, modelServers })} test={testModelServer} />
      <Field label="Model name on the server" hint="If it is not Qwen/Qwen2.5-7B-Instruct (Ollama: qwen2.5:7b).">
        <input value={draft.upstreamModel} onChange={(e) => setDraft({ ...draft, upstreamModel: e.target.value })} data-testid="settings-upstream-model" />
      </Field>
      {problems.map((problem) => (
        <p key={problem} className="field__problem" role="alert">
          {problem}
        </p>
      ))}
      <div className="inline">
        <button
          type="button"
          className="button button--primary"
          disabled={!dirty || problems.length > 0}
          onClick={() => void onSave(candidate)}
          data-testid="settings-save-gateway"
        >
          Save
        </button>
        {needsRestart ? (
          <>
            <span className="muted">Saved. Restart to apply.</span>
            <button type="button" className="button" onClick={onRestart} data-testid="settings-restart">
              Restart Mortar now
            </button>
          </>
        ) : null}
      </div>
    </section>
  )
}
