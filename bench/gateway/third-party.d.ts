// The benchmark's own dependencies (bench/gateway/package.json, installed apart from the project's)
// ship JavaScript only: what the benchmark uses of them.
declare module 'autocannon' {
  interface Options {
    url: string
    method: string
    headers: Record<string, string>
    body: string
    connections: number
    duration: number
  }
  interface Result {
    requests: { average: number }
    non2xx: number
    errors: number
    timeouts: number
  }
  export default function autocannon(options: Options): Promise<Result>
}

declare module 'ws' {
  export default class WebSocket {
    constructor(url: string)
    on(event: 'message', listener: (data: unknown) => void): this
    once(event: 'error', listener: (error: Error) => void): this
    once(event: 'open', listener: () => void): this
    send(data: string): void
    close(): void
  }
}
