import type { ChatTool } from '../../../shared/api/chat-request'

/**
 * The scripted model's arguments for a call: each required parameter filled with an empty value
 * of its type ("", 0, false, [], {}). A type list such as
 * ["string", "null"] takes its first type; a parameter without a usable type gets null.
 */
export function emptyArgumentsFor(tool: ChatTool): Record<string, unknown> {
  const parameters = tool.function.parameters
  if (parameters === undefined) return {}
  const required = Array.isArray(parameters.required) ? parameters.required : []
  const properties =
    typeof parameters.properties === 'object' && parameters.properties !== null
      ? (parameters.properties as Record<string, unknown>)
      : {}
  const args: Record<string, unknown> = {}
  for (const name of required) {
    if (typeof name !== 'string') continue
    args[name] = emptyValueOf(properties[name])
  }
  return args
}

function emptyValueOf(schema: unknown): unknown {
  if (typeof schema !== 'object' || schema === null) return null
  const declared = (schema as { type?: unknown }).type
  const type = Array.isArray(declared) ? declared[0] : declared
  switch (type) {
    case 'string':
      return ''
    case 'number':
    case 'integer':
      return 0
    case 'boolean':
      return false
    case 'array':
      return []
    case 'object':
      return {}
    default:
      return null
  }
}
