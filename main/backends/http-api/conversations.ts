/**
 * The `http_api` backend's memory: chat-completions servers are stateless, so the bridge keeps each
 * conversation (by contextId) and resends it every turn. Bounded both ways: the least recently used
 * conversations are dropped past `maxContexts`, and each keeps only its newest `maxMessages`.
 */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export class Conversations {
  /** Map order is recency order: a read or write moves the context to the end. */
  private readonly byContext = new Map<string, ChatMessage[]>();

  constructor(private readonly limits: { maxContexts: number; maxMessages: number }) {}

  /** The conversation so far (a copy), or empty when new or forgotten. */
  history(contextId: string): ChatMessage[] {
    const messages = this.byContext.get(contextId);
    if (!messages) return [];
    this.byContext.delete(contextId);
    this.byContext.set(contextId, messages);
    return [...messages];
  }

  has(contextId: string): boolean {
    return this.byContext.has(contextId);
  }

  /** Records one finished exchange; a failed turn records nothing, so a retry starts from the same place. */
  record(contextId: string, user: string, assistant: string): void {
    const messages = [
      ...this.history(contextId),
      { role: 'user', content: user } as const,
      { role: 'assistant', content: assistant } as const,
    ];
    // Trim whole exchanges from the front so the history never starts with an orphaned reply.
    while (messages.length > this.limits.maxMessages && messages.length >= 2) messages.splice(0, 2);
    this.byContext.delete(contextId);
    this.byContext.set(contextId, messages);
    while (this.byContext.size > this.limits.maxContexts) {
      const oldest = this.byContext.keys().next().value as string;
      this.byContext.delete(oldest);
    }
  }

  get size(): number {
    return this.byContext.size;
  }
}
