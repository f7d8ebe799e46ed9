/** Whether a model server's 400 says it does not take `stream_options` (older llama.cpp, some proxies). */
export function rejectsStreamOptions(status: number, body: string): boolean {
  return status >= 400 && status < 500 && /stream_options/i.test(body)
}
