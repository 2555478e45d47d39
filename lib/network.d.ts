// Types of lib/network.js: the person asked about hosts a sandbox's allow list does not name.

/** A host a sandboxed program wants to reach. */
export interface NetworkQuestion {
  /** The host name it asked the proxy for. */
  host: string
  /** The port. */
  port: number
}

/**
 * Sets the process's asker for sandboxes with `network: { allow, ask: true }`: a connection to a
 * host on neither list waits until `ask` resolves; `true` lets it (and later ones to that host)
 * through for the process's life, a string refuses it with that reason (the tool reply's
 * refusal line shows it), anything else refuses. `null` removes the asker: such hosts are then
 * refused.
 */
export function setNetworkAsker(ask: ((question: NetworkQuestion) => boolean | string | Promise<boolean | string>) | null): void
