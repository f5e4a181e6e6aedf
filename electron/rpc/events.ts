import { events, type EventName, type EventPayload } from '../../shared/rpc/contract';

type Listener = (event: EventName, payload: unknown) => void;

/** Typed event bus from services to every connected transport. Payloads are validated on emit. */
export class EventBus {
  private listeners = new Set<Listener>();

  emit<E extends EventName>(event: E, payload: EventPayload<E>): void {
    const parsed = events[event].parse(payload);
    for (const l of this.listeners) l(event, parsed);
  }

  /** Subscribe to all events (transports forward them); returns an unsubscribe function. */
  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
